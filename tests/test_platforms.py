"""Platform profiles (issue 20): every profile as data with its sources, detection from what PyTorch reports
(ROCm through ``torch.version.hip``, the real code path where ``torch.cuda`` is HIP), the interpreter under each
vendor profile (``--as-profile``: pinning variable, dtype limits, tolerance scale, tier selection, prompt,
records), portable verdicts (a platform's compiler crash is class ``platform``; CUDA and the interpreter keep
their classes) and the multi-chip view of ``kgb report``."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from kernelgenbench import platforms
from kernelgenbench.llm.prompt import build_prompt
from kernelgenbench.platforms import DETECTION_ORDER, PROFILES, detect, detect_from, emulate
from kernelgenbench.report.load import load_run
from kernelgenbench.report.model import build_report
from kernelgenbench.run.evaluate import EvaluationError, evaluate
from kernelgenbench.sandbox.runner import child_env
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.failures import classify_error

ROOT = Path(__file__).resolve().parents[1]
VENDORS = [n for n in PROFILES if n != "interpreter"]
CHEAP = "aten::zeros"  # 6 smoke cases: fp32, fp16, int16, bool, bf16, fp64


def _facts(name: str) -> dict:
    """What the process would see on ``name``'s hardware (the inputs of detect_from)."""
    det = PROFILES[name].detection
    return {"hip": "6.2.41133" if det.hip else None, "available": {det.torch_attr: True},
            "markers": list(det.markers[:1])}


# -- profiles as data ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(PROFILES))
def test_every_profile_states_its_facts_and_sources(name: str) -> None:
    p = PROFILES[name]
    assert p.name == name and p.title and p.device
    assert p.sources or p.guesses, f"{name}: no source and no guess named"
    if name == "interpreter":
        assert (p.dispatch_key, p.visible_devices_var, p.timing, p.profiler) == (None, None, False, False)
        return
    assert p.dispatch_key in ("CUDA", "PrivateUse1") and p.visible_devices_var.endswith("VISIBLE_DEVICES")
    assert p.timing_api and p.detection is not None
    assert (p.tolerance_scale == 1.0) == (p.tolerance_reason is None)
    for pattern, why in p.failure_patterns:
        assert why and __import__("re").compile(pattern)
    if name != "cuda":  # every vendor profile says what is not verified on its hardware
        assert p.guesses and p.prompt_notes
        # the paper's three kinds of platform constraint, each stated in the prompt section
        notes = " ".join(p.prompt_notes).lower()
        assert "type inference" in notes and "math functions" in notes and "language" in notes, name


def test_documented_vendor_facts() -> None:
    """Facts the vendors' public documents state (platforms.py sources)."""
    assert (PROFILES["ascend"].device, PROFILES["ascend"].visible_devices_var) == ("npu", "ASCEND_RT_VISIBLE_DEVICES")
    assert PROFILES["ascend"].timing_api == "torch.npu.Event(enable_timing=True)"
    assert {"float64", "uint32"} <= set(PROFILES["ascend"].unsupported_dtypes)
    assert (PROFILES["rocm"].device, PROFILES["rocm"].visible_devices_var) == ("cuda", "HIP_VISIBLE_DEVICES")
    assert (PROFILES["musa"].device, PROFILES["musa"].dispatch_key) == ("musa", "PrivateUse1")
    assert PROFILES["metax"].visible_devices_var == "MACA_VISIBLE_DEVICES"
    # FlagGems' device detector: no fp64 on Iluvatar, Moore Threads, Ascend (MetaX and Hygon have it)
    assert [n for n in VENDORS if "float64" in PROFILES[n].unsupported_dtypes] == ["ascend", "musa", "iluvatar"]
    for n in ("ascend", "musa", "iluvatar", "metax", "dcu"):
        assert any("github.com/FlagOpen/FlagGems/blob/" in src for src in PROFILES[n].sources), n
    # the L3 kernel list only where a profiler is wired; the dispatch trace and launch accounting everywhere
    assert "kernel list" in PROFILES["cuda"].anti_hack_tiers()["L3"]
    for name in PROFILES:
        tiers = PROFILES[name].anti_hack_tiers()
        assert set(tiers) == {"L1", "L2", "L3"} and "dispatch trace, launch accounting" in tiers["L3"]
        assert ("no kernel list" in tiers["L3"]) == (not PROFILES[name].profiler)


# -- detection ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DETECTION_ORDER)
def test_detect_from_what_pytorch_reports(name: str) -> None:
    assert detect_from(_facts(name)).name == name


