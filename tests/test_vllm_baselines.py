"""The vLLM baselines, honestly labelled (issue 14 item 4): vllm._custom_ops when importable, else the native
reference under torch.compile (compiled before timing), eager where compilation fails; kgb eval --baseline
forces one. Everything here runs on the CPU: the picking, the labels, the fallback and the plumbing."""
from __future__ import annotations

import types

import pytest
import torch

from kernelgenbench.suite.baselines import BASELINE_KINDS, baseline_kind
from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm import common as vc


def _rms_call():
    op = get_operator("vllm::rms_norm")
    p = op.grid("smoke")[0]
    return op, op.build(p, torch.device("cpu"), generator(torch.device("cpu"), 7))


def _native(c):
    """A native of the baseline shape: writes out = 2 * x + 1."""
    c.args[0].copy_(c.args[1] * 2 + 1)


#: The same, where dynamo captures nothing (the whole reference would run eagerly under torch.compile).
_native_skipped = torch._dynamo.disable(_native)


def _call():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    return vc.Call([torch.full((2, 3), float("nan")), x], written=(0,))


def test_unforced_without_vllm_compiles_before_timing(monkeypatch) -> None:
    from torch._dynamo.utils import counters

    monkeypatch.setattr(vc, "vllm_ops", lambda: None)
    call = _call()
    before = counters["stats"]["unique_graphs"]  # dynamo's reset leaves its counters: earlier tests compiled too
    fn, label = vc.pick_baseline("anything", _native, call, backend="eager")
    assert baseline_kind(label) == "native-compiled" and "torch.compile" in label
    # compiled (one graph captured) when picked, on a clone: the warm-up set itself is untouched
    graphs = counters["stats"]["unique_graphs"]
    assert graphs == before + 1 and torch.isnan(call.args[0]).all()
    for _ in range(3):  # fresh inputs of the same case: no recompilation inside the timed loop
        c = call.clone()
        fn(c)
        assert torch.equal(c.args[0], torch.tensor([[1.0, 3, 5], [7, 9, 11]]))
    assert counters["stats"]["unique_graphs"] == graphs


def test_compile_failure_falls_back_to_eager_and_says_why(monkeypatch) -> None:
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)

    def broken(*a, **k):
        raise RuntimeError("no C++ compiler\nmore lines")
    monkeypatch.setattr(torch, "compile", broken)
    fn, label = vc.pick_baseline("anything", _native, _call())
    assert fn is _native
    assert baseline_kind(label) == "native-eager"
    assert "torch.compile failed (RuntimeError: no C++ compiler)" in label


def test_no_graph_is_not_called_compiled(monkeypatch) -> None:
    """A reference dynamo skips whole would run eagerly: it is labelled native-eager, not native-compiled."""
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)
    fn, label = vc.pick_baseline("anything", _native_skipped, _call(), backend="eager")
    assert fn is _native_skipped
    assert label == vc.NATIVE_EAGER + "; torch.compile failed (RuntimeError: torch.compile captured no graph)"


def test_forced_kinds(monkeypatch) -> None:
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)
    fn, label = vc.pick_baseline("anything", _native, _call(), prefer="native-eager")
    assert fn is _native and baseline_kind(label) == "native-eager"
    with pytest.raises(RuntimeError, match="vllm::anything: the vllm baseline was requested but vllm._custom_ops is "
                                           "not importable"):
        vc.pick_baseline("anything", _native, _call(), prefer="vllm")
    with pytest.raises(ValueError, match="unknown baseline 'cuda'"):
        vc.pick_baseline("anything", _native, _call(), prefer="cuda")


