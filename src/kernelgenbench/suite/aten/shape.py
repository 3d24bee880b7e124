"""The shape family (aten.md §8): the matmuls ``bmm``, ``linear``, ``matmul``; the geometry op
``affine_grid_generator``; the rotation copy ``rot90``; the split views ``unsafe_split`` and
``unsafe_split_with_sizes``; the stencil ``diff``; and ``sort``.

Every op is one :class:`ShapeOperator` row: its wrappers (every overload the installed PyTorch has, read
from PyTorch, plus the Dimname overloads the upstream prompt lists and PyTorch 2.13 lacks), the grids per
tier, how a case is built, the reference, the timing gate and the cost model. The family supplies:

* **driving.** As for every ATen row (:mod:`.family`): on GPUs the wrappers are registered at the
  device key, which also intercepts the CompositeImplicit ops ``linear``, ``matmul`` and ``diff``
  (aten.md §4.3; no Autograd-key registration is needed, the upstream tests never backpropagate). On
  the interpreter a dispatch mode routes the reached overload to the wrapper; it only sees the
  decomposition of a CompositeImplicit overload (``linear``, ``matmul``, ``matmul.out``, ``diff``,
  ``diff.out``), so :meth:`ShapeOperator.interpreter_route` routes to those wrappers directly there.
* **matmul rows** (:func:`matmul_row`). References are the public call on fp64 copies, cast to the
  result dtype (the fp32 reference is true fp32: no TF32, aten.md §5); the tolerance is the
  accumulation rule with n = K terms, K + 1 with a bias (as ``aten::mm``; README "Tolerance and
  precision policy"); the cost counts ``2·M·N·K`` per batch and each operand read once.
* **references.** ``affine_grid_generator`` and ``diff`` are composites whose half-precision reference
  PyTorch rounds after every sub-op (aten.md §3.1 ⚑): their fp16/bf16 references are PyTorch on fp32
  copies, cast to the dtype; the fp32 ones on fp64 copies. ``rot90``, the splits and ``sort`` are exact:
  PyTorch's own result. ``sort``'s indices are exact where the sort is stable and judged by
  :func:`sort_indices_check` (a per-row permutation that gathers the sorted values) where it is not.
* **splits** follow the view rule (:data:`~kernelgenbench.suite.spec.VIEW`): each returned chunk must
  alias the input with exactly PyTorch's sizes, strides and storage offset, and the list must have
  PyTorch's length. Their ``out=`` forms copy into a list of preallocated tensors: a computing case
  (a Triton launch, L2 ghost replay) judged chunk by chunk, every element of every out storage.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from ..common import make_tensor, poisoned
from ..compare import SlotResult, compare_slot, compare_values
from ..spec import (
    ACCUMULATION_NOTE,
    EXACT,
    EXACT_TEXT,
    VIEW,
    Call,
    Cost,
    Counts,
    Expected,
    Tolerance,
    Wrapper,
    accumulation_rule,
    accumulation_text,
    dtype_of,
    numel,
    product,
    written_expected,
)
from ..tensors import INT_POISON, poison_
from .family import DIRECT, AtenCase, AtenOperator, elem_bytes, flop_class, resolve_api, std_expected, wrappers_of
from .pools import FLOAT3

#: (M, N, K) of the matmul grids (aten.md §2 MNK_SHAPES)
MNK = [(1, 1, 32), (15, 160, 1024), (495, 5333, 71)]
#: the matmul family's GEMM ops: calling any of them is computing the op with PyTorch (as for aten::mm)
GEMM_OPS = frozenset({"mm", "matmul", "bmm", "addmm", "linear", "dot", "mv", "baddbmm", "einsum", "tensordot",
                      "addbmm", "addmv", "vdot", "inner", "_addmm_activation"})


def _is_composite(qual: str) -> bool:
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(qual, "CompositeImplicitAutograd")
    except RuntimeError:
        return False


class ShapeOperator(AtenOperator):
    """One row of the shape family (see the module docstring).

    Args:
        name: the op (``"bmm"``).
        exercised: the overload keys the full tier drives (``"sort.stable"``).
        absent: overloads the upstream prompt lists that PyTorch 2.13 lacks (``{overload: schema}``).
        tolerance_text: the row's own judgement in words where it is not the plain value comparison
            (``kgb show`` and prompts show it).
        Everything else as :class:`~kernelgenbench.suite.aten.family.AtenOperator`.
    """

    def __init__(self, name: str, *, exercised: Sequence[str], absent: dict[str, str] | None = None,
                 tolerance_text: str = "", **kw: Any) -> None:
        self.tolerance_text = tolerance_text
        wrappers = wrappers_of(name, exercised, absent)
        super().__init__(name, wrappers=wrappers, **kw)

    def reached(self, call: Call) -> str:
        """The overload key a case drives (``"matmul.out"``): ``torch.ops.aten`` entries name it; a public
        call reaches the op's default overload, or ``.out`` with ``out=``."""
        api = str(call.api)
        if api.startswith(DIRECT):
            return api[len(DIRECT):]
        prefix = "torch.ops.aten."
        if api.startswith(prefix):
            op, _, ov = api[len(prefix):].partition(".")
            return op if ov in ("", "default") else f"{op}.{ov}"
        if self.name == "sort":
            return "sort.values_stable" if "values" in call.kwargs else "sort.stable"
        return self.name + (".out" if "out" in call.kwargs else "")

    def interpreter_route(self, call: Call) -> tuple[str, Sequence[Any], dict[str, Any]] | None:
        api = str(call.api)
        if not api.startswith(DIRECT):
            key = self.reached(call)
            if _is_composite(f"aten::{key}"):
                # Interpreter: a dispatch mode sees only the decomposition of a CompositeImplicit op.
                return key.replace(".", "_"), call.args, call.kwargs
        return super().interpreter_route(call)


def _fp64_of(v: Any) -> Any:
    if isinstance(v, torch.Tensor) and v.is_floating_point():
        return v.to(torch.float64)
    return v


def _abs64(v: Any) -> Any:
    if isinstance(v, torch.Tensor) and v.is_floating_point():
        return v.abs().to(torch.float64)
    return v


def _fp32_of(v: Any) -> Any:
    if isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16):
        return v.to(torch.float32)
    return v


def _out_or_return(call: Call, ref: torch.Tensor, tol: Tolerance, key: str = "out",
                   atol_extra: torch.Tensor | None = None) -> list[Expected]:
    """A functional return, or (``out=``) the written out (its whole storage; a size-0 out the wrapper
    must resize is compared as the resized tensor) and the returned alias. ``atol_extra``: the
    elementwise allowance, shaped like ``ref``."""
    if key not in call.kwargs:
        return [Expected("return", ref, tol, atol_extra=atol_extra)]
    out = call.kwargs[key]
    if out.numel() == 0 and ref.numel() != 0:
        return [Expected(f"arg.{key}", ref, tol, atol_extra=atol_extra),
                Expected("return", None, tol, alias=f"arg.{key}")]
    return [written_expected(f"arg.{key}", out, ref, tol, atol_extra=atol_extra),
            Expected("return", None, tol, alias=f"arg.{key}")]