def test_detection_needs_the_device_and_the_right_build() -> None:
    assert detect_from({"hip": None, "available": {"cuda": False}, "markers": []}).name == "interpreter"
    assert detect_from({"hip": None, "available": {}, "markers": ["/opt/maca"]}).name == "interpreter"
    # a HIP build never passes for NVIDIA, nor a CUDA build for AMD; a marker of a CUDA-compatible stack
    # does not turn a HIP build into it
    assert detect_from({"hip": "6.2", "available": {"cuda": True}, "markers": ["MACA_PATH"]}).name == "rocm"
    assert detect_from({"hip": None, "available": {"cuda": True}, "markers": ["/opt/dtk"]}).name == "cuda"
    # a vendor extension wins over torch.cuda (a machine with both)
    assert detect_from({"hip": None, "available": {"cuda": True, "npu": True}, "markers": []}).name == "ascend"


def _cuda_facts(**kw) -> dict:
    """An NVIDIA machine's facts (a CUDA build, torch.cuda answering, an H200), with ``kw`` changed."""
    return {"hip": None, "available": {"cuda": True}, "markers": [], "flags": [], "version": "2.9.0+cu128",
            "device_name": "NVIDIA H200", **kw}


def test_vendor_stacks_behind_torch_cuda_are_told_apart_by_their_evidence() -> None:
    """The CUDA-compatible stacks (Iluvatar, MetaX) and Hygon's HIP stack answer through torch.cuda: each is
    recognised by any one of its toolkit, its PyTorch build's version tag, a torch flag, or its device name;
    an NVIDIA (or AMD) machine shows none of them and stays cuda (or rocm)."""
    assert detect_from(_cuda_facts()).name == "cuda"
    assert detect_from(_cuda_facts(version="2.9.0")).name == "cuda"  # PyPI's wheel carries no local tag
    for kw in ({"flags": ["corex"]}, {"version": "2.7.1+corex.4.4.0"}, {"device_name": "Iluvatar BI-V150"},
               {"markers": ["/usr/local/corex"]}):
        assert detect_from(_cuda_facts(**kw)).name == "iluvatar", kw
    for kw in ({"version": "2.8.0+metax3.3.0.2"}, {"device_name": "MetaX C500"}, {"markers": ["MACA_PATH"]}):
        assert detect_from(_cuda_facts(**kw)).name == "metax", kw
    hip = {"hip": "6.2.41133", "version": "2.5.1+rocm6.2", "device_name": "AMD Instinct MI300X"}
    assert detect_from(_cuda_facts(**hip)).name == "rocm"
    for kw in ({"device_name": "K100_AI"}, {"version": "2.1.0+das.opt1.dtk24.04"}, {"markers": ["/opt/dtk"]}):
        assert detect_from(_cuda_facts(**{**hip, **kw})).name == "dcu", kw
    # a vendor's device name on the other build family is not that vendor
    assert detect_from(_cuda_facts(device_name="K100_AI")).name == "cuda"
    assert detect_from(_cuda_facts(**{**hip, "device_name": "Iluvatar BI-V150"})).name == "rocm"
    # the 'cu128' of an NVIDIA wheel is no vendor tag, the version's public part never counts
    assert platforms.evidence_for("iluvatar", _cuda_facts(version="2.7.1+cu128")) == []
    assert platforms.evidence_for("iluvatar", _cuda_facts(flags=["corex"], version="2.7.1+corex.4.4.0",
                                                          device_name="Iluvatar BI-V150")) == \
        ["torch version tag 'corex.4.4.0'", "torch.corex", "device name 'Iluvatar BI-V150'"]


