"""The fork server (issue 18 item 2, ``sandbox/forkserver.py``): a child forked from the pre-imported server
behaves as a fresh one to the harness (same verdicts, same failure texts), shares no state with the
submission before it, sees exactly its scrubbed environment, is killed on timeout, and the verifier falls
back to a fresh process when the server is gone."""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.sandbox import forkserver
from kernelgenbench.sandbox.runner import Child, ChildDied, child_env
from kernelgenbench.suite.registry import get_operator

INTERP = PROFILES["interpreter"]
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fresh_servers():
    forkserver.shutdown_all()
    yield
    forkserver.shutdown_all()


def _ready(tmp_path: Path, name: str, text: str, spawn) -> tuple[Child, dict]:
    """Start a child on a submission of aten::add written from ``text``; returns it (open) and its first
    message (``Ready``), or raises ChildDied."""
    sub = tmp_path / name / "aten__add.py"
    sub.parent.mkdir(parents=True)
    sub.write_text(text)
    work = tmp_path / name / "work"
    child = Child("aten::add", sub, INTERP, None, work, work / "child.log", spawn=spawn)
    try:
        return child, child.recv(120)
    except BaseException:
        child.close()
        raise


def _import_message(tmp_path: Path, name: str, text: str, spawn) -> tuple[bool, str]:
    child, msg = _ready(tmp_path, name, text, spawn)
    child.close()
    assert msg["event"] == "ready" and not msg["ok"], msg
    return child.forked, msg["error"]["message"]


def test_enabled_by_default_on_the_interpreter_only() -> None:
    assert forkserver.enabled(INTERP, None) is True
    assert forkserver.enabled(PROFILES["cuda"], None) is True   # GPU platforms too since session 33
    assert forkserver.enabled(PROFILES["cuda"], False) is False
    assert forkserver.enabled(PROFILES["cuda"], True) is True
    assert forkserver.enabled(INTERP, False) is False
    assert forkserver.spawner(INTERP, False) is None


@pytest.mark.slow
def test_oracle_smoke_passes_in_forked_children(tmp_path: Path) -> None:
    from kernelgenbench.cli import app
    from kernelgenbench.run.rundir import RunDir

    before = dict(forkserver.STATS)
    res = CliRunner().invoke(app, ["eval", str(ROOT / "solutions"), "--op", "aten::add", "--op", "vllm::rms_norm",
                                   "--tier", "smoke", "--platform", "interpreter", "--out", str(tmp_path / "run"),
                                   "--fork-server"])
    assert res.exit_code == 0, res.output
    recs = RunDir.open(tmp_path / "run").records()
    assert sorted(r["op"] for r in recs) == ["aten::add", "vllm::rms_norm"]
    assert {r["status"] for r in recs} == {"passed"}, [r.get("first_failure") for r in recs]
    # every sandbox of both jobs was forked (L2's re-runs included), none fell back
    assert forkserver.STATS["forks"] - before["forks"] >= 2
    assert forkserver.STATS["fallbacks"] == before["fallbacks"]
    assert forkserver._SERVERS == {}  # the run stopped its server


LEAKER = '''import sys
import torch
import kernelgenbench.sandbox.state as st
import numpy

torch.add = lambda *a, **k: "patched"
st.KGB_LEAK = 1
st.STATE.trace["kgb.leak"] = 7
sys.modules["kgb_leak_module"] = sys
numpy.KGB_LEAK = 1
import os
os.environ["KGB_LEAK"] = "1"
'''

PROBE = '''import os
import sys
import torch
import kernelgenbench.sandbox.state as st
import numpy

leaks = [name for name, seen in [
    ("torch.add", getattr(torch.add, "__name__", "") == "<lambda>"),
    ("module global", hasattr(st, "KGB_LEAK")),
    ("STATE", "kgb.leak" in st.STATE.trace),
    ("sys.modules", "kgb_leak_module" in sys.modules or any(m.startswith("kgb_submission") and m != __name__
                                                             for m in sys.modules)),
    ("numpy", hasattr(numpy, "KGB_LEAK")),
    ("environ", "KGB_LEAK" in os.environ),
] if seen]
raise ImportError(f"leaks={leaks} ppid={os.getppid()}")
'''


