"""The Ray backend (run/ray_backend.py, ``kgb eval --backend ray``) against a local Ray head on 127.0.0.1 that these
tests start and stop: the interpreter platform on a few small operators on the smoke tier gives the local scheduler's
verdicts; a run resumes across a restart of the cluster; a worker killed mid-job is retried as infrastructure, never
charged to the submission. Skipped, saying why, where ray is not installed (``pip install -e '.[ray]'``;
``make test`` installs it)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed: pip install -e '.[ray]' (make test installs it)")

import kernelgenbench as kgb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Head:
    """A Ray head on 127.0.0.1 (``ray start --head --block`` in its own session, so that stopping it ends its
    whole process group and nothing else)."""

    def __init__(self, tmp: Path) -> None:
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        ray_cli = Path(sys.executable).parent / "ray"
        if not ray_cli.exists():
            pytest.skip(f"the ray command is not next to {sys.executable}")
        self.log = open(tmp / f"head-{self.port}.log", "w")
        self.tmp = tmp
        self.ray_dir = Path(tempfile.mkdtemp(prefix="kgbray-", dir="/tmp"))  # Unix socket paths: at most 107 bytes
        # a test cluster on this machine only: Ray's token authentication (on by default for `ray start`) is off
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAY_")}, "RAY_AUTH_MODE": "disabled"}
        self.proc = subprocess.Popen(
            [str(ray_cli), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={self.port}",
             "--num-cpus=2", "--num-gpus=0", "--include-dashboard=false", "--disable-usage-stats",
             "--object-store-memory=100000000", f"--temp-dir={self.ray_dir}"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ray start exited with {self.proc.returncode}: "
                                   f"{(tmp / f'head-{self.port}.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            self.stop()
            raise RuntimeError("the Ray head did not listen within 90 s")

    def stop(self) -> None:
        """Kill the head's process group (the GCS, the raylet, the agents: a graceful `ray stop` drains for ~30 s);
        the workers, in their own groups, exit when their raylet is gone: wait for them."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        deadline = time.time() + 30
        marker = str(self.ray_dir).encode()
        while time.time() < deadline and _processes_naming(marker):
            time.sleep(0.5)
        self.log.close()
        shutil.rmtree(self.ray_dir, ignore_errors=True)


def _processes_naming(marker: bytes) -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                    out.append(int(pid))
            except OSError:
                pass
    return out


@pytest.fixture(scope="module")
def head(tmp_path_factory):
    """One head for the tests that do not restart it."""
    h = Head(tmp_path_factory.mktemp("rayhead"))
    try:
        yield h
    finally:
        if ray.is_initialized():
            ray.shutdown()
        h.stop()


def _subs(tmp: Path) -> Path:
    d = tmp / "subs"
    d.mkdir()
    for name in ("aten__neg.py", "aten__cos.py"):
        shutil.copy(ROOT / "solutions" / name, d / name)
    shutil.copy(ROOT / "tests" / "bad" / "wrong_values__vllm__rms_norm.py", d / "vllm__rms_norm.py")
    return d


def _verdicts(run) -> dict[str, tuple]:
    return {r["op"]: (r["status"], r["failure_class"], r["cases_total"], r["cases_passed"], r["cases_unsupported"],
                      tuple((c["id"], c["status"], c.get("failure_class")) for c in r["cases"]))
            for r in run.latest}


def test_ray_gives_the_local_verdicts_and_resumes_across_a_cluster_restart(tmp_path: Path) -> None:
    subs = _subs(tmp_path)
    (tmp_path / "first").mkdir()
    head = Head(tmp_path / "first")
    local = kgb.evaluate(subs, tier="smoke", platform="interpreter", out=tmp_path / "local", jobs=2)
    v_local = _verdicts(local)
    assert v_local["aten::neg"][:2] == ("passed", None) and v_local["aten::cos"][:2] == ("passed", None)
    assert v_local["vllm::rms_norm"][:2] == ("failed", "wrong_result")
    # the Ray run: one job first, then the cluster goes down and comes back, and the same call resumes
    out = tmp_path / "ray"
    try:
        first = kgb.evaluate(subs, ops=["aten::neg"], tier="smoke", platform="interpreter", out=tmp_path / "ray-one",
                             backend="ray", address=head.address)
    finally:
        head.stop()
    assert [r["op"] for r in first.written] == ["aten::neg"]
    shutil.copytree(tmp_path / "ray-one", out)  # the same run directory, its config widened to the whole set
    cfg = json.loads((out / "config.json").read_text())
    cfg.update(ops=None, selected=sorted(v_local))
    (out / "config.json").write_text(json.dumps(cfg))
    (tmp_path / "again").mkdir()
    again = Head(tmp_path / "again")
    try:
        resumed = kgb.evaluate(subs, tier="smoke", platform="interpreter", out=out, backend="ray",
                               address=again.address)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        again.stop()
    assert sorted(r["op"] for r in resumed.written) == ["aten::cos", "vllm::rms_norm"]  # neg was recorded before
    assert _verdicts(resumed) == v_local  # the same verdicts, case by case
    env = json.loads((out / "env.json").read_text())
    assert env["backend"]["backend"] == "ray" and env["backend"]["address"] == again.address
    assert env["backend"]["slots"] == 2
    for r in resumed.written:  # records stream back into the one run directory, logs where the local run has them
        assert r["attempt"] == 1
        assert Path(r["log"]).parent == out / "jobs" / f"subs-{r['op'].replace('::', '__')}"
        assert Path(r["log"]).is_file()
    bad = next(r for r in resumed.latest if r["op"] == "vllm::rms_norm")
    assert "outside tolerance" in bad["first_failure"]["message"]


