"""The per-device gate (run/gate.py): timing excludes every other slot's GPU work on the device."""
from __future__ import annotations

import threading
import time

from kernelgenbench.run.gate import DeviceGate


def _hold(cm, events, name, hold_s):
    with cm:
        events.append(("in", name, time.perf_counter()))
        time.sleep(hold_s)
        events.append(("out", name, time.perf_counter()))


def test_shared_holders_overlap():
    g, ev = DeviceGate(), []
    ts = [threading.Thread(target=_hold, args=(g.shared(), ev, i, 0.2)) for i in range(3)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert time.perf_counter() - t0 < 0.5  # three 0.2 s holds at once, not one after another
    assert [e[0] for e in ev[:3]] == ["in", "in", "in"]


def test_exclusive_waits_for_shared_and_blocks_new_shared():
    g, ev = DeviceGate(), []
    reader = threading.Thread(target=_hold, args=(g.shared(), ev, "r1", 0.3))
    reader.start()
    time.sleep(0.05)
    writer = threading.Thread(target=_hold, args=(g.exclusive(), ev, "w", 0.2))
    writer.start()
    time.sleep(0.05)
    late = threading.Thread(target=_hold, args=(g.shared(), ev, "r2", 0.05))
    late.start()  # arrives while the writer waits: writer first (no starvation of timing)
    for t in (reader, writer, late):
        t.join()
    order = [(k, n) for k, n, _ in ev]
    assert order == [("in", "r1"), ("out", "r1"), ("in", "w"), ("out", "w"), ("in", "r2"), ("out", "r2")]
    w_in = next(t for k, n, t in ev if (k, n) == ("in", "w"))
    r1_out = next(t for k, n, t in ev if (k, n) == ("out", "r1"))
    assert w_in >= r1_out
    assert g.waited_s > 0.3


def test_exclusive_holders_do_not_overlap():
    g, ev = DeviceGate(), []
    ts = [threading.Thread(target=_hold, args=(g.exclusive(), ev, i, 0.05)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    kinds = [k for k, _, _ in ev]
    assert kinds == ["in", "out"] * 4  # strictly one after another


def test_exception_releases_the_gate():
    g = DeviceGate()
    try:
        with g.exclusive():
            raise ValueError("x")
    except ValueError:
        pass
    done = []
    t = threading.Thread(target=lambda: (g.shared().__enter__(), done.append(1)))
    t.start()
    t.join(1.0)
    assert done == [1]