# ================================================================================================ matmuls
def matmul_row(name: str, *, semantics: str, exercised: Sequence[str],
               shapes: Callable[[dict[str, Any]], tuple[list[int], list[int]]],
               build: Callable[[dict[str, Any], torch.device, torch.Generator], AtenCase],
               grids: dict[str, list[dict[str, Any]]], notes: str = "") -> ShapeOperator:
    """A matmul-like row: fp64 reference of the case's own call, the accumulation rule with n = K
    terms (K + 1 with a bias; README "Tolerance and precision policy"), GEMM cost.

    Args:
        shapes: ``shapes(params) -> (a_shape, b_shape)``: the operand shapes as the GEMM sees them
            (``(..., M, K)`` and ``(..., K, N)``); the batch is the product of the broadcast leading dims.
    """

    def reference(p: dict[str, Any], call: Call) -> list[Expected]:
        out_dtype = dtype_of(p.get("out_dtype", p["dtype"]))
        kwargs = {k: v for k, v in call.kwargs.items() if k not in ("out", "out_dtype")}
        api = resolve_api(_functional_api(str(call.api)))
        args = [_fp64_of(a) for a in call.args if not isinstance(a, torch.dtype)]  # bmm.dtype's out_dtype
        ref = api(*args, **{k: _fp64_of(v) for k, v in kwargs.items()})
        # the accumulation rule: the same call on |operands| in fp64 gives sum |a_i b_i| (+ |bias|) per element
        absum = api(*[_abs64(a) for a in args], **{k: _abs64(v) for k, v in kwargs.items()})
        terms = p["k"] + (1 if p.get("bias") else 0)
        tol, extra = accumulation_rule(out_dtype, absum, terms, p["k"])
        return _out_or_return(call, ref.to(out_dtype), tol, atol_extra=extra)

    def cost(p: dict[str, Any]) -> Cost:
        a, b = shapes(p)
        batch = numel(torch.broadcast_shapes(torch.Size(a[:-2]), torch.Size(b[:-2])))
        m, k, n = a[-2], a[-1], b[-1]
        out = batch * m * n
        bias = n if p.get("bias") else 0
        return Cost(2.0 * batch * m * n * k,
                    (numel(a) + numel(b) + bias) * elem_bytes(p["dtype"])
                    + out * elem_bytes(p.get("out_dtype", p["dtype"])), flop_class(p["dtype"]))

    row = ShapeOperator(name, category="matmul", semantics=semantics, exercised=exercised, grids=grids,
                        build=build, reference=reference, cost=cost, own_ops=GEMM_OPS,
                        notes=(notes + " " if notes else "") + ACCUMULATION_NOTE.format(n="K"))
    row.atol_text = (accumulation_text("K + 1 (K products and the bias)", "((|A| @ |B|)[i,j] + |bias[j]|)", "1e-4 x K")
                     if name == "linear" else accumulation_text("K", "(|A| @ |B|)[i,j]", "1e-4 x K"))
    return row


def _functional_api(api: str) -> str:
    """The functional entry of an ``out``/``dtype`` dispatcher entry (references run it on fp64 copies)."""
    prefix = "torch.ops.aten."
    if not api.startswith(prefix):
        return api
    op, _, ov = api[len(prefix):].partition(".")
    return f"{prefix}{op}.default" if ov in ("out", "dtype", "dtype_out", "") else api


def _mnk(p: dict[str, Any]) -> tuple[int, int, int]:
    return p["m"], p["n"], p["k"]


# ----------------------------------------------------------------------------------------------- mm
def _mm_build(p: dict[str, Any], device, gen) -> AtenCase:
    m, n, k = p["m"], p["n"], p["k"]
    a = make_tensor([m, k], p["dtype"], device, gen)
    if p.get("b_column_major"):
        b = make_tensor([n, k], p["dtype"], device, gen).t()
    else:
        b = make_tensor([k, n], p["dtype"], device, gen)
    if p.get("overload") == "out":
        return AtenCase("torch.mm", [a, b], {"out": poisoned([m, n], p["dtype"], device)}, ("out",))
    if p.get("overload") == "dtype":
        return AtenCase("torch.mm", [a, b], {"out_dtype": dtype_of(p["out_dtype"])})
    return AtenCase("torch.mm", [a, b])


def _mm_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, b = call.args[0], call.args[1]
    out_dtype = dtype_of(p.get("out_dtype", p["dtype"]))
    ref = (a.to(torch.float64) @ b.to(torch.float64)).to(out_dtype)
    # the accumulation rule (README "Tolerance and precision policy"): |A| @ |B| in fp64 bounds each
    # element's rounding error
    tol, extra = accumulation_rule(out_dtype, a.abs().to(torch.float64) @ b.abs().to(torch.float64), p["k"], p["k"])
    return std_expected(p, call, ref, tol, extra)


def _mm_cost(p: dict[str, Any]) -> Cost:
    m, n, k = p["m"], p["n"], p["k"]
    return Cost(2.0 * m * n * k, (m * k + k * n + m * n) * elem_bytes(p["dtype"]), flop_class(p["dtype"]))


MM = AtenOperator(
    "mm", category="matmul",
    semantics="self (M,K) @ mat2 (K,N) -> (M,N); no broadcasting; same dtype; accumulate in fp32 with true fp32 "
              "(no TF32) for fp32 inputs; mm.dtype/mm.dtype_out allow an fp32 output from fp16/bf16 inputs.",
    wrappers=[
        Wrapper("mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor", exercised=True),
        Wrapper("mm.out", "aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)"),
        Wrapper("mm.dtype_out", "aten::mm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, "
                                "Tensor(a!) out) -> Tensor(a!)"),
        Wrapper("mm.dtype", "aten::mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor"),
    ],
    grids={
        "smoke": [
            dict(m=1, n=1, k=32, dtype="fp32"),
            dict(m=17, n=33, k=64, dtype="bf16", b_column_major=True),
            dict(m=16, n=16, k=16, dtype="fp16"),
            dict(m=9, n=20, k=24, dtype="fp32", b_column_major=True, overload="out"),
        ],
        "full": [dict(b_column_major=d["bcm"], dtype=d["dtype"], m=d["mnk"][0], n=d["mnk"][1], k=d["mnk"][2])
                 for d in product(bcm=[True, False], dtype=FLOAT3,
                                  mnk=[(1, 1, 32), (15, 160, 1024), (495, 5333, 71)])],
        "heldout": [
            dict(m=497, n=5331, k=73, dtype="fp32", b_column_major=True),  # spec: (495,5333,71) is a full case
            dict(m=511, n=129, k=257, dtype="bf16"),
            dict(m=1, n=1, k=4096, dtype="fp16"),
            dict(m=64, n=96, k=80, dtype="fp16", overload="dtype", out_dtype="fp32"),
        ],
    },
    build=_mm_build, reference=_mm_ref, cost=_mm_cost,
    own_ops=frozenset({"mm", "matmul", "bmm", "addmm", "linear", "dot", "mv", "baddbmm", "einsum", "tensordot"}),
    notes=ACCUMULATION_NOTE.format(n="K"),
).facts(counts=Counts(smoke=4, full=18, timed=18, heldout=4))
MM.atol_text = accumulation_text("K", "(|A| @ |B|)[i,j]")