def test_iluvatar_detected_through_the_real_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """probe() reads the version tag, the torch.corex flag and the device name from PyTorch itself."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    for var in ("DTK_HOME", "COREX_HOME", "MACA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(platforms.os.path, "exists", lambda p: False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "NVIDIA H200")
    assert detect().name == "cuda"
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "Iluvatar BI-V150")
    facts = platforms.probe()
    assert (facts["device_name"], facts["flags"]) == ("Iluvatar BI-V150", [])
    assert detect().name == "iluvatar"
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "NVIDIA H200")
    monkeypatch.setattr(torch, "corex", True, raising=False)
    assert platforms.probe()["flags"] == ["corex"] and detect().name == "iluvatar"
    monkeypatch.setattr(torch, "corex", False, raising=False)
    monkeypatch.setattr(torch, "__version__", "2.8.0+metax3.3.0.2")
    assert detect().name == "metax"


def test_rocm_detected_where_torch_cuda_is_hip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real code path of a ROCm build: torch.cuda answers, torch.version.hip is set."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    for var in ("DTK_HOME", "COREX_HOME", "MACA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(platforms.os.path, "exists", lambda p: False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.version, "hip", "6.2.41133", raising=False)
    facts = platforms.probe()
    assert facts["hip"] == "6.2.41133" and facts["available"]["cuda"] is True
    plat = detect()
    assert (plat.name, plat.device, plat.dispatch_key) == ("rocm", "cuda", "CUDA")
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    assert detect().name == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert detect().name == "interpreter"


def test_override_and_as_profile_errors() -> None:
    assert detect("musa").name == "musa"
    assert detect("interpreter", "rocm").key == "interpreter/rocm"
    assert detect(None, "ascend").profile == "ascend"
    with pytest.raises(ValueError, match="unknown platform 'tpu'"):
        detect("tpu")
    with pytest.raises(ValueError, match="unknown profile 'tpu' for --as-profile"):
        detect("interpreter", "tpu")
    with pytest.raises(ValueError, match="with --platform interpreter"):
        detect("cuda", "rocm")


# -- the interpreter under a vendor profile -----------------------------------------------------------------
@pytest.mark.parametrize("vendor", VENDORS)
def test_emulated_profile_pins_limits_and_prompts(vendor: str, tmp_path: Path) -> None:
    v, e = PROFILES[vendor], emulate(vendor)
    assert (e.name, e.device, e.interpreter, e.dispatch_key, e.profiler, e.timing) == \
        ("interpreter", "cpu", True, None, False, False)
    assert e.tolerance_scale == v.tolerance_scale and e.failure_patterns == v.failure_patterns
    assert set(e.unsupported_dtypes) == set(v.unsupported_dtypes) | set(PROFILES["interpreter"].unsupported_dtypes)
    env = child_env(e, None, tmp_path)
    assert env[v.visible_devices_var] == "0" and env["TRITON_INTERPRET"] == "1"
    info = e.record_info()
    assert (info["profile"], info["emulated_on"], info["visible_devices_var"]) == \
        (vendor, "interpreter", v.visible_devices_var)
    prompt = build_prompt(get_operator("aten::add"), e).user
    assert f"under the {v.title} profile" in prompt
    # where the file is registered later: the vendor's key and device, not NVIDIA's
    assert f'fn, "{v.dispatch_key}")` (tensors on device type `{v.device}`)' in prompt
    for note in v.prompt_notes:
        assert note in prompt
    assert all(note in build_prompt(get_operator("aten::add"), v).user for note in v.prompt_notes)


def test_cuda_and_interpreter_records_and_envs_are_unchanged(tmp_path: Path) -> None:
    assert PROFILES["cuda"].record_info() is None and PROFILES["interpreter"].record_info() is None
    env = child_env(PROFILES["interpreter"], None, tmp_path)
    assert not any(k.endswith("VISIBLE_DEVICES") and k not in __import__("os").environ for k in env)
    assert child_env(PROFILES["cuda"], 1, tmp_path)["CUDA_VISIBLE_DEVICES"] == "1"


# -- portable verdicts --------------------------------------------------------------------------------------
TRITON_COMPILER = "/venv/lib/python3.11/site-packages/triton/compiler/compiler.py"


def _err(chain, message, origin=TRITON_COMPILER, tb=""):
    return {"type": chain[0], "chain": chain, "origins": ["/sub/aten__x.py"] * (len(chain) - 1) + [origin],
            "message": message, "traceback": tb}


def test_a_submission_cannot_raise_its_way_into_platform() -> None:
    """Failure patterns match text the submission may write: they count only for an exception raised in
    Triton or a vendor extension (or, for a missing device op, by PyTorch's dispatcher), never for one the
    submission raises, or launders through ``torch._check``."""
    own = _err(["RuntimeError"], "LLVM ERROR: Cannot select: intrinsic", origin="/sub/aten__x.py")
    laundered = _err(["RuntimeError"], "LLVM ERROR: Cannot select: intrinsic",
                     origin="/venv/lib/python3.11/site-packages/torch/__init__.py")
    raised_op = _err(["NotImplementedError"], "Could not run 'aten::add.out' with arguments from the 'PrivateUse1' "
                     "backend", origin="/sub/aten__x.py",
                     tb='  File "/sub/aten__x.py", line 3, in add\n    raise NotImplementedError("Could not run")\n')
    for name in ("rocm", "ascend", "musa"):
        for err in (own, laundered, raised_op):
            assert classify_error(err, PROFILES[name]) in ("runtime_error", "compile_error"), (name, err)
    dispatched = _err(["NotImplementedError"], "Could not run 'aten::add.out' with arguments from the "
                      "'PrivateUse1' backend", origin="/sub/aten__x.py",
                      tb='  File "/sub/aten__x.py", line 3, in add\n    return torch.add(a, b, out=out)\n')
    assert classify_error(dispatched, PROFILES["musa"]) == "platform"


def test_a_platform_compiler_crash_is_the_platforms() -> None:
    crash = _err(["CompilationError"], "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.foo")
    missing_op = _err(["NotImplementedError"], "Could not run 'aten::add.out' with arguments from the "
                                               "'PrivateUse1' backend", origin="/sub/aten__x.py",
                      tb='  File "/sub/aten__x.py", line 3, in add\n    return torch.empty_like(a)\n')
    own = _err(["CompilationError"], "at 3:4: unsupported tensor index")  # Triton's, but no pattern matches
    for name in ("cuda", "interpreter"):  # unchanged: no failure patterns
        assert classify_error(crash, PROFILES[name]) == "compile_error"
        assert classify_error(missing_op, PROFILES[name]) == "runtime_error"
    for name in ("rocm", "ascend", "musa", "dcu", "iluvatar", "metax"):
        assert classify_error(crash, PROFILES[name]) == "platform"
        assert classify_error(crash, emulate(name)) == "platform"
        assert classify_error(own, PROFILES[name]) == "compile_error"  # a kernel's own error stays its own
    assert classify_error(missing_op, PROFILES["musa"]) == "platform"
    assert classify_error(missing_op, PROFILES["rocm"]) == "runtime_error"  # ROCm registers under CUDA
    assert PROFILES["ascend"].platform_failure(_err(["RuntimeError"], "bishengir-compile failed")) is not None
    mma = _err(["CompilationError"], "shape_judge && \"tn and tk not meet conditon\"")  # MetaX's Triton only
    assert classify_error(mma, PROFILES["metax"]) == "platform"
    assert classify_error(mma, PROFILES["iluvatar"]) == classify_error(mma, PROFILES["cuda"]) == "compile_error"


# -- end to end: every profile through the interpreter ------------------------------------------------------
def _eval(subs: Path, out: Path, vendor: str, ops: list[str]):
    return evaluate(subs, ops=ops, tier="smoke", platform="interpreter", as_profile=vendor, out=out, jobs=1)


@pytest.mark.parametrize("vendor", VENDORS)
def test_eval_under_each_profile(vendor: str, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(ROOT / "solutions" / "aten__zeros.py", subs)
    run = _eval(subs, tmp_path / "run", vendor, [CHEAP])
    (rec,) = run.records
    v = PROFILES[vendor]
    assert (rec["platform"], rec["profile"], rec["status"]) == ("interpreter", vendor, "passed")
    assert rec["platform_profile"]["visible_devices_var"] == v.visible_devices_var
    assert rec["platform_profile"]["anti_hack"] == emulate(vendor).anti_hack_tiers()
    fp64 = next(c for c in rec["cases"] if c["params"].get("dtype") == "fp64")
    assert fp64["status"] == ("unsupported" if "float64" in v.unsupported_dtypes else "passed")
    judged = [c for c in rec["cases"] if c["status"] == "passed"]
    assert judged and all(c.get("tolerance_scale") == (v.tolerance_scale if v.tolerance_scale != 1.0 else None)
                          for c in judged)
    # exactly the cases of a dtype the profile cannot run (the interpreter itself now judges every dtype)
    op = get_operator(rec["op"])
    cannot = sum(1 for c in op.cases("smoke") if emulate(vendor).unsupported_reason(op.tensor_dtypes(c.params)))
    assert rec["cases_unsupported"] == sum(1 for c in rec["cases"] if c["status"] == "unsupported") == cannot
    assert cannot == (1 if "float64" in v.unsupported_dtypes else 0)
    assert run.config["profile"] == vendor and run.summary["profile"] == vendor
    env = json.loads((run.path / "env.json").read_text())
    assert env["fork_server"] is True  # how the run's sandboxes started (the default, on every platform)
    check = env["profile_check"]
    assert check["detected"] == "interpreter" and check["matches_profile"] is False  # no vendor GPU here
    assert check["evidence"] == [] and check["probe"]["version"] == torch.__version__
    # the same directory under another profile is another configuration
    with pytest.raises(EvaluationError, match="another configuration"):
        _eval(subs, tmp_path / "run", "cuda" if vendor != "cuda" else "rocm", [CHEAP])


_CRASH = '''

def _write(out, v):  # noqa: F811 - the test fixture: the platform's compiler aborts on this kernel
    raise RuntimeError("LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fake (a backend crash)")
'''


def test_report_prints_the_multi_chip_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two interpreter runs of one system under two profiles: a backend crash is the model's failure under the
    CUDA profile (no failure patterns) and the platform's under ROCm's; kgb report prints the platforms table.
    The crash is raised by the test's submission standing in for a backend compiler frame (its folder counts
    as a library here: the verifier classifies in this process)."""
    import kernelgenbench.platforms as platforms_mod

    monkeypatch.setattr(platforms_mod, "_LIBRARY_DIRS", platforms_mod._LIBRARY_DIRS + (f"{tmp_path}/subs/",))
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(ROOT / "solutions" / "aten__neg.py", subs)
    (subs / "aten__zeros.py").write_text((ROOT / "solutions" / "aten__zeros.py").read_text() + _CRASH)
    ops = ["aten::neg", CHEAP]
    a = _eval(subs, tmp_path / "cuda", "cuda", ops)
    b = _eval(subs, tmp_path / "rocm", "rocm", ops)
    cls = {r["op"]: r.get("failure_class") for r in a.records}, {r["op"]: r.get("failure_class") for r in b.records}
    assert cls == ({"aten::neg": None, CHEAP: "runtime_error"}, {"aten::neg": None, CHEAP: "platform"})
    crash = next(r for r in b.records if r["op"] == CHEAP)
    assert "smoke/0 (shape=[17, 33], dtype=None): platform (rocm): the platform's compiler crashed" in \
        crash["first_failure"]["message"]
    runs = [load_run(a.path, "sys"), load_run(b.path, "sys")]
    assert [r.platform for r in runs] == ["interpreter/cuda", "interpreter/rocm"]
    rep = build_report(runs, bootstrap=0)
    rows = rep.table("platforms").rows
    assert [(r["platform"], r["common"], r["accuracy"], r["model_failures"], r["platform_failures"]) for r in rows] == \
        [("interpreter/cuda", 2, 0.5, 1, 0), ("interpreter/rocm", 2, 0.5, 0, 1)]
    assert rows[0]["accuracy_ratio"] == 1.0 and rows[1]["accuracy_ratio"] == 1.0
    assert rows[1]["wall_per_solved_ratio"] == pytest.approx(rows[1]["wall_per_solved"] / rows[0]["wall_per_solved"])
    assert rows[0]["geomean"] is None  # the interpreter times nothing
    (port,) = rep.table("portable").rows  # neg solved on both, zeros on neither
    assert (port["system"], port["platforms"], port["operators"], port["portable"], port["unsolved"],
            port["not_portable"], port["platform_limited"], port["portable_rate"]) == \
        ("sys", "interpreter/cuda · interpreter/rocm", 2, 1, 1, 0, 0, 0.5)
    pair = rep.table("portability").rows[0]
    assert (pair["platform_a"], pair["platform_b"], pair["common"]) == ("interpreter/cuda", "interpreter/rocm", 2)
    from typer.testing import CliRunner

    from kernelgenbench.cli import app

    res = CliRunner().invoke(app, ["report", str(a.path), str(b.path), "--label", "sys", "--label", "sys",
                                   "--md", "-"])
    assert res.exit_code == 0, res.output
    assert "Multi-chip view: one system per platform" in res.output and "interpreter/rocm" in res.output
    assert "Portable verdicts: one system's operators across its platforms" in res.output


def test_kgb_platforms_lists_profiles_with_sources_and_guesses() -> None:
    from typer.testing import CliRunner

    from kernelgenbench.cli import app

    res = CliRunner().invoke(app, ["platforms", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert list(data) == list(PROFILES) and data["ascend"]["visible_devices_var"] == "ASCEND_RT_VISIBLE_DEVICES"
    res = CliRunner().invoke(app, ["platforms", "metax"])
    assert res.exit_code == 0 and "documented MACA_VISIBLE_DEVICES" in res.output and "guess" in res.output
    res = CliRunner().invoke(app, ["platforms", "tpu"])
    assert res.exit_code == 2 and "unknown platform profile 'tpu'" in res.output


def test_generate_under_a_profile_prompts_and_records_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kgb generate --platform interpreter --as-profile ascend: the model sees the Ascend platform section, the
    run's identity and records carry the profile (a run under another profile is another run)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from llm_server import ScriptedServer

    from kernelgenbench.llm.clients import make_client
    from kernelgenbench.llm.generate import GenerateConfig, Generation, open_run
    from kernelgenbench.suite.registry import select

    monkeypatch.setenv("OPENAI_API_KEY", "sk-kgb-test-profile")
    srv = ScriptedServer({"vllm::rms_norm": [[["correct"]]]})
    port = srv.start()
    try:
        cfg = GenerateConfig(model="openai/scripted-model", base_url=f"http://127.0.0.1:{port}/v1",
                             ops=["vllm::rms_norm"], tier="smoke", k=1, rounds=1, max_tokens=2048)
        plat = emulate("ascend")
        rd = open_run(cfg, plat, tmp_path / "run", Path("unused"), None)
        client = make_client(str(cfg.model), cfg.base_url, backoff_s=0.01, max_retries=1, concurrency=1, timeout_s=60)
        summary = Generation(cfg, rd, plat, client).run(select(cfg.ops, None))
        (req,) = srv.requests_for("vllm::rms_norm")
    finally:
        srv.stop()
    sent = json.dumps(req["body"])
    assert "under the Huawei Ascend NPU (torch_npu) profile" in sent and "Triton-Ascend" in sent
    assert summary["profile"] == "ascend"
    assert json.loads((tmp_path / "run" / "config.json").read_text())["profile"] == "ascend"
    recs = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert recs and all(r["profile"] == "ascend" for r in recs)
    with pytest.raises(ValueError, match="profile"):
        open_run(cfg, emulate("rocm"), tmp_path / "run", Path("unused"), None)


# -- portable verdicts across platforms ---------------------------------------------------------------------
def _op(status: str, cls: str | None = None, op: str = "aten::x"):
    from kernelgenbench.report.load import OpResult

    return OpResult(op=op, source="aten", status=status, failure_class=cls)


def test_portable_verdict_reads_the_failure_side() -> None:
    from kernelgenbench.report.model import portable_verdict

    ok, wrong, crash = _op("passed"), _op("failed", "wrong_result"), _op("failed", "platform")
    assert portable_verdict([ok, ok, ok]) == "portable"
    assert portable_verdict([ok, crash]) == "platform_limited"  # the platform's compiler crashed
    assert portable_verdict([ok, _op("unsupported")]) == "platform_limited"  # its dtypes cannot be judged there
    assert portable_verdict([ok, None, _op("failed", "infrastructure")]) == "platform_limited"
    assert portable_verdict([ok, crash, wrong]) == "not_portable"  # the submission's own failure on one
    assert portable_verdict([wrong, crash]) == "unsolved"
    with pytest.raises(ValueError, match="no platform"):
        portable_verdict([])


def test_portable_table_counts_each_label_over_its_platforms(tmp_path: Path) -> None:
    """Three platforms of one label (four operators with every verdict) and a label on one platform only."""
    from kernelgenbench.report.load import Run
    from kernelgenbench.report.model import _portable_table

    def run(label: str, platform: str, verdicts: dict) -> Run:
        ops = {o: _op(*v, op=o) for o, v in verdicts.items()}
        return Run(tmp_path, label, "eval", platform, "smoke", ("smoke",), ops, [])

    runs = [run("m", "cuda", {"a": ("passed",), "b": ("passed",), "c": ("passed",), "d": ("failed", "timeout"),
                              "e": ("passed",)}),
            run("m", "rocm", {"a": ("passed",), "b": ("failed", "platform"), "c": ("failed", "wrong_result"),
                              "d": ("failed", "timeout")}),
            run("m", "ascend", {"a": ("passed",), "b": ("unsupported",), "c": ("passed",), "d": ("passed",)}),
            run("solo", "cuda", {"a": ("passed",)})]
    (row,) = _portable_table(runs).rows  # 'solo' is on one platform; 'e' is not in every run of 'm'
    assert (row["system"], row["platforms"], row["operators"]) == ("m", "cuda · rocm · ascend", 4)
    assert (row["portable"], row["platform_limited"], row["not_portable"], row["unsolved"]) == (1, 1, 2, 0)
    assert row["not_portable_ops"] == "c, d" and row["portable_rate"] == 0.25
    assert _portable_table(runs[3:]).rows == []
