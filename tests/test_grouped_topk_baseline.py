"""vllm::grouped_topk's timed cases, cheap to make (gt36: an H100 timed 3 of the full tier's 96 timed cases in 218 s).

The compiled baseline (vLLM not importable: the native reference under torch.compile, suite/vllm/common.py) is compiled
with dynamic shapes, as vLLM compiles its own native grouped_topk: with static shapes every case was a new graph (its
scalars are constants) whose stable sorts over the E <= 512 experts Inductor lowers to Triton sort kernels of that
graph, compiled again per case; with E symbolic they run as aten.sort and cases that differ only in num_expert_group
are one graph, which the per-job Inductor cache compiles once. The input builder's sigmoid-boundary loop checks only
the values it stepped, with the same values as before. CPU only: the sort lowering is recorded, not run."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.baselines import baseline_kind
from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm import common as vc
from kernelgenbench.suite.vllm import moe

CPU = torch.device("cpu")
GT = get_operator("vllm::grouped_topk")
_PICK = vc.pick_baseline


def _timed(**kw) -> dict:
    """The full tier's timed case with these parameters."""
    found = [p for p in GT.grid("full") if GT.timed(p) and all(p[k] == v for k, v in kw.items())]
    assert found, kw
    return found[0]


def _baseline(op, p: dict, monkeypatch, backend) -> tuple:
    """``op.baseline`` of case ``p`` (vLLM not importable) with torch.compile's ``backend``."""
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)

    def with_backend(name, native, c, prefer=None, **kw):
        return _PICK(name, native, c, prefer, backend=backend, **kw)
    monkeypatch.setattr(vc, "pick_baseline", with_backend)
    return op.baseline(op.build(p, CPU, generator(CPU, 7)), None)


def test_the_compiled_baseline_has_dynamic_shapes_and_says_so(monkeypatch) -> None:
    fn, label = _baseline(GT, GT.grid("smoke")[0], monkeypatch, "eager")
    assert baseline_kind(label) == "native-compiled" and isinstance(fn, vc.CompiledBaseline)
    assert label == f"{vc.NATIVE_COMPILED}; dynamic shapes: {moe.GT_DYNAMIC}" and "dynamic=True" in label
    rms = get_operator("vllm::rms_norm")  # the others keep static shapes and the plain label
    _, label = _baseline(rms, rms.grid("smoke")[0], monkeypatch, "eager")
    assert label == vc.NATIVE_COMPILED


def test_cases_that_differ_in_num_expert_group_are_one_graph(monkeypatch) -> None:
    """Four timed cases (num_expert_group 2 and 4, topk_group 2, each dtype): the graphs dynamo hands the backend,
    by their code. Static shapes made four (each case its own constants, each compiled by Inductor); dynamic ones
    make two, one per dtype, and the case of num_expert_group 4 finds its twin in the job's Inductor cache."""
    codes: list[str] = []

    def recording(gm, example_inputs):
        codes.append(gm.code)
        return gm.forward

    cases = [_timed(n_group=g, topk_group=2, topk=2, renormalize=True, scoring=1, dtype=d)
             for g in (2, 4) for d in ("fp16", "bf16")]
    for p in cases:
        fn, label = _baseline(GT, p, monkeypatch, recording)
        assert baseline_kind(label) == "native-compiled", label
        assert fn.compiles == 0
        fn(GT.build(p, CPU, generator(CPU, 8)))  # a fresh set of the case compiles nothing
        assert fn.compiles == 0
    assert len(codes) == 4 and len(set(codes)) == 2


def test_no_sort_over_the_experts_is_lowered_to_a_triton_sort_kernel(monkeypatch) -> None:
    """Inductor's lowering of the reference's sorts, recorded (and sent to aten.sort, so that the CPU compile ends): a
    sort whose size Inductor can bound statically by 512 is lowered on a GPU to a Triton sort kernel of that graph
    (torch/_inductor/ir.py ``Sort.create``), compiled per case; the expert-wide sorts must not be."""
    import sympy
    from torch._inductor import config, ir
    from torch._inductor.virtualized import V

    seen: list[tuple[str, bool]] = []

    def create(cls, device, dtypes, inner_fns, size, axis, stable, descending, **kw):
        n = V.graph.sizevars.simplify(size[axis])
        seen.append((str(n), bool(config.triton.persistent_reductions
                                  and V.graph.sizevars.statically_known_true(sympy.Le(n, 512)))))
        return [None] * len(dtypes)
    monkeypatch.setattr(ir.Sort, "create", classmethod(create))
    p = dict(GT.grid("smoke")[0])  # t=3, E=16 in 4 groups
    # lowered here, not loaded from an earlier compile; config.patch, not monkeypatch: the option is an alias that
    # monkeypatch's undo deleted from Inductor's config, and every later compile of the process failed reading it
    with config.patch(force_disable_caches=True):
        fn, label = _baseline(GT, p, monkeypatch, "inductor")
    assert baseline_kind(label) == "native-compiled", label
    assert len(seen) == 3, seen  # the groups (4), then the experts twice (16)
    assert [kernel for _, kernel in seen[1:]] == [False, False], seen


def _stepped_whole(scores: torch.Tensor) -> torch.Tensor:
    """The builder's loop before gt36: every round checks and steps the whole tensor."""
    for _ in range(256):
        bad = ~moe._sigmoid_stable(scores)
        if not bool(bad.any()):
            return scores
        scores = torch.where(bad, torch.nextafter(scores, torch.zeros_like(scores)), scores)
    raise RuntimeError("not stable")


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_the_sigmoid_builder_checks_only_what_it_stepped(dtype: str, monkeypatch) -> None:
    p = _timed(n_group=4, topk_group=2, topk=2, renormalize=True, scoring=1, dtype=dtype)
    checked = []
    real = moe._sigmoid_stable
    monkeypatch.setattr(moe, "_sigmoid_stable", lambda x: checked.append(x.numel()) or real(x))
    call = GT.build(p, CPU, generator(CPU, 3))
    n = p["t"] * p["e"]
    # the whole set once, then only the values stepped (the whole-tensor loop checked 15-25 whole fp16 sets)
    assert checked[0] == n and sum(checked[1:]) < n // 10, checked
    monkeypatch.setattr(moe, "_sigmoid_stable", real)
    raw = moe.make_tensor([p["t"], p["e"]], dtype, CPU, generator(CPU, 3))  # the builder's first draw
    want = _stepped_whole(raw)
    assert torch.equal(call.args[0].view(torch.int16), want.view(torch.int16))  # the same bits
    assert bool(moe._sigmoid_stable(call.args[0]).all())