# -------------------------------------------------------------------------------------------------- bmm
def _bmm_shapes(p: dict[str, Any]) -> tuple[list[int], list[int]]:
    m, n, k = _mnk(p)
    return [p["b"], m, k], [p["b"], k, n]


def _bmm_build(p: dict[str, Any], device, gen) -> AtenCase:
    m, n, k = _mnk(p)
    a = make_tensor([p["b"], m, k], p["dtype"], device, gen)
    b = make_tensor([p["b"], k, n], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    ov = p.get("overload")
    if ov == "out":
        return AtenCase("torch.bmm", [a, b], {"out": poisoned([p["b"], m, n], p["dtype"], device)}, ("out",))
    if ov == "dtype":
        return AtenCase("torch.ops.aten.bmm.dtype", [a, b, dtype_of(p["out_dtype"])])
    if ov == "dtype_out":
        out = poisoned([p["b"], m, n], p["out_dtype"], device)
        return AtenCase("torch.ops.aten.bmm.dtype_out", [a, b, dtype_of(p["out_dtype"])], {"out": out}, ("out",))
    return AtenCase("torch.bmm", [a, b])


BMM = matmul_row(
    "bmm", exercised=["bmm"], shapes=_bmm_shapes, build=_bmm_build,
    semantics="out[b] = self[b] @ mat2[b] for self (B,M,K) and mat2 (B,K,N) of one dtype -> (B,M,N); no "
              "broadcasting; accumulate in fp32 (fp64 for fp64), true fp32 for fp32 inputs (no TF32); bmm.out "
              "writes into out; bmm.dtype/bmm.dtype_out give an fp32 result from fp16/bf16 inputs.",
    grids={
        "smoke": [dict(b=2, m=1, n=1, k=32, dtype="fp32"), dict(b=3, m=17, n=33, k=64, dtype="bf16"),
                  dict(b=2, m=16, n=16, k=16, dtype="fp16"), dict(b=2, m=9, n=20, k=24, dtype="fp32", overload="out")],
        "full": [dict(b=4, dtype=d["dtype"], m=d["mnk"][0], n=d["mnk"][1], k=d["mnk"][2])
                 for d in product(dtype=FLOAT3, mnk=MNK)],
        "heldout": [dict(b=5, m=511, n=257, k=129, dtype="fp32"), dict(b=1, m=128, n=1, k=4096, dtype="bf16"),
                    dict(b=4, m=33, n=65, k=17, dtype="fp16", layout="transposed"),
                    dict(b=3, m=64, n=48, k=80, dtype="fp16", overload="dtype", out_dtype="fp32"),
                    dict(b=2, m=40, n=24, k=56, dtype="fp16", overload="dtype_out", out_dtype="fp32")],
    },
    notes="Pre-damage grid (aten.md §6b.2): batch 4, MNK_SHAPES x FLOAT_DTYPES, timed. The held-out tier adds the "
          "untested dispatcher overloads bmm.dtype and bmm.dtype_out (fp16 -> fp32; PyTorch's CPU build has no kernel "
          "for them, so their references are fp64 bmm).",
).facts(counts=Counts(smoke=4, full=9, timed=9, heldout=5))


# ----------------------------------------------------------------------------------------------- linear
def _linear_shapes(p: dict[str, Any]) -> tuple[list[int], list[int]]:
    m, n, k = _mnk(p)
    return list(p.get("lead", [])) + [m, k], [k, n]


def _linear_build(p: dict[str, Any], device, gen) -> AtenCase:
    m, n, k = _mnk(p)
    x = make_tensor(list(p.get("lead", [])) + [m, k], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    w = make_tensor([n, k], p["dtype"], device, gen)
    bias = make_tensor([n], p["dtype"], device, gen) if p["bias"] else None
    if p.get("overload") == "out":
        out = poisoned(list(p.get("lead", [])) + [m, n], p["dtype"], device)
        return AtenCase("torch.ops.aten.linear.out", [x, w, bias], {"out": out}, ("out",))
    return AtenCase("torch.nn.functional.linear", [x, w, bias])


LINEAR = matmul_row(
    "linear", exercised=["linear"], shapes=_linear_shapes, build=_linear_build,
    semantics="y = input @ weight^T (+ bias): input (*, in), weight (out, in), bias (out,) or None -> (*, out); "
              "accumulate in fp32, true fp32 for fp32 (no TF32); linear.out writes into out. CompositeImplicit in "
              "PyTorch (addmm / matmul); the device-key registration intercepts it.",
    grids={
        "smoke": [dict(m=1, n=1, k=32, dtype="fp32", bias=False), dict(m=15, n=33, k=64, dtype="fp16", bias=True),
                  dict(lead=[2], m=3, n=17, k=16, dtype="bf16", bias=True),
                  dict(m=5, n=12, k=24, dtype="fp32", bias=True, overload="out")],
        "full": [dict(bias=d["bias"], dtype=d["dtype"], m=d["mnk"][0], n=d["mnk"][1], k=d["mnk"][2])
                 for d in product(bias=[False, True], dtype=FLOAT3, mnk=MNK)]
        + [dict(lead=[4], bias=True, dtype=d["dtype"], m=d["mnk"][0], n=d["mnk"][1], k=d["mnk"][2])
           for d in product(dtype=FLOAT3, mnk=MNK)],
        "heldout": [dict(m=497, n=5331, k=73, dtype="fp32", bias=True),
                    dict(lead=[4], m=128, n=160, k=1024, dtype="bf16", bias=False),
                    dict(m=64, n=80, k=96, dtype="fp16", bias=True, layout="transposed"),
                    dict(lead=[3], m=5, n=24, k=40, dtype="fp32", bias=True, overload="out")],
    },
    notes="aten.md §6b.4: upstream's linear label runs baddbmm tests that never reach linear; the full tier is the "
          "section's proposed real grid, 27 cases: input (M,K), weight (N,K), bias None or (N,) over MNK_SHAPES x "
          "FLOAT_DTYPES (18), plus a 3-D input (4,M,K) with a bias (9), all timed, reduce_dim=K. The section's "
          "held-out (495,71)x(5333,71) fp32 with bias is a full-tier case, so the held-out tier uses "
          "(497,73)x(5331,73).",
).facts(counts=Counts(smoke=4, full=27, timed=27, heldout=4))


# ----------------------------------------------------------------------------------------------- matmul
def _matmul_operands(p: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The operand shapes as given to torch.matmul."""
    m, n, k = _mnk(p)
    form = p["form"]
    if form == "2d":
        return [m, k], [k, n]
    if form == "batched":
        return [p.get("b", 4), m, k], [k, n]
    if form == "vecmat":
        return [k], [k, n]
    if form == "matvec":
        return [m, k], [k]
    if form == "dot":
        return [k], [k]
    if form == "bcast":
        return [2, 1, m, k], [3, k, n]
    raise ValueError(f"aten::matmul: unknown form {form!r}")


def _matmul_shapes(p: dict[str, Any]) -> tuple[list[int], list[int]]:
    a, b = _matmul_operands(p)
    return (a if len(a) > 1 else [1] + a), (b if len(b) > 1 else b + [1])


def _matmul_build(p: dict[str, Any], device, gen) -> AtenCase:
    sa, sb = _matmul_operands(p)
    a = make_tensor(sa, p["dtype"], device, gen)
    b = make_tensor(sb, p["dtype"], device, gen, layout=p.get("layout", "contig"))
    if p.get("overload") == "out":
        ref = torch.matmul(torch.empty(sa, device="meta"), torch.empty(sb, device="meta"))
        return AtenCase("torch.matmul", [a, b], {"out": poisoned(ref.shape, p["dtype"], device)}, ("out",))
    return AtenCase("torch.matmul", [a, b])


def _matmul_full() -> list[dict[str, Any]]:
    def row(form: str, dtype: str, mnk: tuple[int, int, int]) -> dict[str, Any]:
        return dict(form=form, dtype=dtype, m=mnk[0], n=mnk[1], k=mnk[2])

    return ([row("2d", d["dtype"], d["mnk"]) for d in product(dtype=FLOAT3, mnk=MNK)]
            + [row("batched", d["dtype"], d["mnk"]) for d in product(dtype=FLOAT3, mnk=MNK)]
            + [row("vecmat", "fp32", mnk) for mnk in MNK] + [row("matvec", "fp32", mnk) for mnk in MNK]
            + [row("bcast", dt, mnk) for dt, mnk in zip(FLOAT3, MNK)])


MATMUL = matmul_row(
    "matmul", exercised=["matmul"], shapes=_matmul_shapes, build=_matmul_build,
    semantics="NumPy-style matmul: 1-D.1-D a dot product (0-d); 2-D.2-D mm; 1-D.2-D prepends a 1 that is removed "
              "again; 2-D.1-D mv; N-D a batched mm with the batch dims broadcast. Both operands of one dtype; "
              "accumulate in fp32, true fp32 for fp32 (no TF32); matmul.out writes into out. CompositeImplicit in "
              "PyTorch; the device-key registration intercepts it.",
    grids={
        "smoke": [dict(form="2d", m=1, n=1, k=32, dtype="fp32"), dict(form="vecmat", m=1, n=4, k=3, dtype="bf16"),
                  dict(form="batched", b=2, m=17, n=9, k=16, dtype="fp16"),
                  dict(form="bcast", m=4, n=5, k=8, dtype="fp32"),
                  dict(form="matvec", m=6, n=1, k=10, dtype="fp32", overload="out")],
        "full": _matmul_full(),
        "heldout": [dict(form="2d", m=497, n=5331, k=73, dtype="fp32"),
                    dict(form="bcast", m=64, n=33, k=128, dtype="bf16"),
                    dict(form="2d", m=64, n=48, k=80, dtype="fp16", layout="transposed"),
                    dict(form="dot", m=1, n=1, k=100, dtype="fp32"),
                    dict(form="batched", b=3, m=20, n=10, k=30, dtype="fp16", overload="out")],
    },
    notes="aten.md §6b.4: upstream's matmul label runs baddbmm tests that never reach matmul; the full tier is the "
          "section's proposed real grid, 27 cases: (M,K)@(K,N) over MNK_SHAPES x FLOAT_DTYPES (9), (4,M,K)@(K,N) "
          "(9), (K,)@(K,N) and (M,K)@(K,) in fp32 (6), and (2,1,M,K)@(3,K,N) broadcasting (3; the section names no "
          "dtype: fp16, fp32, bf16 for the three shapes in turn); all timed, reduce_dim=K. The section's held-out "
          "(495,71)@(71,5333) fp32 is a full-tier case, so the held-out tier uses (497,73)@(73,5331).",
).facts(counts=Counts(smoke=5, full=27, timed=27, heldout=5))


# ================================================================================== affine_grid_generator
def _grid_shape(size: Sequence[int]) -> list[int]:
    if len(size) == 4:
        return [size[0], size[2], size[3], 2]
    return [size[0], size[2], size[3], size[4], 3]


def _affine_build(p: dict[str, Any], device, gen) -> AtenCase:
    size = list(p["size"])
    theta = make_tensor([size[0], 2, 3] if len(size) == 4 else [size[0], 3, 4], p["dtype"], device, gen)
    if p.get("overload") == "out":
        out = poisoned(_grid_shape(size), p["dtype"], device)
        return AtenCase("torch.ops.aten.affine_grid_generator.out", [theta, size, p["align_corners"]],
                        {"out": out}, ("out",))
    return AtenCase("torch.ops.aten.affine_grid_generator.default", [theta, size, p["align_corners"]])


def _affine_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    theta, size, align = call.args
    # aten.md §3.1 ⚑: PyTorch builds the half-precision base grid in the dtype (rounded linspace): the fp16/bf16
    # reference is PyTorch on fp32 copies, cast once; fp32 uses fp64 copies.
    up = theta.to(torch.float64 if theta.dtype == torch.float32 else torch.float32)
    ref = torch.ops.aten.affine_grid_generator.default(up, list(size), align).to(theta.dtype)
    return _out_or_return(call, ref, Tolerance())


_AFFINE_SIZES = [[1, 3, 4, 4], [2, 3, 64, 64], [4, 3, 128, 256], [1, 2, 4, 4, 4], [2, 1, 8, 16, 16], [1, 1, 16, 32, 32]]

AFFINE_GRID_GENERATOR = ShapeOperator(
    "affine_grid_generator", category="grid / geometry (small batched matmul)", exercised=[
        "affine_grid_generator", "affine_grid_generator.out"],
    semantics="theta (N,2,3) with size [N,C,H,W] gives (N,H,W,2); theta (N,3,4) with size [N,C,D,H,W] gives "
              "(N,D,H,W,3). Per spatial dim of length S the base coordinate is linspace(-1, 1, S) (x along W, y along "
              "H, z along D), scaled by (S-1)/S when align_corners is False; a dim with S == 1 has coordinate 0. "
              "out[n, ..., i] = x*theta[n,i,0] + y*theta[n,i,1] (+ z*theta[n,i,2]) + theta[n,i,last]. .out writes "
              "into out.",
    grids={
        "smoke": [dict(size=[1, 3, 4, 4], dtype="fp32", align_corners=True),
                  dict(size=[1, 3, 4, 4], dtype="bf16", align_corners=False),
                  dict(size=[1, 1, 2, 3, 5], dtype="fp32", align_corners=True, overload="out"),
                  dict(size=[2, 1, 5, 6], dtype="fp16", align_corners=False)],
        "full": [dict(d, overload="out") if t == "out" else d
                 for t in ("tensor", "out")
                 for d in product(align_corners=[True, False], dtype=["fp32", "fp16", "bf16"], size=_AFFINE_SIZES)],
        "heldout": [dict(size=[3, 1, 17, 33], dtype="fp16", align_corners=True),
                    dict(size=[2, 1, 3, 5, 7], dtype="fp32", align_corners=False),
                    dict(size=[1, 1, 1, 9], dtype="fp32", align_corners=False),
                    dict(size=[2, 4, 1, 7, 1], dtype="fp16", align_corners=True, overload="out")],
    },
    build=_affine_build, reference=_affine_ref,
    cost=lambda p: Cost(2.0 * numel(_grid_shape(p["size"])) * (len(p["size"]) - 1),
                        (numel(_grid_shape(p["size"])) + p["size"][0] * (6 if len(p["size"]) == 4 else 12))
                        * elem_bytes(p["dtype"])),
    own_ops=frozenset({"affine_grid_generator", "affine_grid"}),
    notes="aten.md §3.1 ⚑: the fp16/bf16 reference is PyTorch on fp32 copies of theta cast once (PyTorch itself "
          "rounds the linspace and the align_corners scaling in the dtype); fp32 uses fp64 copies. theta is randn in "
          "the case dtype. Smoke adds an fp16 case (the interpreter cannot judge bf16).",
).facts(counts=Counts(smoke=4, full=72, timed=72, heldout=4))


# ================================================================================================ rot90
def _rot90_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    if p.get("overload") == "out":
        out = poison_(torch.empty(0, dtype=dtype_of(p["dtype"]), device=device))
        return AtenCase("torch.ops.aten.rot90.out", [x, p["k"], list(p["dims"])], {"out": out}, ("out",))
    return AtenCase("torch.ops.aten.rot90.default", [x, p["k"], list(p["dims"])])


def _rot90_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ref = torch.ops.aten.rot90.default(*call.args)
    return _out_or_return(call, ref.contiguous(), EXACT)


def _rot90_full() -> list[dict[str, Any]]:
    d2 = dict(dims=[[0, 1]], k=[0, 1, 2, 3, -1], dtype=["fp32", "fp16", "bf16"], shape=[[2, 3], [128, 256], [512, 512]])
    dn = dict(dims=[[0, 1], [0, 2], [1, 2]], k=[0, 1, 2, 3], dtype=["fp32", "fp16", "bf16"],
              shape=[[4, 5, 6], [32, 64, 16], [128, 32, 64]])
    return (product(**d2) + product(**dn) + [dict(d, overload="out") for d in product(**d2)]
            + [dict(d, overload="out") for d in product(**dn)])


ROT90 = ShapeOperator(
    "rot90", category="shape (rotation copy)", exercised=["rot90", "rot90.out"],
    semantics="Rotates by k*90 degrees in the plane dims = [d0, d1], from d0 toward d1 (k mod 4; k = -1 is 3): k = 0 "
              "a copy, k = 1 flip(d1) then transpose(d0, d1), k = 2 flip of both dims, k = 3 flip(d0) then "
              "transpose(d0, d1). The result is a new tensor (values compared, not strides); .out resizes out (given "
              "empty) to the result shape and writes into it. Any dtype.",
    grids={
        "smoke": [dict(shape=[2, 3], dtype="fp32", k=1, dims=[0, 1]),
                  dict(shape=[4, 5, 6], dtype="bf16", k=3, dims=[0, 2]),
                  dict(shape=[3, 4], dtype="fp16", k=-1, dims=[0, 1], overload="out"),
                  dict(shape=[3, 4, 5], dtype="int32", k=2, dims=[2, 0]),
                  dict(shape=[4, 6], dtype="bool", k=5, dims=[1, 0], overload="out")],
        "full": _rot90_full(),
        "heldout": [dict(shape=[511, 257], dtype="fp32", k=2, dims=[0, 1]),
                    dict(shape=[7, 17, 31], dtype="fp16", k=1, dims=[1, 2]),
                    dict(shape=[64, 48], dtype="fp32", k=1, dims=[0, 1], layout="transposed"),
                    dict(shape=[2, 3, 4, 5, 6], dtype="int32", k=-3, dims=[3, 1], overload="out")],
    },
    build=_rot90_build, reference=_rot90_ref,
    cost=lambda p: Cost(0.0, 2.0 * numel(p["shape"]) * elem_bytes(p["dtype"])),
    own_ops=frozenset({"rot90"}),
    notes="Values are compared exactly; PyTorch returns a transposed view of a flipped copy for odd k, so strides are "
          "not judged. Smoke adds int32 and bool cases (k = 5, dims [1, 0]).",
).facts(counts=Counts(smoke=5, full=306, timed=306, heldout=4))
ROT90.tolerance_text = EXACT_TEXT


# ================================================================================================ splits
def _list_len_check(n: int) -> Callable[[Any, dict[str, Any]], SlotResult]:
    def check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
        if not isinstance(actual, (list, tuple)):
            return SlotResult(False, f"return: expected a list of {n} tensors, got {type(actual).__name__}",
                              rule="list length")
        if len(actual) != n:
            return SlotResult(False, f"return: {len(actual)} chunks, expected {n}", rule="list length")
        return SlotResult(True, rule="list length")
    return check


def _out_list_check(exps: list[Expected]) -> Callable[[Any, dict[str, Any]], SlotResult]:
    """Judge a written ``Tensor[] out``: each tensor's whole storage against its expectation."""
    def check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
        if not isinstance(actual, (list, tuple)) or len(actual) != len(exps):
            return SlotResult(False, "arg.out: the out list is missing or changed length", rule="exact")
        worst = SlotResult(True, rule="exact")
        for i, (e, a) in enumerate(zip(exps, actual)):
            res = compare_slot(e, a)
            if not res.ok:
                return SlotResult(False, f"arg.out[{i}]: {res.message}", res.max_abs, res.max_rel, res.rule)
            worst = res if res.max_abs >= worst.max_abs else worst
        return worst
    return check


class SplitOperator(ShapeOperator):
    """A split row: the functional form returns views (the :data:`~kernelgenbench.suite.spec.VIEW` rule,
    chunk by chunk, and PyTorch's number of chunks); the ``out=`` form copies into a list of preallocated
    tensors of the exact chunk shapes (a computing case: a Triton launch and L2 ghost replay)."""

    def __init__(self, name: str, *, sizes_key: str, **kw: Any) -> None:
        self.sizes_key = sizes_key
        super().__init__(name, build=self._build_case, reference=self._reference_of, cost=self._cost_of,
                         nothing_to_compute=VIEW, own_ops=frozenset({name}), timed=lambda p: "overload" not in p,
                         **kw)

    def _api(self, out: bool) -> str:
        if self.name == "unsafe_split":
            return "torch.ops.aten.unsafe_split." + ("Tensor_out" if out else "Tensor")
        return "torch.ops.aten.unsafe_split_with_sizes." + ("out" if out else "default")

    def _build_case(self, p: dict[str, Any], device, gen) -> AtenCase:
        x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
        args = [x, p[self.sizes_key], p["dim"]]
        if p.get("overload") != "out":
            return AtenCase(self._api(False), args, needs_launch=False)
        chunks = resolve_api(self._api(False))(*args)
        outs = [poison_(torch.empty(c.shape, dtype=x.dtype, device=device)) for c in chunks]
        return AtenCase(self._api(True), args, {"out": outs}, ("out",), needs_launch=True)

    def _reference_of(self, p: dict[str, Any], call: Call) -> list[Expected]:
        chunks = resolve_api(self._api(False))(*call.args)
        if "out" in call.kwargs:
            exps = [written_expected(f"arg.out[{i}]", o, c, EXACT) for i, (o, c) in enumerate(zip(call.kwargs["out"],
                                                                                              chunks))]
            return [Expected("arg.out", None, EXACT, check=_out_list_check(exps))]
        return ([Expected("return", None, EXACT, check=_list_len_check(len(chunks)))]
                + [VIEW.expected(f"return.{i}", c, alias_of="arg.0") for i, c in enumerate(chunks)])

    def _cost_of(self, p: dict[str, Any]) -> Cost:
        if p.get("overload") == "out":
            return Cost(0.0, 2.0 * numel(p["shape"]) * elem_bytes(p["dtype"]))
        return Cost(0.0, 0.0)


_SPLIT_SHAPES = [[2, 3], [128, 256], [1024, 256]]

UNSAFE_SPLIT = SplitOperator(
    "unsafe_split", sizes_key="split_size", category="view (split into chunks)",
    exercised=["unsafe_split.Tensor", "unsafe_split.Tensor_out"],
    semantics="Splits self along dim into chunks of split_size (the last may be smaller; one chunk when split_size >= "
              "the size, and one empty chunk for an empty dim) and returns them as a list of views: each shares "
              "self's storage with self's strides and the storage offset of its first element. Tensor_out copies the "
              "chunks into the given list of tensors of the exact chunk shapes and returns nothing.",
    grids={
        "smoke": [dict(shape=[5, 3], dtype="fp32", split_size=2, dim=0),
                  dict(shape=[4, 7], dtype="bf16", split_size=64, dim=1),
                  dict(shape=[8, 6], dtype="fp16", split_size=4, dim=-1, overload="out"),
                  dict(shape=[6, 4], dtype="int32", split_size=4, dim=0, overload="out"),
                  dict(shape=[3, 5], dtype="bool", split_size=2, dim=1)],
        "full": product(split_size=[2, 64, 1000], dim=[0, 1, -1], dtype=["fp32", "fp16", "bf16"], shape=_SPLIT_SHAPES)
        + [dict(d, overload="out") for d in product(split_size=[2, 64, 1000], dim=[0, 1, -1],
                                                     dtype=["fp32", "fp16", "bf16"], shape=_SPLIT_SHAPES)],
        "heldout": [dict(shape=[511, 257], dtype="fp32", split_size=100, dim=1),
                    dict(shape=[7, 17, 31], dtype="fp16", split_size=5, dim=2),
                    dict(shape=[64, 48], dtype="fp32", split_size=10, dim=0, layout="transposed"),
                    dict(shape=[30, 20], dtype="bf16", split_size=7, dim=1, layout="transposed", overload="out")],
    },
    notes="aten.md §6b.7: every returned chunk must alias the input with exactly PyTorch's sizes, strides and storage "
          "offset (as_strided, or another view op such as split), and the list must have PyTorch's length; upstream "
          "compared values only. Tensor_out cases copy, so they need a Triton launch and get L2 ghost replay; every "
          "element of every out storage is judged. test_unsafe_split_tensor_out (81 cases) is untimed upstream, so "
          "only the 81 functional cases are timed. Smoke adds int32 and bool cases.",
).facts(counts=Counts(smoke=5, full=162, timed=81, heldout=4))

_SPLIT_SIZES_CASES = [([2, 3], [1, 1], 0), ([2, 3], [1, 2], 1), ([128, 256], [64, 64], 0), ([128, 256], [100, 156], 1),
                      ([512, 512], [128, 128, 256], 0), ([512, 512], [256, 256], 1), ([64, 32, 16], [4, 4, 4, 4], 2),
                      ([64, 32, 16], [10, 10, 12], 1), ([64, 32, 16], [16], -1)]

UNSAFE_SPLIT_WITH_SIZES = SplitOperator(
    "unsafe_split_with_sizes", sizes_key="split_sizes", category="view (split by sizes)",
    exercised=["unsafe_split_with_sizes", "unsafe_split_with_sizes.out"],
    semantics="Splits self along dim into pieces of the given sizes, which must sum to the dim's size (zero sizes "
              "allowed), returned as a list of views sharing self's storage with self's strides; .out copies the "
              "pieces into the given list of tensors and returns nothing.",
    grids={
        "smoke": [dict(shape=[2, 3], dtype="fp32", split_sizes=[1, 2], dim=1),
                  dict(shape=[6, 4], dtype="bf16", split_sizes=[1, 5], dim=0),
                  dict(shape=[4, 4, 4], dtype="fp16", split_sizes=[1, 1, 2], dim=-1, overload="out"),
                  dict(shape=[5, 6], dtype="int32", split_sizes=[2, 0, 3], dim=0),
                  dict(shape=[3, 8], dtype="bool", split_sizes=[5, 3], dim=1, overload="out")],
        "full": [dict(shape=s, split_sizes=z, dim=d, dtype=dt) for (s, z, d) in _SPLIT_SIZES_CASES
                 for dt in ("fp32", "fp16", "bf16")]
        + [dict(shape=s, split_sizes=z, dim=d, dtype=dt, overload="out") for (s, z, d) in _SPLIT_SIZES_CASES
           for dt in ("fp32", "fp16", "bf16")],
        "heldout": [dict(shape=[511, 257], dtype="fp32", split_sizes=[1, 255, 1], dim=1),
                    dict(shape=[7, 17, 31], dtype="fp16", split_sizes=[31], dim=2),
                    dict(shape=[40, 30], dtype="fp32", split_sizes=[10, 20, 10], dim=0, layout="transposed"),
                    dict(shape=[9, 12], dtype="fp32", split_sizes=[3, 0, 6], dim=0, layout="transposed",
                         overload="out")],
    },
    notes="aten.md §6b.7: every returned piece must alias the input with exactly PyTorch's sizes, strides and storage "
          "offset; upstream compared values only. .out cases copy (a Triton launch, L2 ghost replay). "
          "test_unsafe_split_with_sizes_out (27 cases) is untimed upstream, so "
          "only the 27 functional cases are timed. Smoke adds int32 (with an empty piece) and bool cases.",
).facts(counts=Counts(smoke=5, full=54, timed=27, heldout=4))


# ================================================================================================= diff
def _diff_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"), low=-50, high=50)
    kw: dict[str, Any] = {"n": p.get("n", 1), "dim": p.get("dim", -1)}
    for side in ("prepend", "append"):
        if side in p:
            kw[side] = make_tensor(p[side], p["dtype"], device, gen, low=-50, high=50)
    if p.get("overload") == "out":
        meta = torch.diff(torch.empty(p["shape"], dtype=dtype_of(p["dtype"]), device="meta"),
                          **{k: (torch.empty(v.shape, dtype=v.dtype, device="meta") if isinstance(v, torch.Tensor)
                                 else v) for k, v in kw.items()})
        kw["out"] = poisoned(meta.shape, p["dtype"], device)
        return AtenCase("torch.diff", [x], kw, ("out",))
    return AtenCase("torch.diff", [x], kw)


def _diff_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    # aten.md §3.1 ⚑: PyTorch rounds each difference to the dtype: fp16/bf16 reference on fp32 copies, fp32 on fp64.
    x = call.args[0]

    def up(v: torch.Tensor) -> torch.Tensor:
        return v.to(torch.float64) if v.dtype == torch.float32 else _fp32_of(v)

    kwargs = {k: (up(v) if isinstance(v, torch.Tensor) else v) for k, v in call.kwargs.items() if k != "out"}
    ref = torch.diff(up(x), **kwargs).to(x.dtype)
    return _out_or_return(call, ref, Tolerance())


def _diff_cost(p: dict[str, Any]) -> Cost:
    n = numel(p["shape"]) + sum(numel(p[s]) for s in ("prepend", "append") if s in p)
    return Cost(float(p.get("n", 1) * n), 2.0 * n * elem_bytes(p["dtype"]))


DIFF = ShapeOperator(
    "diff", category="pointwise stencil (composite)", exercised=["diff"],
    semantics="n-th forward difference along dim: out[i] = x[i+1] - x[i], applied n times (n >= 0), after "
              "concatenating prepend and append (matching self in every other dim) to self along dim; the size along "
              "dim becomes max(size + len(prepend) + len(append) - n, 0). bool inputs use logical xor; integers wrap; "
              "the result has self's dtype. diff.out writes into out. CompositeImplicit in PyTorch; the device-key "
              "registration intercepts it.",
    grids={
        "smoke": [dict(shape=[16], dtype="fp32", n=1, dim=-1),
                  dict(shape=[8, 16, 32], dtype="bf16", n=2, dim=0),
                  dict(shape=[8, 16], dtype="fp16", n=1, dim=-1, prepend=[8, 2], append=[8, 3]),
                  dict(shape=[6, 10], dtype="int32", n=2, dim=1, overload="out"),
                  dict(shape=[12], dtype="bool", n=3, dim=0)],
        "full": product(dtype=FLOAT3, dim=[0, -1], n=[1, 2], shape=[[16], [16, 32], [8, 16, 32]])
        + [dict(dtype=dt, shape=[8, 16], n=1, dim=-1, prepend=[8, 2], append=[8, 3]) for dt in FLOAT3],
        "heldout": [dict(shape=[511, 257], dtype="fp32", n=3, dim=0),
                    dict(shape=[7, 17, 31], dtype="fp16", n=2, dim=1, layout="transposed"),
                    dict(shape=[5, 4], dtype="fp32", n=6, dim=1),
                    dict(shape=[4, 9], dtype="int16", n=2, dim=1, prepend=[4, 1], overload="out")],
    },
    build=_diff_build, reference=_diff_ref, cost=_diff_cost, own_ops=frozenset({"diff"}),
    notes="aten.md §3.1 ⚑: PyTorch rounds every difference to the dtype; the fp16/bf16 reference is PyTorch on fp32 "
          "copies cast once (fp32: fp64 copies). Integer inputs are drawn in [-50, 50). Smoke adds int32 (.out) and "
          "bool cases.",
).facts(counts=Counts(smoke=5, full=39, timed=39, heldout=4))


# ================================================================================================= sort
def sort_indices_check(x: torch.Tensor, dim: int, ref_values: torch.Tensor,
                       slot: str) -> Callable[[Any, dict[str, Any]], SlotResult]:
    """The judge of sort indices where ties may come in any order (``stable=False``): the indices are
    int64 with the input's shape, each slice along ``dim`` is a permutation of ``0..n-1``, and the input
    gathered by them equals the reference values exactly (NaN where NaN). The values themselves are
    judged by their own slot against the same reference.

    Args:
        x: the input as given to the candidate.
        dim: the sorted dim.
        ref_values: PyTorch's sorted values.
        slot: the slot name for messages.
    """
    def check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
        rule = "indices: a permutation per slice that gathers the sorted values"
        if not isinstance(actual, torch.Tensor):
            return SlotResult(False, f"{slot}: expected a tensor, got {type(actual).__name__}", rule=rule)
        if actual.dtype != torch.int64:
            return SlotResult(False, f"{slot}: dtype {actual.dtype} != expected torch.int64", rule=rule)
        if tuple(actual.shape) != tuple(x.shape):
            return SlotResult(False, f"{slot}: shape {tuple(actual.shape)} != expected {tuple(x.shape)}", rule=rule)
        if x.numel() == 0:
            return SlotResult(True, rule=rule)
        xs = x.reshape(1) if x.dim() == 0 else x
        idx = actual.to(xs.device).reshape(xs.shape)
        d = dim % xs.dim()
        n = xs.shape[d]
        srt = torch.sort(idx, dim=d).values
        shape = [1] * xs.dim()
        shape[d] = n
        if not bool((srt == torch.arange(n, device=idx.device).view(shape)).all()):
            return SlotResult(False, f"{slot}: the indices are not a permutation of 0..{n - 1} along dim {dim}",
                              rule=rule)
        gathered = torch.gather(xs, d, idx)
        res = compare_values(gathered, ref_values.reshape(xs.shape), EXACT, 1.0, f"{slot} (input gathered by them)")
        return SlotResult(res.ok, res.message, res.max_abs, res.max_rel, rule)
    return check


def _same_tensor(a: Any, b: Any) -> bool:
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
            and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
            and a.storage_offset() == b.storage_offset() and a.shape == b.shape and a.stride() == b.stride())


def _returns_outs_check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
    """``sort.values*`` return ``(values, indices)``: the out arguments themselves."""
    kw = outputs.get("kwargs") or {}
    if (isinstance(actual, (list, tuple)) and len(actual) == 2 and _same_tensor(actual[0], kw.get("values"))
            and _same_tensor(actual[1], kw.get("indices"))):
        return SlotResult(True, rule="returns its out arguments")
    return SlotResult(False, "return: the call must return its out arguments (values, indices) themselves",
                      rule="returns its out arguments")


def _sort_input(p: dict[str, Any], device, gen) -> torch.Tensor:
    dt = dtype_of(p["dtype"])
    shape = p.get("shape", [p.get("batch", 1), p.get("hidden", 1)])
    if dt.is_floating_point:
        x = make_tensor(shape, dt, device, gen, layout=p.get("layout", "contig"))
        if "ties" in p:  # few distinct values: many ties
            x.copy_(torch.randint(-p["ties"], p["ties"], tuple(shape), generator=gen, device=device))
        if p.get("nan"):
            x.masked_fill_(torch.rand(tuple(shape), generator=gen, device=device) < p["nan"], float("nan"))
        return x
    lo, hi = p.get("range", (torch.iinfo(dt).min, torch.iinfo(dt).max))
    x = make_tensor(shape, dt, device, gen, layout=p.get("layout", "contig"), low=lo, high=hi)
    if p.get("poison_value"):  # 3 elements equal to the dtype's poison (tensors.INT_POISON) on every draw, so that
        # tests/bad/poison_int (a sort that never stores it) is caught whatever the secret inputs (~40% of draws before)
        spots = torch.zeros(x.numel(), dtype=torch.bool, device=device)
        spots[torch.randint(0, x.numel(), (3,), generator=gen, device=device)] = True
        x.masked_fill_(spots.view(x.shape), INT_POISON[dt])
    return x


def _sort_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = _sort_input(p, device, gen)
    desc = p.get("descending", False)
    ov = p.get("overload", "stable")
    if ov == "stable":
        return AtenCase("torch.sort", [x], {"dim": p["dim"], "stable": True, "descending": desc})
    if ov == "default":
        return AtenCase("torch.ops.aten.sort.default", [x, p["dim"], desc])
    outs = {"values": poison_(torch.empty(x.shape, dtype=x.dtype, device=device)),
            "indices": poison_(torch.empty(x.shape, dtype=torch.int64, device=device))}
    if ov == "values":
        return AtenCase("torch.ops.aten.sort.values", [x, p["dim"], desc], outs, ("values", "indices"))
    kw = {"stable": p.get("stable", True), "dim": p["dim"], "descending": desc, **outs}
    return AtenCase("torch.ops.aten.sort.values_stable", [x], kw, ("values", "indices"))


def _sort_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x = call.args[0]
    desc = p.get("descending", False)
    values, indices = torch.sort(x, dim=p["dim"], stable=True, descending=desc)
    ov = p.get("overload", "stable")
    stable = ov == "stable" or (ov == "values_stable" and p.get("stable", True))
    if ov in ("stable", "default"):
        vexp = Expected("return.0", values, EXACT)
        iexp = (Expected("return.1", indices, EXACT) if stable else
                Expected("return.1", indices, EXACT, check=sort_indices_check(x, p["dim"], values, "return.1")))
        return [vexp, iexp]
    vout, iout = call.kwargs["values"], call.kwargs["indices"]
    iexp = (written_expected("arg.indices", iout, indices, EXACT) if stable else
            Expected("arg.indices", indices, EXACT, check=sort_indices_check(x, p["dim"], values, "arg.indices")))
    return [written_expected("arg.values", vout, values, EXACT), iexp,
            Expected("return", None, EXACT, check=_returns_outs_check)]


def _sort_numel(p: dict[str, Any]) -> int:
    return numel(p.get("shape", [p.get("batch", 1), p.get("hidden", 1)]))


_SORT_ABSENT = {
    "dimname": "aten::sort.dimname(Tensor self, Dimname dim, bool descending=False) -> (Tensor values, Tensor indices)",
    "dimname_values": "aten::sort.dimname_values(Tensor self, Dimname dim, bool descending=False, *, Tensor(a!) "
                      "values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    "dimname_stable": "aten::sort.dimname_stable(Tensor self, *, bool? stable, Dimname dim, bool descending=False) "
                      "-> (Tensor values, Tensor indices)",
    "dimname_values_stable": "aten::sort.dimname_values_stable(Tensor self, *, bool? stable, Dimname dim, bool "
                             "descending=False, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, "
                             "Tensor(b!) indices)",
}

SORT = ShapeOperator(
    "sort", category="sort", exercised=["sort.stable"], absent=_SORT_ABSENT,
    semantics="Sorts along dim (default -1), ascending unless descending, and returns (values, int64 indices). NaN "
              "sorts above every number (last ascending, first descending); -0.0 and 0.0 are equal. stable=True keeps "
              "equal elements in their original order (ascending index, also when descending); without it the order "
              "of ties is unspecified. sort.values / sort.values_stable write into (values, indices) and return them. "
              "The JIT list forms sort Python lists in place; the Dimname forms are absent in PyTorch 2.13.",
    grids={
        "smoke": [dict(batch=4, hidden=256, dtype="fp32", dim=-1, descending=False),
                  dict(batch=8, hidden=2048, dtype="bf16", dim=-1, descending=True),
                  dict(batch=8, hidden=4099, dtype="int16", dim=0, descending=False, poison_value=True),
                  dict(batch=4, hidden=1, dtype="fp16", dim=-1, descending=False),
                  dict(shape=[6, 50], dtype="fp32", dim=1, descending=True, ties=4, overload="default"),
                  dict(shape=[40, 5], dtype="int32", dim=0, descending=False, range=(-3, 3), overload="values",
                       poison_value=True),
                  dict(shape=[3, 300], dtype="fp16", dim=-1, descending=True, nan=0.1, ties=8,
                       overload="values_stable")],
        "full": product(dim=[0, -1], dtype=["fp16", "fp32", "bf16", "int16", "int32"], descending=[True, False],
                        hidden=[1, 256, 2048, 9333, 65536, 32768, 131072, 262144], batch=[4, 8]),
        "heldout": [dict(batch=3, hidden=262145, dtype="fp32", dim=-1, descending=False),
                    dict(shape=[511, 257], dtype="int32", dim=0, descending=True),
                    dict(shape=[64, 300], dtype="fp32", dim=-1, descending=False, layout="transposed", nan=0.05,
                         ties=16, overload="default"),
                    dict(shape=[4, 20000], dtype="fp16", dim=-1, descending=True, ties=100, stable=True,
                         overload="values_stable"),
                    dict(shape=[2, 70000], dtype="int16", dim=1, descending=False, range=(-50, 50),
                         overload="values")],
    },
    build=_sort_build, reference=_sort_ref,
    cost=lambda p: Cost(0.0, _sort_numel(p) * (2 * elem_bytes(p["dtype"]) + 8)),
    own_ops=frozenset({"sort", "argsort", "msort"}),
    tolerance_text="values exact (NaN where NaN); indices (int64) exact where the sort is stable (torch.sort(..., "
                   "stable=True): every full-tier case); where it is not (sort, sort.values, sort.values_stable with "
                   "stable=False) each slice of indices must be a permutation of 0..n-1 that gathers the input into "
                   "the sorted values, so ties may come in any order.",
    notes="Values are exact; indices are exact where the sort is stable (every full-tier case: torch.sort(..., "
          "stable=True)) and judged as a per-slice permutation gathering the sorted values where it is not (sort, "
          "sort.values, sort.values_stable with stable=False). Floats are randn, integers randint over the dtype's "
          "full range (aten.md § aten::sort); the smoke and held-out tiers add tie-heavy and NaN inputs and the "
          "untested dispatcher overloads; the smoke tier's integer inputs hold a few elements equal to the poison "
          "value of their dtype on every draw.",
).facts(counts=Counts(smoke=7, full=320, timed=320, heldout=5))


# The rows' full-tier counts (Counts.full, Counts.timed): aten.md §1. bmm uses the pre-damage grid (same count,
# §6b.2); linear and matmul replace the 5184 baddbmm registry cases that never reach them by the sections' 27-case
# real grids (§6b.4); the splits' out tests are untimed upstream.
OPERATORS: list[AtenOperator] = [
    AFFINE_GRID_GENERATOR, BMM, DIFF, LINEAR, MATMUL, MM, ROT90, SORT, UNSAFE_SPLIT, UNSAFE_SPLIT_WITH_SIZES,
]

__all__ = ["OPERATORS", "ShapeOperator", "SplitOperator", "matmul_row", "sort_indices_check"]
