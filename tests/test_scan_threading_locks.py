"""L1 on ``threading`` (tp42): a lock around a launcher's cache fill passes (FlagGems' LibEntry serializes a kernel's
first compilation with ``threading.Lock()``); every other name of the module stays rule threads, and the module
used as a value stays refused as the allowed modules are (verify/scan/stdlib_rules.py)."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source


def _rules(src: str) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in scan_source(textwrap.dedent(src))]


def test_a_lock_around_a_cache_fill_is_allowed() -> None:
    assert _rules("""
        import threading
        from threading import Lock, RLock as _R

        _LOCK = threading.Lock()
        _RLOCK = _R()
        _CACHE = {}


        class Entry:
            def __init__(self):
                self.lock = Lock()
                self.cache = {}

            def get(self, key):
                while key not in self.cache:
                    with self.lock:
                        if key in self.cache:
                            break
                        self.cache[key] = 1
                return self.cache[key]


        def block_for(n):
            if n not in _CACHE:
                _LOCK.acquire()
                try:
                    _CACHE[n] = 1024
                finally:
                    _LOCK.release()
            return _CACHE[n]
        """) == []


@pytest.mark.parametrize("src,what", [
    ("import threading\nthreading.Thread(target=print).start()\n", "uses threading.Thread"),
    ("import threading as th\nth.Timer(1.0, print).start()\n", "uses threading.Timer"),
    ("import threading\nstate = threading.local()\n", "uses threading.local"),
    ("import threading\nthreading.settrace(print)\n", "uses threading.settrace"),
    ("import threading\nm = threading\nm.Event()\n", "uses threading.Event"),
    ("import threading\nt = getattr(threading, 'Thread')\n", "uses threading.Thread"),
    ("import threading\nk = threading._os\n", "uses threading._os"),
    ("from threading import Lock, Thread\n", "imports threading.Thread"),
    ("import threading.Thread\n", "imports threading.Thread"),
    ("import _thread\n", "imports _thread"),
])
def test_the_rest_of_threading_is_refused(src: str, what: str) -> None:
    found = _rules(src)
    assert [r for r, _ in found] == ["threads"] and what in found[0][1], found


@pytest.mark.parametrize("src", [
    "import threading\ndef f(m=threading):\n    return m.Thread\n",
    "import threading\nfor m in (threading,):\n    m.Thread(target=print).start()\n",
])
def test_threading_as_a_value_is_refused(src: str) -> None:
    found = _rules(src)
    assert found and found[0][0] == "dynamic-import" and "uses the module threading as a value" in found[0][1], found


def test_a_store_into_threading_stays_monkey_patch() -> None:
    found = _rules("import threading\nthreading.excepthook = print\n")
    assert [r for r, _ in found] == ["monkey-patch"] and "threading.excepthook changes threading" in found[0][1], found