def _ray_worker_of_sandbox(marker: str, timeout: float) -> tuple[int, int] | None:
    """(sandbox child pid, the pid of the job's process that started it) of the sandbox child whose command
    line names ``marker``, or, forked by a fork server (sandbox/forkserver.py: its command line is the
    server's), whose working directory is under ``marker``'s parent; the job's process is then the server's
    parent."""
    def cmdline(pid: int | str) -> str:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")

    def parent(pid: int | str) -> int:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])

    deadline = time.time() + timeout
    while time.time() < deadline:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmd = cmdline(pid)
                if "kernelgenbench.sandbox.child" in cmd and marker in cmd:
                    return int(pid), parent(pid)
                if "kernelgenbench.sandbox.forkserver" in cmd and "kernelgenbench.sandbox.forkserver" in \
                        cmdline(parent(pid)) and os.readlink(f"/proc/{pid}/cwd").startswith(str(Path(marker).parent)):
                    return int(pid), parent(parent(pid))
            except (OSError, ValueError, IndexError):
                continue
        time.sleep(0.05)
    return None


def test_a_worker_killed_mid_job_is_retried_as_infrastructure(tmp_path: Path, head: Head) -> None:
    subs = tmp_path / "killsubs"
    subs.mkdir()
    shutil.copy(ROOT / "solutions" / "aten__neg.py", subs / "aten__neg.py")
    killed: list[tuple[int, int]] = []

    def kill_worker() -> None:
        found = _ray_worker_of_sandbox(str(subs), timeout=120)
        if found is None:
            return
        child, worker = found
        cmd = Path(f"/proc/{worker}/cmdline").read_bytes()
        assert b"ray" in cmd, cmd  # the sandbox's parent is the Ray worker running the job
        os.kill(worker, signal.SIGKILL)  # the worker is lost mid-job
        killed.append((child, worker))
        try:
            os.killpg(child, signal.SIGKILL)  # its orphaned sandbox (own session) would finish its case alone
        except ProcessLookupError:
            pass

    t = threading.Thread(target=kill_worker, daemon=True)
    t.start()
    run = kgb.evaluate(subs, tier="smoke", platform="interpreter", out=tmp_path / "run", backend="ray",
                       address=head.address)
    t.join(5)
    assert killed, "no sandbox child of the job was seen"
    (rec,) = run.written
    assert rec["status"] == "passed" and rec["failure_class"] is None  # never charged to the submission
    assert rec["attempt"] == 2
    (line,) = [json.loads(x) for x in (tmp_path / "run" / "infrastructure.jsonl").read_text().splitlines()]
    assert line["op"] == "aten::neg" and line["attempt"] == 1 and line["retried"] is True
    assert "Error" in line["error"]


def test_usage_errors_of_the_backend_option(tmp_path: Path) -> None:
    subs = tmp_path / "s"
    subs.mkdir()
    shutil.copy(ROOT / "solutions" / "aten__neg.py", subs / "aten__neg.py")
    with pytest.raises(kgb.EvaluationError, match="unknown backend 'slurm'; known: local, ray"):
        kgb.evaluate(subs, platform="interpreter", backend="slurm", out=tmp_path / "r")
    with pytest.raises(kgb.EvaluationError, match="use it with backend 'ray'"):
        kgb.evaluate(subs, platform="interpreter", address="127.0.0.1:1", out=tmp_path / "r")