@pytest.mark.slow
def test_two_submissions_in_a_row_share_no_python_state(tmp_path: Path) -> None:
    spawn = forkserver.spawner(INTERP, True)
    child, msg = _ready(tmp_path, "a", LEAKER, spawn)
    child.close()
    assert child.forked and msg["event"] == "ready"
    forked, text = _import_message(tmp_path, "b", PROBE, spawn)
    (server,) = forkserver._SERVERS.values()
    assert forked and text == f"leaks=[] ppid={server.pid}"
    # the probe finds the leaks where they are: in the process that made them
    both = tmp_path / "both.py"
    both.write_text(LEAKER + PROBE.replace("import os\n", "import os\n", 1))
    forked, text = _import_message(tmp_path, "c", both.read_text(), spawn)
    assert forked and text.startswith("leaks=['torch.add', 'module global', 'STATE', 'sys.modules', 'numpy', "
                                      "'environ']")


ENV_PROBE = '''import json, os, random, sys
import torch
import triton
raise ImportError(json.dumps({"env": dict(os.environ), "cwd": os.getcwd(), "argv": sys.argv,
                              "triton_cache": triton.knobs.cache.dir, "interpret": triton.knobs.runtime.interpret,
                              "random": random.random(), "threads": torch.get_num_threads(),
                              "fds": sorted(int(f) for f in os.listdir("/proc/self/fd")),
                              "sid": os.getsid(0), "pid": os.getpid(), "path0": sys.path[0]}))
'''


@pytest.mark.slow
def test_forked_child_sees_exactly_its_scrubbed_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-the-test")
    monkeypatch.setenv("KGB_SECRET_TOKEN", "secret")
    spawn = forkserver.spawner(INTERP, True)
    seen = []
    for name in ("e1", "e2"):
        forked, text = _import_message(tmp_path, name, ENV_PROBE, spawn)
        assert forked
        seen.append(json.loads(text))
    for name, got in zip(("e1", "e2"), seen):
        work = tmp_path / name / "work"
        assert got["env"] == child_env(INTERP, None, work)  # the caches per job, nothing else
        assert got["env"]["TRITON_CACHE_DIR"] == str(work / "triton-cache")
        assert got["env"]["TORCHINDUCTOR_CACHE_DIR"] == str(work / "inductor-cache")
        # Triton reads its environment when asked (triton.knobs), so after the fork: the job's cache, interpreted
        assert got["triton_cache"] == str(work / "triton-cache") and got["interpret"] is True
        assert "OPENAI_API_KEY" not in got["env"] and "KGB_SECRET_TOKEN" not in got["env"]
        assert got["cwd"] == str(work / "cwd") and got["path0"] == str(work / "cwd")
        assert got["argv"][1:3] == ["--op", "aten::add"] and got["argv"][0].endswith("sandbox/child.py")
        assert got["sid"] == got["pid"]  # leads its own session (a timeout kills its group)
        assert got["threads"] == int(got["env"]["OMP_NUM_THREADS"])
        # stdin, stdout, stderr, the answer channel, child.py's own (the command channel's copy, /dev/null, the
        # progress file), the listing's: nothing of the server's or the verifier's
        resp = int(got["argv"][got["argv"].index("--resp-fd") + 1])
        assert resp in got["fds"] and [f for f in got["fds"] if f != resp] == list(range(7)), got["fds"]
    # as a fresh process sees them (but for the variables Python itself sets at start-up, such as LC_CTYPE)
    forked, text = _import_message(tmp_path, "fresh", ENV_PROBE, None)
    fresh = json.loads(text)
    resp = int(fresh["argv"][fresh["argv"].index("--resp-fd") + 1])
    assert not forked and [f for f in fresh["fds"] if f != resp] == list(range(7)), fresh["fds"]
    assert {k: v for k, v in fresh["env"].items() if k in seen[0]["env"]} == child_env(INTERP, None,
                                                                                       tmp_path / "fresh" / "work")
    assert fresh["threads"] == seen[0]["threads"]
    assert seen[0]["random"] != seen[1]["random"]  # reseeded per child
    (server,) = forkserver._SERVERS.values()
    environ = Path(f"/proc/{server.proc.pid}/environ").read_bytes().split(b"\0")
    assert not any(e.startswith((b"OPENAI_API_KEY=", b"KGB_SECRET_TOKEN=")) for e in environ)