def test_vllm_when_importable(monkeypatch) -> None:
    seen = []
    fake = types.SimpleNamespace(rms_norm=lambda *a, **k: seen.append((len(a), k)))
    monkeypatch.setattr(vc, "vllm_ops", lambda: fake)
    op, call = _rms_call()
    for prefer in (None, "vllm"):
        fn, label = op.baseline(call, None) if prefer is None else op.baseline(call, None, prefer=prefer)
        assert label == "vllm (vllm._custom_ops.rms_norm)" and baseline_kind(label) == "vllm"
        fn(call)
    assert seen == [(4, {}), (4, {})]
    # a vLLM without the op: unforced falls to the native reference (eager here: forced)
    fn, label = vc.pick_baseline("no_such_op", _native, _call(), prefer="native-eager")
    assert label.startswith("native-eager")
    with pytest.raises(RuntimeError, match="vllm._custom_ops has no no_such_op"):
        vc.pick_baseline("no_such_op", _native, _call(), prefer="vllm")


def test_operator_kinds_and_refusals() -> None:
    op, call = _rms_call()
    assert op.baseline_kinds == BASELINE_KINDS
    fn, label = op.baseline(call, None, prefer="native-eager")
    c = call.clone()
    fn(c)
    assert torch.isfinite(c.args[0]).all() and label.startswith("native-eager")
    blas = get_operator("cublas::cublasSaxpy_v2")
    assert blas.baseline_kinds == ()
    with pytest.raises(ValueError, match="cublas::cublasSaxpy_v2: baseline 'native-eager' cannot be forced"):
        blas.baseline(call, None, prefer="native-eager")


def test_labels_and_summary_rows(monkeypatch) -> None:
    from kernelgenbench.metrics import operator_row

    assert baseline_kind("native-compiled (x)") == "native-compiled"
    assert baseline_kind("native-eager; torch.compile failed") == "native-eager"
    assert baseline_kind("ATen (native op, same device)") is None and baseline_kind(None) is None
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)
    assert baseline_kind(vc.baseline_label()) == "native-compiled"
    row = operator_row({"op": "vllm::rms_norm", "source": "vllm", "status": "passed",
                        "baseline": vc.NATIVE_EAGER + "; torch.compile failed (X)"})
    assert row["baseline_kind"] == "native-eager" and row["baseline"].startswith("native-eager")


def test_eval_refuses_bad_baselines(tmp_path) -> None:
    import kernelgenbench as kgb

    sub = tmp_path / "subs"
    sub.mkdir()
    (sub / "aten__neg.py").write_text("")
    (sub / "vllm__rms_norm.py").write_text("")
    with pytest.raises(kgb.EvaluationError, match="unknown baseline 'fast'"):
        kgb.evaluate(sub, platform="interpreter", runs_root=tmp_path, settings=kgb.Settings(baseline="fast"))
    with pytest.raises(kgb.EvaluationError, match="no selected operator offers a choice of baseline"):
        kgb.evaluate(sub, ops=["aten::neg"], platform="interpreter", runs_root=tmp_path,
                     settings=kgb.Settings(baseline="native-eager"))
    assert not list(tmp_path.glob("*/config.json"))


def test_forced_baseline_travels_and_keys_resume() -> None:
    from kernelgenbench.run.rundir import _same_config
    from kernelgenbench.sandbox.protocol import TimeCommand

    cmd = TimeCommand("in.pt", 10, 5.0, [1], "out.pt", "native-eager")
    assert TimeCommand.from_json(cmd.to_json()) == cmd
    assert TimeCommand.from_json(TimeCommand("in.pt").to_json()).baseline is None
    base = {"submissions": "s", "ops": None, "source": "vllm", "tier": "full", "platform": "cuda"}
    assert _same_config(base, dict(base))
    assert not _same_config(base, dict(base, baseline="native-eager"))


def _off_by_one(gm, example_inputs):
    """A torch.compile backend that miscompiles: the graph runs, then every floating input is bumped by one."""
    def run(*args):
        out = gm(*args)
        for a in args:
            if isinstance(a, torch.Tensor) and a.is_floating_point():
                a.add_(1)
        return out
    return run


