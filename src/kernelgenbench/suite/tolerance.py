"""Tolerances: the rtol/atol rule of a case and the accumulation bound (DESIGN.md "Correctness"; the spec's
§ tolerance sections of ``shared/spec/{aten,vllm,cublas}.md``), split from :mod:`.spec`, which re-exports every name
here. What a tolerance means element by element (the comparison itself) is :mod:`.compare`."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch

#: rtol by dtype (spec aten.md §3, vllm.md §2.3, cublas.md §2.8). Integers and bool are exact.
RTOL: dict[torch.dtype, float] = {
    torch.float16: 1e-3,
    torch.bfloat16: 1.6e-2,
    torch.float32: 1e-5,
    torch.float64: 1e-5,
    torch.complex32: 1e-3,
    torch.complex64: 1.3e-6,
    torch.complex128: 1e-6,
}

DTYPE_NAMES: dict[str, torch.dtype] = {
    "fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64,
    "c64": torch.complex64, "c128": torch.complex128,
    "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "bool": torch.bool,
}
DTYPE_SHORT = {v: k for k, v in DTYPE_NAMES.items()}


def dtype_of(name: str | torch.dtype) -> torch.dtype:
    """Resolve a short dtype name (``"fp16"``) or a :class:`torch.dtype` to a :class:`torch.dtype`.

    Raises:
        KeyError: the name is not one of :data:`DTYPE_NAMES`.
    """
    if isinstance(name, torch.dtype):
        return name
    return DTYPE_NAMES[name]


def is_exact_dtype(dtype: torch.dtype) -> bool:
    """True for integer and bool dtypes, which are always compared exactly."""
    return not (dtype.is_floating_point or dtype.is_complex)


#: Unit roundoff (half an ulp at 1) of the floating dtypes results are rounded to or accumulate in.
UNIT_ROUNDOFF: dict[torch.dtype, float] = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8,
                                           torch.float32: 2.0 ** -24, torch.float64: 2.0 ** -53}
#: The confidence factor of the accumulation bound (:func:`accumulation_allowance`).
ACCUMULATION_LAMBDA = 4.0


def accumulation_allowance(abs_sum: torch.Tensor, terms: int | torch.Tensor, acc: torch.dtype = torch.float32,
                           lam: float = ACCUMULATION_LAMBDA) -> torch.Tensor:
    """The elementwise absolute allowance of a result accumulated in ``acc`` (fp64 result, shaped
    like ``abs_sum``): ``lam * sqrt(n) * u * abs_sum + n * tiny``.

    Args:
        abs_sum: per result element, the sum of the absolute values of the terms it accumulates
            (``|A| @ |B|`` for a matrix product, ``sum |x|`` for a sum), computed in fp64.
        terms: n, the number of terms each element accumulates (an int, or a tensor broadcastable
            to ``abs_sum`` where it differs per element, as in a scan).
        acc: the accumulation dtype whose unit roundoff u and smallest normal ``tiny`` apply.
        lam: the confidence factor.
    """
    n = torch.as_tensor(terms, dtype=torch.float64, device=abs_sum.device)
    u = UNIT_ROUNDOFF[acc]
    out = lam * u * torch.sqrt(n) * abs_sum.to(torch.float64) + n * torch.finfo(acc).tiny
    return torch.nan_to_num(out, nan=math.inf)


def accumulation_text(n: str, terms: str, spec_atol: str = "1e-4 x n") -> str:
    """A row's atol in words under the accumulation rule (``kgb show``, prompts; :class:`Tolerance`;
    :func:`accumulation_rule` states the same per precision).

    Args:
        n: what n is for the row (``"K"``, ``"the number of reduced elements"``).
        terms: the row's sum of absolute terms (``"(|A| @ |B|)[i,j]"``; magnitudes for complex terms).
        spec_atol: the spec's atol, which caps the bound.
    """
    lam = f"{ACCUMULATION_LAMBDA:g}"
    return (f"for fp16/bf16/fp32 results, per element min({spec_atol}, {lam}*sqrt(n)*2^-24*{terms}) with n = {n} "
            f"(the accumulation bound: IEEE fp32 accumulation in any order, blocking or split passes it with a "
            f"wide margin; TF32, fp16 or bf16 rounding of fp32 operands, and fp16/bf16 accumulation, fail it where "
            f"the reduction is long enough to tell); complex64: the same with 4n under the root (two real "
            f"components of 2n products); fp64 and complex128: min({spec_atol}, 2*{lam}*sqrt(n)*2^-53*{terms}) "
            f"(4n for complex) with rtol {RTOL_FP64_ACCUMULATION_TEXT}, so that fp32 or TF32 arithmetic for an fp64 "
            f"result fails")


#: Why a row's tolerance is not the spec's (operator notes, ``kgb show``; README "Tolerance and
#: precision policy").
ACCUMULATION_NOTE = (
    "Tolerance (ours, not the spec's): atol = 1e-4 x {n} (aten.md §3) grows linearly with the reduction "
    "while an honest fp32 accumulation's error grows far slower, so fp32 results computed from TF32- or "
    "fp16-rounded operands passed from K ~ 256 (an mm case of 15x160x1024 with max relative error 0.63). "
    "fp16/bf16/fp32 results are judged by the accumulation bound instead, never looser than the spec's atol; "
    "measured on this row's cases (bench/precision_bound.py): natural fp32 orders stay below 0.1 of it and the "
    "worst order constructed below 0.25, reduced-precision variants exceed it where the reduction is long enough "
    "to tell (README \"Tolerance and precision policy\").")


#: rtol of fp64 and complex128 results under the accumulation rule: 8 units of fp64 roundoff (the final
#: rounding, a scaling by alpha and an added beta term, on either side: candidate and fp64 reference).
RTOL_FP64_ACCUMULATION = 8 * 2.0 ** -53
#: :data:`RTOL_FP64_ACCUMULATION` in words, as :func:`accumulation_text` and :func:`stated_rtol` write it.
RTOL_FP64_ACCUMULATION_TEXT = "8*2^-53"


def sci(v: float) -> str:
    """A tolerance in short scientific notation: 1e-5, 1.6e-2, 1.3e-6."""
    m, e = f"{v:e}".split("e")
    return f"{m.rstrip('0').rstrip('.')}e{int(e)}"


def stated_rtol(dtype: torch.dtype, atol_text: str, fmt: Callable[[float], str] = sci) -> str:
    """The rtol the verdict applies to results of ``dtype``, in words, for a row whose atol reads ``atol_text``
    (:attr:`~kernelgenbench.suite.spec.Operator.shown_atol`): under the accumulation rule (the row's atol is
    :func:`accumulation_text`'s), :data:`RTOL_FP64_ACCUMULATION_TEXT` for fp64 and complex128 results
    (:func:`accumulation_rule`); otherwise ``RTOL[dtype]`` written by ``fmt``. ``kgb show`` and the prompts state
    each dtype's rtol through this function, so that they state the same value (fresh user 44: both said "fp64
    1e-5" for cublasDgemv_v2, whose atol then said "with rtol 8*2^-53", the value applied)."""
    if dtype in (torch.float64, torch.complex128) and f"with rtol {RTOL_FP64_ACCUMULATION_TEXT}" in atol_text:
        return RTOL_FP64_ACCUMULATION_TEXT
    return fmt(RTOL[dtype])


def accumulation_rule(dtype: torch.dtype, abs_sum: torch.Tensor | None, terms: int | torch.Tensor,
                      reduce_dim: int) -> tuple["Tolerance", torch.Tensor | None]:
    """The tolerance and elementwise allowance of a result of ``dtype`` that accumulates ``terms``
    terms per element (README "Tolerance and precision policy"; :class:`Tolerance`).

    fp16, bf16 and fp32 results: the accumulation rule in fp32 (fp16/bf16 inputs accumulate in fp32;
    fp32 inputs in IEEE fp32, without rounding operands to TF32, fp16 or bf16). complex64 results: the same
    per real component, each summing 2n real products (the allowance bounds the error's magnitude:
    ``terms`` x 4 under the square root). fp64 and complex128 results: the rule in fp64 (u = 2^-53), twice
    over (the fp64 reference rounds too), with rtol :data:`RTOL_FP64_ACCUMULATION` instead of the spec's
    1e-5, which an fp32 or TF32 computation of an fp64 routine passed (red team 2026-12-05:
    tests/bad/fp32_for_fp64, tf32_complex). Every allowance is capped by the spec's
    ``atol = 1e-4 × reduce_dim`` (the rule only ever tightens the spec). Integers, bools and other dtypes:
    :class:`Tolerance`'s default rule (exact for integers).

    Args:
        dtype: the result's dtype.
        abs_sum: per element, the fp64 sum of absolute terms (magnitudes for complex terms; None where the
            dtype takes no allowance).
        terms: n, the number of terms per element (int, or a tensor broadcastable to ``abs_sum``):
            every operand product or element, plus one per scaling or added term (alpha, beta, bias).
        reduce_dim: the spec's reduce_dim (its atol is ``1e-4 × reduce_dim``).

    Returns:
        ``(tolerance, atol_extra)``: ``atol_extra`` is None for the default rule.
    """
    reduce_dim = max(1, int(reduce_dim))
    if abs_sum is None:
        return Tolerance(reduce_dim=reduce_dim), None
    if dtype in (torch.float16, torch.bfloat16, torch.float32, torch.complex64):
        acc, n, factor = torch.float32, terms, 1.0
    elif dtype in (torch.float64, torch.complex128):
        acc, n, factor = torch.float64, terms, 2.0
    else:
        return Tolerance(reduce_dim=reduce_dim), None
    if dtype.is_complex:
        n = terms * 4
    allowance = torch.clamp(factor * accumulation_allowance(abs_sum, n, acc), max=1e-4 * reduce_dim)
    if acc == torch.float64:
        return Tolerance(reduce_dim=reduce_dim, accumulate="fp64", rtol=RTOL_FP64_ACCUMULATION), allowance
    return Tolerance(reduce_dim=reduce_dim, accumulate="fp32"), allowance


#: rtol of fp32 results under the loss-reduction bound: 8 units of fp32 roundoff (the final rounding, the mean's
#: division and a term's own rounding, on either side).
RTOL_FP32_LOSS = 8 * 2.0 ** -24

#: The factor on the per-element error of PyTorch's own fp32 terms in the loss-reduction bound: another honest
#: formula of a term (a stable softplus, exp2/log2) may err a few times more than PyTorch's.
LOSS_TERM_FACTOR = 4.0


def loss_reduction_rule(dtype: torch.dtype, ref: torch.Tensor, abs_sum: torch.Tensor, term_err: torch.Tensor,
                        n: int, mean: bool) -> tuple["Tolerance", torch.Tensor | None]:
    """The tolerance and allowance of a loss reduced to its mean or sum (README "Tolerance and precision policy",
    the loss-reduction bound; red team 31 tests/bad/fp16_terms): for fp32 and fp64 results, the smaller of the
    spec's ``rtol[dtype]·|ref| + 1e-4`` and

        8·u·|ref| + 4·sqrt(n)·u·Σ|t_i| + 4·Σ|t_i - t_i'|        (divided by n for a mean)

    with u the result dtype's unit roundoff (fp64: twice the accumulation term), ``t_i`` the n loss terms in fp64 and
    ``t_i'`` PyTorch's own terms in the result dtype: the error of an accumulation in that dtype in any order of terms
    computed about as well as PyTorch computes them. The loss terms are all of one sign, so ``|ref| = Σ|t_i|``, and
    the spec's ``rtol·|ref|`` alone let terms rounded to fp16 (2^-11 relative, errors averaging out in the sum)
    pass fp32 sums. Other dtypes keep the spec's rule.

    Args:
        dtype: the result's dtype.
        ref: the reference result (fp64 or the result dtype).
        abs_sum: Σ|t_i| in fp64 (shaped like ``ref``).
        term_err: Σ|t_i - t_i'| in fp64 (shaped like ``ref``).
        n: the number of terms.
        mean: the result is a mean (the sums are divided by n).
    """
    if dtype not in (torch.float32, torch.float64):
        return Tolerance(reduce_dim=1), None
    u = UNIT_ROUNDOFF[dtype]
    factor, rtol = (1.0, RTOL_FP32_LOSS) if dtype == torch.float32 else (2.0, RTOL_FP64_ACCUMULATION)
    scale = 1.0 / max(1, n) if mean else 1.0
    r = ref.to(torch.float64).abs()
    bound = (rtol * r + factor * ACCUMULATION_LAMBDA * math.sqrt(max(1, n)) * u * abs_sum.to(torch.float64) * scale
             + LOSS_TERM_FACTOR * term_err.to(torch.float64) * scale)
    spec = RTOL.get(dtype, 1e-5) * r + 1e-4
    extra = torch.nan_to_num(torch.clamp(torch.minimum(bound, spec) - rtol * r, min=0.0), nan=math.inf)
    text = (f"min(rtol[{DTYPE_SHORT.get(dtype, dtype)}]*|ref| + 1e-4, {rtol:.3g}*|ref| + "
            f"{factor * ACCUMULATION_LAMBDA:g}*sqrt(n)*u*sum|t| + {LOSS_TERM_FACTOR:g}*sum|t - t_pytorch|)"
            f"{' / n' if mean else ''} (the loss-reduction bound, n={n}, u=2^{int(math.log2(u))})")
    return Tolerance(reduce_dim=1, rtol=rtol, accumulate="fp64" if dtype == torch.float64 else "fp32",
                     bound_text=text), extra


#: The softmax bound's terms besides |x - max| (README "Tolerance and precision policy"): 2 sqrt(n) for the row sum
#: (any fp32 order, as the accumulation bound counts it) and 16 units for exp, the division and a rescaling.
SOFTMAX_BOUND_CONST = 16.0


def softmax_terms(src: torch.Tensor, dim: int) -> torch.Tensor:
    """Per element of ``softmax(src, dim)``, ``(|x - max| + 2·sqrt(n) + 16)·p`` in fp64 (0 where p is 0): the softmax
    bound's "sum of terms", of which an honest fp32 softmax in any summation order errs by a few units of roundoff
    (:func:`kernelgenbench.suite.aten.reduction.softmax_rule`; the vLLM routing rows, :func:`rounding_rule`)."""
    x = src.to(torch.float64)
    n = x.shape[dim] if x.dim() else 1
    p64 = torch.softmax(x, dim=dim)
    z = (x - x.amax(dim=dim, keepdim=True)).abs()
    return torch.where(p64 > 0, (torch.nan_to_num(z, nan=0.0, posinf=0.0) + 2.0 * math.sqrt(n)
                                 + SOFTMAX_BOUND_CONST) * p64, torch.zeros_like(p64))


#: The confidence factor of the small-result bounds (:func:`rounding_rule`): the allowance is this many units of
#: fp32 roundoff times a row's sum of rounding terms, as the accumulation bound's :data:`ACCUMULATION_LAMBDA`.
ROUNDING_LAMBDA = 4.0


def rounding_rule(ref: torch.Tensor, terms: torch.Tensor | None, text: str, reduce_dim: int = 1,
                  points: torch.Tensor | None = None) -> tuple["Tolerance", torch.Tensor | None]:
    """The tolerance of an fp32 result whose honest rounding error is at most ``4·u·terms`` per element (README
    "Tolerance and precision policy", the rounding bound; red team 32 R2: tests/bad/bf16_scale, fp16_weights,
    fp16_out), in the loss-reduction bound's form: per element the smaller of the spec's ``rtol·|ref| + 1e-4 ×
    reduce_dim`` and ``4·2^-24·terms``, never below ``rtol·|ref|``. ``terms`` is the row's analytic count of
    roundings weighted by the magnitudes they scale (fp64, shaped like ``ref``): ``c·|ref|`` for a result computed
    with a relative error of c units (then only the spec's rtol applies wherever ``4·c·u <= rtol``); for a weighted
    sum, the accumulation term ``sqrt(n)·Σ|w_i v_i|``. The spec's absolute ``atol = 1e-4`` let fp32 results of
    magnitude << 1 (quantisation scales, routing weights, attention outputs) rounded to fp16 or bf16 pass. Other
    dtypes than fp32, and ``terms`` None: the spec's rule (an fp16/bf16 result's own rounding is what its rtol
    admits), with ``points`` as its extra.

    Args:
        ref: the reference result (its dtype picks the rule).
        terms: per element, the fp64 sum of rounding terms (``4·2^-24·terms`` is the analytic bound).
        text: ``terms`` in words, written into the record (:attr:`Tolerance.bound_text`).
        reduce_dim: the spec's reduce_dim (its atol is ``1e-4 × reduce_dim``).
        points: an elementwise allowance for the spec's rounding points (fp64, shaped like ``ref``), added
            outside the minimum as the spec's rule adds it to its atol (:attr:`Expected.atol_extra`).

    Returns:
        ``(tolerance, atol_extra)``.
    """
    reduce_dim = max(1, int(reduce_dim))
    if ref.dtype != torch.float32 or terms is None:
        return Tolerance(reduce_dim=reduce_dim), points
    u = UNIT_ROUNDOFF[torch.float32]
    rtol = RTOL[torch.float32]
    r = ref.to(torch.float64).abs()
    spec = rtol * r + 1e-4 * reduce_dim
    bound = torch.nan_to_num(ROUNDING_LAMBDA * u * terms.to(torch.float64), nan=math.inf)
    extra = torch.nan_to_num(torch.clamp(torch.minimum(bound, spec) - rtol * r, min=0.0), nan=math.inf)
    if points is not None:
        extra = extra + points.to(torch.float64)
    return Tolerance(reduce_dim=reduce_dim, accumulate="fp32",
                     bound_text=f"max(rtol[fp32]*|ref|, min(rtol[fp32]*|ref| + 1e-4*{reduce_dim}, "
                                f"{ROUNDING_LAMBDA:g}*2^-24*({text})))"
                                f"{' + the spec rounding points' if points is not None else ''} (the rounding "
                                f"bound of an honest fp32 computation in any order; rtol[fp32]={rtol:g})"), extra


def rounding_text(terms: str, spec_atol: str = "1e-4") -> str:
    """A row's atol in words under :func:`rounding_rule` (``kgb show``, prompts).

    Args:
        terms: the row's T in words (the allowance is ``4*2^-24*T``).
        spec_atol: the spec's atol, which caps it.
    """
    return (f"min({spec_atol}, max(0, 4*2^-24*T - rtol*|ref|)) per element for fp32 results, T = {terms} (the "
            f"rounding bound of an honest fp32 computation in any order, README \"Tolerance and precision policy\": "
            f"fp16/bf16-rounded fp32 results fail it), and the spec's {spec_atol} for other result dtypes")


@dataclass(frozen=True)
class Tolerance:
    """How a value is compared with its reference (DESIGN.md "Tolerance").

    The default rule is ``rtol = RTOL[dtype]`` and ``atol = 1e-4 × reduce_dim``, where
    ``reduce_dim`` is the reduction length (1 for pointwise). Integer, bool and index outputs, and
    anything with ``exact=True``, must match bit for bit (``-0.0 == 0.0`` aside).

    The accumulation rule (``accumulate="fp32"``: matrix products, sums and scans with fp16, bf16 or
    fp32 results; README "Tolerance and precision policy") tightens ``1e-4 × reduce_dim`` to an
    elementwise allowance that scales like the rounding error of an IEEE accumulation in that dtype,
    in any order:
    ``|out - ref| <= rtol·|ref| + min(lam·sqrt(n)·u·sum|terms|, 1e-4 × reduce_dim) + s``, where
    ``n`` is the number of terms an element accumulates, ``u`` the accumulation dtype's unit
    roundoff, ``sum|terms|`` the element's sum of absolute terms (``|A| @ |B|`` for a matrix product,
    computed in fp64 by the reference) and ``s`` one subnormal step of the compared dtype. The
    allowance travels with the reference as :attr:`Expected.atol_extra`
    (:func:`accumulation_allowance`); :func:`accumulation_rule` picks the rule for a result dtype.

    Attributes:
        exact: compare with rtol = atol = 0.
        reduce_dim: the accumulation length that scales atol.
        rtol: an override of the dtype's rtol (the spec section says why).
        atol: an override of the atol formula.
        equal_nan: NaN in the same positions counts as equal (positions must always match).
        accumulate: the accumulation dtype (``"fp32"``) of the accumulation rule, which tightens the
            atol formula; None for the default rule.
    """

    exact: bool = False
    reduce_dim: int = 1
    rtol: float | None = None
    atol: float | None = None
    equal_nan: bool = True
    accumulate: str | None = None
    #: the accumulation rule's bound in words, where a row's bound is not :func:`accumulation_allowance`'s
    #: (:func:`loss_reduction_rule`); None: that one
    bound_text: str | None = None

    def resolve(self, dtype: torch.dtype, scale: float = 1.0) -> tuple[float, float, str]:
        """Return ``(rtol, atol, rule)`` for values of ``dtype``.

        Args:
            dtype: the dtype of the compared tensor.
            scale: a platform profile's tolerance scale (1.0 on NVIDIA and the interpreter).

        Returns:
            rtol, atol and a short text naming the rule applied (written into the record).
        """
        if self.exact or is_exact_dtype(dtype):
            return 0.0, 0.0, "exact"
        rtol = self.rtol if self.rtol is not None else RTOL.get(dtype, 1e-5)
        if self.accumulate is not None:
            acc = dtype_of(self.accumulate)
            # the allowance itself is elementwise (Expected.atol_extra); atol is one subnormal step of
            # the compared dtype (a result rounded into the subnormal range; complex: of its real type)
            fi = torch.finfo(dtype.to_real() if dtype.is_complex else dtype)
            rule = (f"rtol[{DTYPE_SHORT.get(dtype, dtype)}]={rtol:g} + accumulation bound "
                    f"min({ACCUMULATION_LAMBDA:g}*sqrt(n)*u*sum|terms|, 1e-4*{max(1, self.reduce_dim)}) "
                    f"(n terms per element, u=2^{int(math.log2(UNIT_ROUNDOFF[acc]))}: {self.accumulate} accumulation)")
            if self.bound_text is not None:
                rule = self.bound_text
            if scale != 1.0:
                rule += f" x{scale:g} (platform)"
            return rtol * scale, fi.tiny * fi.eps, rule
        atol = self.atol if self.atol is not None else 1e-4 * max(1, self.reduce_dim)
        rule = f"rtol={rtol:g} atol={atol:g}"
        if self.rtol is None and self.atol is None:
            rule = f"rtol[{DTYPE_SHORT.get(dtype, dtype)}]={rtol:g} atol=1e-4*{max(1, self.reduce_dim)}"
        if scale != 1.0:
            rule += f" x{scale:g} (platform)"
        return rtol * scale, atol * scale, rule


EXACT = Tolerance(exact=True)
#: :attr:`Operator.atol_text` of operators whose floating results are all compared exactly.
EXACT_ATOL = "none: floating results are compared exactly (bit for bit; -0.0 equals 0.0, NaN positions must match)"
#: The atol shown for an operator without :attr:`Operator.atol_text`: every case judges with reduce_dim 1.
ATOL_REDUCE_DIM_1 = ("1e-4 on every case (the spec's atol is 1e-4 x the accumulation length reduce_dim, which it sets "
                     "to 1 for this operator)")
#: :attr:`Operator.tolerance_text` of operators compared bit for bit.
EXACT_TEXT = ("exact: results must equal PyTorch's bit for bit (-0.0 equals 0.0; NaN positions must match); "
              "no rtol/atol")