SEGV_IMPORT = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"


@pytest.mark.slow
def test_a_crash_at_import_reads_the_same_forked_or_fresh(tmp_path: Path) -> None:
    texts = {}
    for on in (True, False):
        with pytest.raises(ChildDied) as info:
            _ready(tmp_path, f"segv-{on}", SEGV_IMPORT, forkserver.spawner(INTERP, True) if on else None)
        texts[on] = (str(info.value), info.value.returncode)
    assert texts[True] == texts[False] == ("the sandbox process was killed by signal SIGSEGV", -signal.SIGSEGV)
    exit_code = "import os\nos._exit(7)\n"
    for on in (True, False):
        with pytest.raises(ChildDied) as info:
            _ready(tmp_path, f"exit-{on}", exit_code, forkserver.spawner(INTERP, True) if on else None)
        texts[on] = (str(info.value), info.value.returncode)
    assert texts[True] == texts[False] == ("the sandbox process exited with code 7", 7)


SEGV_CALL = (ROOT / "solutions" / "aten__add.py").read_text().replace(
    "def add_Tensor(self, other, *, alpha=1):\n",
    "def add_Tensor(self, other, *, alpha=1):\n    import os, signal\n    os.kill(os.getpid(), signal.SIGSEGV)\n", 1)


@pytest.mark.slow
def test_a_crash_in_a_case_fails_alike_forked_or_fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelgenbench.run import job

    monkeypatch.setattr(job, "scan_file", lambda *a, **k: [])  # L1 rejects os.kill: the crash runs behind it
    op = get_operator("aten::add")
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir()
    sub.write_text(SEGV_CALL)
    assert "signal.SIGSEGV)\n" in SEGV_CALL
    recs = {on: Verifier(JobSpec(op, sub, "smoke"), INTERP, None, tmp_path / f"job-{on}",
                         Settings(fork_server=on, ghost_cases=0)).run() for on in (True, False)}
    for rec in recs.values():
        assert rec["failure_class"] == recs[False]["failure_class"], rec["first_failure"]
    first = {on: r["first_failure"]["message"].split("\nlast output:")[0] for on, r in recs.items()}
    assert first[True] == first[False]
    assert "killed by signal SIGSEGV" in first[True], first[True]


@pytest.mark.slow
def test_import_timeout_kills_the_forked_child(tmp_path: Path) -> None:
    op = get_operator("vllm::rms_norm")
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir()
    sub.write_text((ROOT / "tests" / "bad" / "import_hang__vllm__rms_norm.py").read_text())
    before = forkserver.STATS["forks"]
    t0 = time.monotonic()
    rec = Verifier(JobSpec(op, sub, "smoke"), INTERP, None, tmp_path / "job",
                   Settings(fork_server=True, import_timeout_s=3)).run()
    assert time.monotonic() - t0 < 60
    assert forkserver.STATS["forks"] == before + 1
    assert rec["failure_class"] == "timeout" and "took longer than 3 s" in rec["first_failure"]["message"]
    (server,) = forkserver._SERVERS.values()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not server.exits and not _no_children(server.pid):
        time.sleep(0.1)
    assert _no_children(server.pid)  # killed, and reaped by the server


def _alive(pid: int) -> bool:
    return forkserver._running(pid)


def _no_children(pid: int) -> bool:
    kids = Path(f"/proc/{pid}/task/{pid}/children")
    return not kids.exists() or not kids.read_text().split()


OK_ADD = (ROOT / "solutions" / "aten__add.py").read_text()