def test_a_compiled_reference_that_disagrees_falls_back_to_eager(monkeypatch) -> None:
    """An Inductor defect (pytorch/pytorch#182343 sent cp_gather_indexer_k_quant_cache's compiled reference out of
    bounds on the H200) must not be timed as the baseline: the compiled result is checked against the eager one."""
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)
    call = _call()
    fn, label = vc.pick_baseline("anything", _native, call, backend=_off_by_one)
    assert fn is _native and baseline_kind(label) == "native-eager"
    assert label.startswith(vc.NATIVE_EAGER + "; torch.compile's result differs from the eager reference on the "
                                              "warm-up set: output 0 (torch.float32[2, 3]): 6 of 6 elements differ")
    assert torch.isnan(call.args[0]).all()  # the warm-up set itself untouched


@pytest.mark.parametrize("got, want, says", [
    (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0]), None),
    (torch.tensor([1.0, 2.0, 3.0005]), torch.tensor([1.0, 2.0, 3.0]), None),  # fusion's rounding
    (torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]), None),
    (torch.tensor([float("inf"), 1.0]), torch.tensor([float("inf"), 1.0]), None),
    (torch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 2.0, 3.0]),
     "output 0 (torch.float32[3]): 1 of 3 elements differ"),
    (torch.arange(200) // 1, torch.arange(200).roll(1), "200 of 200 elements differ"),  # an off-by-one gather
    (torch.arange(200).clone().index_fill_(0, torch.tensor([5]), 0), torch.arange(200), None),  # 1 of 200: 0.5%
    (torch.zeros(3, dtype=torch.int32), torch.zeros(3, dtype=torch.int64), "output 0: torch.int32[3] where"),
    ([torch.ones(2), torch.ones(2)], [torch.ones(2)], "2 output tensors where the eager reference gives 1"),
    ([torch.ones(2), None], [torch.ones(2)], "a non-tensor output differs"),
    ([torch.ones(2), 3], [torch.ones(2), 4], "a non-tensor output differs"),
])
def test_disagreement(got, want, says) -> None:
    off = vc.disagreement(got, want)
    assert off is None if says is None else (off is not None and says in off), off


def test_compiled_reference_keeps_the_rounding_points(monkeypatch) -> None:
    """Inductor elides a fused ``.to(bf16).float()`` unless told to keep it: rms_norm_dynamic_per_token_quant's
    y = rd_T(rd_T(x*inv)*w) then stayed fp32 and 2-3% of a bf16 case's int8 values moved by one (the H100's full
    tier at 76a872c timed those cases eagerly; Inductor's C++ backend does the same). The default compile disagrees,
    so the baseline is compiled again with the eager-numerics options: the compiled reference is then the eager one,
    bit for bit, and the baseline is compiled, its label saying how. A case the default compile gets right keeps it."""
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)
    op = get_operator("vllm::rms_norm_dynamic_per_token_quant")
    p = dict(t=64, h=1024, dtype="bf16", quant="int8", eps=1e-6, residual=True)
    cpu = torch.device("cpu")
    call = op.build(p, cpu, generator(cpu, 7))
    fn, label = op.baseline(call, None)
    assert label.startswith(vc.NATIVE_COMPILED + "; " + vc.NUMERICS_TEXT + " (the default compile disagreed: "
                            "torch.compile's result differs from the eager reference"), label
    assert baseline_kind(label) == "native-compiled"
    fp16 = dict(p, dtype="fp16", t=8, h=256)
    assert op.baseline(op.build(fp16, cpu, generator(cpu, 7)), None)[1] == vc.NATIVE_COMPILED
    fresh = op.build(p, cpu, generator(cpu, 8))
    got_call, want_call = fresh.clone(), fresh.clone()
    got, want = fn(got_call), op.baseline(call, None, "native-eager")[0](want_call)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    assert torch.equal(got_call.args[5], want_call.args[5])   # the residual written back


def test_eager_numerics_names_only_known_options(monkeypatch) -> None:
    """``torch.compile`` refuses an Inductor option it does not know: one this torch lacks is left out."""
    monkeypatch.setattr(vc, "EAGER_NUMERICS", {"emulate_precision_casts": True, "no_such_group.no_such_knob": True,
                                               "no_such_knob": False})
    assert vc.eager_numerics() == {"emulate_precision_casts": True}