def test_joining_a_token_cluster_without_the_auth_mode_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh user 39: `ray start --head` (token authentication on by default) then `kgb eval --backend ray --address
    HEAD` spent 20 s and failed with a bare "ConnectionError: Failed to connect to Ray cluster": the driver sends
    the token only under RAY_AUTH_MODE=token (~/.ray/auth_token alone is not enough). The error now says so."""
    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run import ray_backend as rb

    class Unreachable:  # what ray.init does against a token cluster without RAY_AUTH_MODE=token, minus its 20 s
        def is_initialized(self) -> bool:
            return False

        def init(self, address: str | None = None, **kw: object) -> None:
            raise ConnectionError(f"Failed to connect to Ray cluster at {address}")

    monkeypatch.setattr(rb, "import_ray", lambda: Unreachable())
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with pytest.raises(RuntimeError) as info:
        rb.RayBackend(PROFILES["interpreter"], rb.RayOptions(address="127.0.0.1:1")).start()
    msg = str(info.value)
    assert msg.startswith("cannot start or join the Ray cluster at 127.0.0.1:1: ConnectionError: Failed to connect")
    assert "run with RAY_AUTH_MODE=token and the cluster's token: ~/.ray/auth_token" in msg
    monkeypatch.setenv("RAY_AUTH_MODE", "token")  # set already: the failure is something else, no hint
    with pytest.raises(RuntimeError) as info:
        rb.RayBackend(PROFILES["interpreter"], rb.RayOptions(address="127.0.0.1:1")).start()
    assert "RAY_AUTH_MODE" not in str(info.value)


def test_eval_on_ray_says_so_in_its_first_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh user 39: `kgb eval --backend ray` printed "2 slots" as the local scheduler does, and nothing said the
    jobs ran on Ray (kgb generate prints a "Ray: ... node(s)" line); the first line now says where they run."""
    from typer.testing import CliRunner

    from kernelgenbench.cli import app
    from kernelgenbench.run import ray_backend as rb

    class OneNode:  # a cluster of one node and two slots that judges nothing (only the first line is asked for)
        ceilings: dict = {}

        def __init__(self, platform: object, options: rb.RayOptions) -> None:
            self.options = options

        def start(self) -> dict:
            return {"backend": "ray", "address": self.options.address, "ray": "x", "nodes": 1, "resources": {},
                    "slots": 2}

        def run_jobs(self, specs: list, rundir: object, settings: object, **kw: object) -> list:
            return []

        def close(self) -> None:
            pass

    monkeypatch.setattr(rb, "RayBackend", OneNode)
    subs = tmp_path / "s"
    subs.mkdir()
    shutil.copy(ROOT / "solutions" / "aten__neg.py", subs / "aten__neg.py")
    for extra, where in (([], "Ray: 1 node, a local instance for this run"), (["--address", "10.0.0.1:6379"],
                                                                              "Ray: 1 node, at 10.0.0.1:6379")):
        res = CliRunner().invoke(app, ["eval", str(subs), "--platform", "interpreter", "--backend", "ray",
                                       "--out", str(tmp_path / f"r{len(extra)}"), *extra], env={"COLUMNS": "300"})
        assert f"· 2 slots ({where}) · run" in " ".join(res.output.split()), res.output


def test_the_judging_path_does_not_import_ray() -> None:
    code = ("import sys, kernelgenbench.cli, kernelgenbench.run.job, kernelgenbench.run.scheduler, "
            "kernelgenbench.run.evaluate, kernelgenbench.sandbox.child, kernelgenbench.sandbox.runner, "
            "kernelgenbench.verify.session; print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")}).stdout
    assert out.strip() == "False"
    pkg = ROOT / "src" / "kernelgenbench"
    for sub in ("verify", "sandbox", "suite"):
        for f in (pkg / sub).rglob("*.py"):
            assert "import ray" not in f.read_text(), f