@pytest.mark.slow
def test_a_dead_server_falls_back_to_fresh_processes(tmp_path: Path) -> None:
    spawn = forkserver.spawner(INTERP, True)
    child, msg = _ready(tmp_path, "first", OK_ADD, spawn)
    assert child.forked and msg["ok"]
    (server,) = forkserver._SERVERS.values()
    os.killpg(server.proc.pid, signal.SIGKILL)
    server.proc.wait(10)
    # a child forked before the death outlives it, answers and closes without waiting for a status that is lost
    assert child.proc.poll() is None
    t0 = time.monotonic()
    child.close()
    assert time.monotonic() - t0 < 8
    assert child.proc.lost and child.proc.returncode is None and not _alive(child.proc.pid)
    before = dict(forkserver.STATS)
    child, msg = _ready(tmp_path, "second", OK_ADD, spawn)
    child.close()
    assert not child.forked and msg["ok"]
    assert forkserver.STATS["fallbacks"] == before["fallbacks"] + 1
    # a whole job after the death: passes, in a fresh process
    op = get_operator("aten::add")
    sub = tmp_path / "job" / op.filename
    sub.parent.mkdir()
    sub.write_text(OK_ADD)
    rec = Verifier(JobSpec(op, sub, "smoke"), INTERP, None, tmp_path / "job-w",
                   Settings(fork_server=True, ghost_cases=0)).run()
    assert rec["status"] == "passed", rec.get("first_failure")
    assert forkserver.STATS["forks"] == before["forks"]


@pytest.mark.slow
def test_the_interpreter_under_a_vendor_profile_is_pinned_in_the_child_not_the_server(tmp_path: Path) -> None:
    from kernelgenbench import platforms

    plat = platforms.detect("interpreter", "rocm")
    assert plat.visible_devices_var == "HIP_VISIBLE_DEVICES"
    assert plat.visible_devices_var not in forkserver.server_env(plat)  # the server pins no device
    sub = tmp_path / "aten__add.py"
    sub.write_text(ENV_PROBE)
    work = tmp_path / "work"
    child = Child("aten::add", sub, plat, None, work, work / "child.log", spawn=forkserver.spawner(plat, None))
    msg = child.recv(120)
    child.close()
    assert child.forked
    env = json.loads(msg["error"]["message"])["env"]
    assert env == child_env(plat, None, work) and env["HIP_VISIBLE_DEVICES"] == "0"


@pytest.mark.slow
def test_a_server_the_interrupted_run_kills_is_no_news_but_a_death_is(tmp_path: Path) -> None:
    """fresh44: Ctrl-C on kgb generate printed "kgb: the fork server gave no answer (it died); sandbox children
    start as fresh processes instead". A job was waiting for its fork when the interrupt's kill_all killed the
    server: the run stopped it, so that is no news. A server that dies while the run goes on is still warned of."""
    import logging
    import threading

    from kernelgenbench.sandbox.runner import kill_all

    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    keep = Keep()
    logging.getLogger("kernelgenbench.forkserver").addHandler(keep)
    env = forkserver.server_env(INTERP)
    spawn = forkserver.spawner(INTERP, True)
    pipes = [os.pipe() for _ in range(3)]
    try:
        for stopped_by_the_run in (True, False):
            server = forkserver.get_server(INTERP, env)
            assert server is not None and server.alive
            os.kill(server.proc.pid, signal.SIGSTOP)  # it cannot answer: the spawn below waits for it
            got: list = []

            def ask(got: list = got) -> None:
                got.append(spawn(["-m", "kernelgenbench.sandbox.child"], env, tmp_path, pipes[0][0], pipes[1][1],
                                 pipes[2][1]))

            waiting = threading.Thread(target=ask)
            before = forkserver.STATS["fallbacks"]
            waiting.start()
            time.sleep(1.0)
            if stopped_by_the_run:
                kill_all()  # what an interrupted run does (scheduler, kgb generate, kgb agent)
            else:
                os.killpg(server.proc.pid, signal.SIGKILL)  # a death the run did not cause
            waiting.join(30)
            assert not waiting.is_alive() and got == [None]  # a fresh process instead, in both cases
            assert forkserver.STATS["fallbacks"] == before + 1
            if stopped_by_the_run:
                assert seen == [], seen
                forkserver.shutdown_all()  # the next run starts its own server
            else:
                assert seen == ["kgb: the fork server gave no answer (it died); sandbox children start as fresh "
                                "processes instead"], seen
    finally:
        logging.getLogger("kernelgenbench.forkserver").removeHandler(keep)
        for r, w in pipes:
            os.close(r)
            os.close(w)