def test_generate_judges_samples_on_ray(tmp_path: Path, head: Head, monkeypatch: pytest.MonkeyPatch) -> None:
    """kgb generate --backend ray: a wrong sample then its reflection-fixed round, each judged by a Ray task, the
    records in the run directory as with local slots."""
    sys.path.insert(0, str(ROOT / "tests"))
    from llm_server import ScriptedServer

    from kernelgenbench.llm.clients import make_client
    from kernelgenbench.llm.generate import GenerateConfig, Generation, open_run
    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run.ray_backend import RayBackend, RayOptions
    from kernelgenbench.suite.registry import select

    monkeypatch.setenv("OPENAI_API_KEY", "sk-kgb-ray-test")
    srv = ScriptedServer({"vllm::rms_norm": [[["wrong"], ["correct"]]]})
    port = srv.start()
    plat = PROFILES["interpreter"]
    backend = RayBackend(plat, RayOptions(address=head.address))
    try:
        backend.start()
        cfg = GenerateConfig(model="openai/scripted-model", base_url=f"http://127.0.0.1:{port}/v1",
                             ops=["vllm::rms_norm"], tier="smoke", k=1, rounds=2, reflection=True, max_tokens=2048)
        client = make_client(str(cfg.model), cfg.base_url, backoff_s=0.01, max_retries=3, concurrency=1, timeout_s=60)
        rd = open_run(cfg, plat, tmp_path / "gen", Path("unused"), None)
        summary = Generation(cfg, rd, plat, client, ray=backend).run(select(cfg.ops, None))
    finally:
        backend.close()
        srv.stop()
    recs = [json.loads(x) for x in (tmp_path / "gen" / "results.jsonl").read_text().splitlines()]
    assert [(r["status"], r["failure_class"], r["attempt"]) for r in recs] == [("failed", "wrong_result", 1),
                                                                               ("passed", None, 1)]
    assert all(Path(r["log"]).is_file() and str(tmp_path / "gen") in r["log"] for r in recs)
    assert summary["operators"]["vllm::rms_norm"]["solved_by"] == "s0r1"  # sample 0, round 1 (the second)


def test_a_job_off_the_drivers_node_ships_its_log_and_names_the_drivers_paths(tmp_path: Path) -> None:
    """execute() as a worker on another node runs it: the submission from the payload's bytes in a private
    directory, the log sent back, every path in the record the driver's (here called in-process: no node id)."""
    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run.job import JobSpec, Settings
    from kernelgenbench.run.ray_backend import execute, make_payload
    from kernelgenbench.run.rundir import RunDir
    from kernelgenbench.suite.registry import get_operator

    sub = tmp_path / "subs" / "aten__neg.py"
    sub.parent.mkdir()
    sub.write_text("import torch\nimport triton\n\nraise ValueError('boom at import')\n")
    rd = RunDir.open(tmp_path / "run")
    spec = JobSpec(get_operator("aten::neg"), sub, "smoke", "subs")
    payload = make_payload(spec, PROFILES["interpreter"], rd, Settings(), "the-driver-node", False)
    sub_text = sub.read_bytes()
    out = execute(payload)
    rec = out["record"]
    assert rec["failure_class"] == "import_error" and "boom at import" in rec["first_failure"]["message"]
    assert rec["submission"] == str(sub) and rec["log"] == str(rd.job_dir("aten::neg", "subs") / "child.log")
    assert f'File "{sub}", line 4' in rec["first_failure"]["message"]  # the traceback names the driver's file
    assert "kgb-ray-" not in json.dumps(rec)  # no path of the worker's private directory is left
    assert not ray.is_initialized()  # a direct call starts no Ray instance
    assert b"boom at import" in out["log"]
    assert not (tmp_path / "run" / "jobs").exists()  # the worker never wrote into the driver's run directory
    assert sub.read_bytes() == sub_text and out["gpu"] is None and out["ceilings"] is None


def test_ray_judges_case_shards_and_merges_them(tmp_path: Path, head: Head) -> None:
    """--shard-cases on Ray (run/shards.py): each shard a task carrying its shard, its record in shards.jsonl and its
    log in its own folder; one merged record with the unsharded verdict."""
    from kernelgenbench.run.job import Settings

    subs = _subs(tmp_path)
    whole = kgb.evaluate(subs, ops=["aten::cos"], tier="smoke", platform="interpreter", out=tmp_path / "whole")
    run = kgb.evaluate(subs, ops=["aten::cos"], tier="smoke", platform="interpreter", out=tmp_path / "ray",
                       backend="ray", address=head.address, settings=Settings(shard_cases=2))
    (a,), (b,) = whole.records, run.records
    assert (b["status"], b["cases_total"], b["cases_passed"]) == (a["status"], a["cases_total"], a["cases_passed"])
    assert [c["id"] for c in b["cases"]] == [c["id"] for c in a["cases"]]
    n = -(-a["cases_total"] // 2)
    assert b["shards"] == n and run.written == [b]
    shards = [json.loads(x) for x in (tmp_path / "ray" / "shards.jsonl").read_text().splitlines()]
    assert sorted(s["shard"] for s in shards) == [[i, n] for i in range(n)]
    for s in shards:  # each shard judged its own cases, cases[i::n], and logged in its own folder
        i = s["shard"][0]
        assert [c["id"] for c in s["cases"]] == [c["id"] for c in a["cases"]][i::n]
        assert Path(s["log"]).parent.name == f"shard-{i + 1}-of-{n}" and Path(s["log"]).is_file()
