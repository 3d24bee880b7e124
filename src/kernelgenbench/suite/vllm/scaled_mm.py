"""vLLM W8A8 quantisation and scaled GEMMs (vllm.md §3: scaled_fp8_quant, cutlass_scaled_mm, cutlass_scaled_mm_azp).

References are pure PyTorch written from the spec: the E4M3 conversion saturates (NaN -> +448, the CUDA
``fmaxf/fminf`` clamp) and rounds to nearest even; the GEMMs' integer part is exact (an fp64 matmul of int8 values
is exact: every partial sum is an integer below 2^53), then the fp32 epilogue follows the spec's rounding points
(``u = rd32(sb * float(acc))``, ``v = rd32(sa * u)`` or one fused multiply-add with the bias, emulated exactly by
a round-to-odd fp64 sum)."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..compare import SlotResult, unravel
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, Tolerance, dtype_of, product
from .common import baseline, baseline_label, esize, rows_view, true_div

#: The largest finite E4M3 (float8_e4m3fn) value; conversions saturate to +-E4M3_MAX.
E4M3_MAX = 448.0
#: The smallest per-token scale of the dynamic per-token fp8 quantizer, 1 / (448 * 512) (vllm.md § scaled_fp8_quant).
FP8_MIN_SCALE = 1.0 / (E4M3_MAX * 512.0)


# ------------------------------------------------------------------------------------------- E4M3 helpers
def e4m3(v: torch.Tensor) -> torch.Tensor:
    """``E4M3(clamp(v, -448, 448))`` of an fp32 tensor as float8_e4m3fn (vllm.md §2.2): NaN becomes +448 (CUDA's
    ``fmaxf(-448, fminf(v, 448))``), then one round to nearest even (subnormals included; -0 stays -0).

    Raises:
        ValueError: v is not fp32.
    """
    if v.dtype != torch.float32:
        raise ValueError(f"vllm::scaled_fp8_quant: E4M3 conversion takes fp32 values, got {v.dtype}")
    v = torch.where(torch.isnan(v), torch.full_like(v, E4M3_MAX), v)
    return v.clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)


def _wrong_shape(slot: str, actual: Any, ref: torch.Tensor, rows: int) -> SlotResult | None:
    """The failure of a result that is not a tensor of ``ref``'s dtype shaped ``[rows, *ref.shape[1:]]``, or None."""
    want = (rows, *ref.shape[1:])
    if isinstance(actual, torch.Tensor) and actual.dtype == ref.dtype and tuple(actual.shape) == want:
        return None
    return SlotResult(False, f"{slot}: expected {ref.dtype} {list(want)}, got "
                             f"{getattr(actual, 'dtype', type(actual).__name__)} {list(getattr(actual, 'shape', []))}")


def _fp8_values_check(slot: str, ref: torch.Tensor, rows: int) -> Any:
    """A judge for an fp8 result of ``ref``'s dtype whose shape must be ``[rows, N]`` (``rows >= ref.shape[0]``:
    padding rows are unspecified) and whose first ``ref.shape[0]`` rows must equal ``ref`` exactly as values
    (the upstream test compares after conversion to fp16: -0 equals +0)."""
    def check(actual: Any, out: dict[str, Any]) -> SlotResult:
        wrong = _wrong_shape(slot, actual, ref, rows)
        if wrong is not None:
            return wrong
        a = actual[: ref.shape[0]].to(ref.device).float()
        r = ref.float()
        bad = (a != r) & ~(torch.isnan(a) & torch.isnan(r))
        if bool(bad.any()):
            i = int(torch.nonzero(bad.flatten())[0])
            return SlotResult(False, f"{slot}: {int(bad.sum())} of {r.numel()} fp8 values differ (exact comparison "
                                     f"of the first {ref.shape[0]} rows); first at {unravel(i, tuple(r.shape))}: got "
                                     f"{a.flatten()[i].item()!r}, expected {r.flatten()[i].item()!r}",
                              rule="fp8 exact (as values)")
        return SlotResult(True, rule="fp8 exact (as values)")
    return check


def _rows_check(slot: str, ref: torch.Tensor, rows: int, tol: Tolerance) -> Any:
    """A judge for an fp32 ``[rows, ...]`` result whose first ``ref.shape[0]`` rows are compared with ``ref``
    under ``tol`` (the rest are padding, left unwritten)."""
    from ..compare import compare_values

    def check(actual: Any, out: dict[str, Any]) -> SlotResult:
        wrong = _wrong_shape(slot, actual, ref, rows)
        if wrong is not None:
            return wrong
        return compare_values(actual[: ref.shape[0]], ref, tol, what=slot)
    return check


def _same_object(slot: str, arg: int) -> Any:
    """A judge that wants the very tensor passed as argument ``arg`` back (the static path returns its scale)."""
    def check(actual: Any, out: dict[str, Any]) -> SlotResult:
        target = (out.get("args") or [None] * (arg + 1))[arg]
        ok = (isinstance(actual, torch.Tensor) and isinstance(target, torch.Tensor)
              and actual.untyped_storage().data_ptr() == target.untyped_storage().data_ptr()
              and actual.shape == target.shape)
        return SlotResult(ok, "" if ok else f"{slot}: the static path must return the given scale (arg.{arg}) "
                                            f"itself; got {type(actual).__name__}")
    return check


# ------------------------------------------------------------------------------------------ scaled_fp8_quant
def fp8_quant_native(x: torch.Tensor, scale: torch.Tensor | None = None, num_token_padding: int | None = None,
                     scale_ub: torch.Tensor | None = None, use_per_token_if_dynamic: bool = False,
                     output: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``scaled_fp8_quant``'s ``(out, scale)`` (vllm.md § scaled_fp8_quant), fp32 throughout:

    * static (``scale`` given): ``q = E4M3(x * rd32(1/scale))``; the given ``scale`` object is returned;
    * dynamic per-tensor: ``s = max|x| / 448`` (IEEE division; 0 for an all-zero input, whose ``x * (1/0)`` is
      ``0 * inf = NaN`` and so saturates to +448), ``q = E4M3(x * rd32(1/s))``; ``s`` is fp32 ``[1]``;
    * dynamic per-token: ``s_m = max(min(max_j |x_mj|, scale_ub[0]) / 448, 1/(448*512))``,
      ``q = E4M3(x / s_m)`` (true division); scales fp32 ``[rows, 1]``.

    ``out`` is float8_e4m3fn ``[rows, N]`` with ``rows = max(num_token_padding, M)`` when ``num_token_padding`` is
    truthy, else M (or ``output``); rows >= M are zero here (the op leaves them unwritten).

    Raises:
        ValueError: x is not 2-D, a static scale has more than one element, or output is combined with padding.
    """
    if x.dim() != 2:
        raise ValueError(f"vllm::scaled_fp8_quant: input must be 2-D [M, N], got {list(x.shape)}")
    m, n = x.shape
    rows = max(int(num_token_padding), m) if num_token_padding else m
    if output is not None and num_token_padding is not None:
        raise ValueError("vllm::scaled_fp8_quant: output and num_token_padding cannot both be given")
    xf = x.float()
    if scale is not None:
        if scale.numel() != 1:
            raise ValueError(f"vllm::scaled_fp8_quant: a static scale has one element, got {list(scale.shape)}")
        s = scale.reshape(()).float()
        v = xf * (torch.ones_like(s) / s)
        s_out = scale
    elif use_per_token_if_dynamic:
        a = xf.abs().amax(-1, keepdim=True) if n else torch.zeros((m, 1), device=x.device)
        if scale_ub is not None:
            a = torch.minimum(a, scale_ub.reshape(-1)[0].float())
        s = torch.clamp(true_div(a, E4M3_MAX), min=FP8_MIN_SCALE)
        v = xf / s
        s_out = torch.cat([s, s.new_zeros((rows - m, 1))]) if rows > m else s
    else:
        a = xf.abs().amax().reshape(1) if xf.numel() else torch.zeros(1, device=x.device)
        s = true_div(a, E4M3_MAX)
        v = xf * (torch.ones_like(s) / s)
        s_out = s
    if output is not None:
        output[:m] = e4m3(v)
        return output, s_out
    # padding rows (unwritten by the op) are zero here; they are padded before the one fp8 conversion
    return e4m3(torch.cat([v, v.new_zeros((rows - m, n))]) if rows > m else v), s_out


def _fq_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    m, n = p["shape"]
    x = rows_view([m, n], p["dtype"], device, gen, pad=p.get("row_pad", 0))
    if p.get("outlier"):
        x[m // 2, n // 3] = p["outlier"]
        x[m - 1, n - 1] = -p["outlier"]
    if p.get("zero_row") is not None:
        x[p["zero_row"]] = 0
    if p.get("zero"):
        x.zero_()
    kind = p["scale_kind"]
    if kind == "dynamic":
        scale = None
    elif kind == "per_tensor":  # upstream: a 0-D tensor holding 1.0
        scale = torch.tensor(p.get("scale", 1.0), dtype=torch.float32, device=device)
    elif kind == "group_2d_1x1":  # upstream: rand(1, 1) + 0.5
        scale = torch.rand((1, 1), generator=gen, device=device, dtype=torch.float32) + 0.5
    else:
        raise ValueError(f"vllm::scaled_fp8_quant: unknown scale kind {kind!r}")
    per_token = bool(p["per_token"])
    ub = None
    if scale is None and per_token and p.get("scale_ub"):
        if p["scale_ub"] == "rowwise":  # upstream: rand(M) + 0.5, of which only element 0 is read
            ub = torch.rand((m,), generator=gen, device=device, dtype=torch.float32) + 0.5
        else:
            ub = torch.tensor([float(p["scale_ub"])], dtype=torch.float32, device=device)
    return Call([x, scale, p.get("padding"), ub, per_token])


def _fq_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, scale, pad, ub, per_token = call.args
    m = x.shape[0]
    out, s = fp8_quant_native(x, scale, pad, ub, per_token)
    rows = out.shape[0]
    exp = [Expected("return.0", out[:m], Tolerance(exact=True), check=_fp8_values_check("return.0", out[:m], rows))]
    if scale is not None:
        exp.append(Expected("return.1", scale, Tolerance(exact=True), check=_same_object("return.1", 1)))
    elif per_token:
        tol = Tolerance(rtol=1e-5, atol=0.0)
        exp.append(Expected("return.1", s[:m], tol, check=_rows_check("return.1", s[:m], rows, tol)))
    else:
        exp.append(Expected("return.1", s, Tolerance(rtol=1e-5, atol=0.0)))
    return exp


def _fq_grid() -> list[dict[str, Any]]:
    """The upstream product (540 cases): shape x dtype x padding x scale kind x per_token x scale_ub."""
    return product(shape=[[1, 32], [71, 497], [128, 512], [1024, 4096], [5333, 8192]], dtype=["fp16", "bf16", "fp32"],
                   padding=[None, 0, 64], scale_kind=["dynamic", "per_tensor", "group_2d_1x1"], per_token=[False, True],
                   scale_ub=[None, "rowwise"])


SCALED_FP8_QUANT = FunctionOperator(
    "scaled_fp8_quant", source="vllm", category="quantization", section="vllm.md § vllm::scaled_fp8_quant",
    semantics="x = float(input) [M, N]; E4M3(v) = round to nearest even to float8_e4m3fn of clamp(v, -448, 448), "
              "NaN -> +448. Static (scale given, one element): q = E4M3(x * rd_fp32(1/scale)), returns the given "
              "scale object. Dynamic per-tensor (scale None, use_per_token_if_dynamic False): s = max|x| / 448 "
              "(IEEE division, over the whole input, no lower bound), q = E4M3(x * rd_fp32(1/s)), returns fp32 [1] "
              "(an all-zero input: s = 0, x * inf = NaN -> +448). Dynamic per-token: s_m = max(min(max_j |x_mj|, "
              "scale_ub[0]) / 448, 1/(448*512)) (no min without scale_ub), q = E4M3(x / s_m) (true division), "
              "returns fp32 [rows, 1]. out is float8_e4m3fn [rows, N], rows = max(num_token_padding, M) if "
              "num_token_padding is truthy else M; rows >= M of out and of the per-token scales are left "
              "unwritten. Returns (out, scale).",
    interface=Interface(
        function="scaled_fp8_quant",
        params=("input", "scale", "num_token_padding", "scale_ub", "use_per_token_if_dynamic", "output"),
        defaults={"scale": None, "num_token_padding": None, "scale_ub": None, "use_per_token_if_dynamic": False,
                  "output": None},
        returns="(out float8_e4m3fn [rows, N], scale)",
        args_doc={"input": "fp16/bf16/fp32 [M, N], last dim contiguous (its row stride is honoured)",
                  "scale": "None (dynamic) or fp32 with exactly one element, any shape (0-D, [1, 1]): static",
                  "num_token_padding": "None or int; truthy: out (and per-token scales) get max(it, M) rows",
                  "scale_ub": "None or fp32 tensor (element 0 is the upper bound of the row max; dynamic per-token "
                              "only)",
                  "use_per_token_if_dynamic": "bool: dynamic per-token instead of per-tensor",
                  "output": "None or a preallocated float8_e4m3fn [M, N] to write (then num_token_padding is None; "
                            "not used by the graded cases)"}),
    grids={
        "smoke": [
            dict(shape=[3, 40], dtype="fp16", padding=None, scale_kind="per_tensor", scale=0.5, per_token=False,
                 scale_ub=None),
            dict(shape=[5, 33], dtype="bf16", padding=None, scale_kind="dynamic", per_token=False, scale_ub=None,
                 outlier=1000.0),
            dict(shape=[4, 64], dtype="fp32", padding=8, scale_kind="dynamic", per_token=True, scale_ub=2.0),
        ],
        "full": _fq_grid(),
        "heldout": [
            dict(shape=[4096, 7168], dtype="bf16", padding=None, scale_kind="dynamic", per_token=True, scale_ub=None,
                 zero_row=3),
            dict(shape=[33, 14336], dtype="fp16", padding=None, scale_kind="per_tensor", scale=0.0625,
                 per_token=False, scale_ub=None, row_pad=64),
            dict(shape=[17, 4096], dtype="fp32", padding=32, scale_kind="dynamic", per_token=False, scale_ub=None,
                 zero=True),
        ],
    },
    build=_fq_build, reference=_fq_ref,
    cost=lambda p: Cost(3.0 * p["shape"][0] * p["shape"][1],
                        p["shape"][0] * p["shape"][1] * (esize(p["dtype"]) + 1) + 4 * p["shape"][0]),
    timed=lambda p: p["shape"][0] >= 1024,
    baseline=baseline("scaled_fp8_quant", lambda c: fp8_quant_native(*c.args)), label=baseline_label,
    dtypes=lambda p: {dtype_of(p["dtype"]), torch.float8_e4m3fn},
    atol_text="0 for the fp8 output (exact as values, -0 equal to +0; first M rows) and for the fp32 scales, which "
              "take rtol 1e-5 only",
    notes="Every case writes fp8. Full tier: "
          "the upstream product (540 cases, many duplicates: static kinds ignore per_token and scale_ub; scale_ub is "
          "passed only in dynamic per-token mode, as upstream). All operations are IEEE-exact, so fp8 outputs are "
          "compared exactly as values (-0 equals +0, the upstream fp16 comparison), scales with rtol 1e-5; only the "
          "first M rows are compared (padding rows are unspecified). Held-out: an all-zero row in per-token mode (the "
          "minimum scale 1/(448*512), q = 0) and an all-zero input in per-tensor mode (scale 0; every x * (1/0) = "
          "0 * inf is NaN, which the clamp maps to +448: every output is 448, as vLLM's kernel gives).",
)


# ----------------------------------------------------------------------------------- cutlass_scaled_mm(_azp)
def _wrap32(v: torch.Tensor) -> torch.Tensor:
    """int64 values wrapped to int32 two's complement (still int64)."""
    return ((v + 2 ** 31) % 2 ** 32) - 2 ** 31


def fma32(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``rd_fp32(a * b + c)`` with one rounding, for fp32-representable operands (fp32 result): the product is
    exact in fp64 (24 + 24 significant bits); the sum is computed exactly as an fp64 sum plus its error
    (TwoSum), rounded to odd in fp64, then to fp32 (round-to-odd with 29 spare bits rounds correctly)."""
    p = a.double() * b.double()
    cc = c.double()
    s = p + cc
    bb = s - p
    err = (p - (s - bb)) + (cc - bb)
    bits = s.view(torch.int64)
    even = (bits & 1) == 0
    up = torch.nextafter(s, torch.full_like(s, float("inf")))
    down = torch.nextafter(s, torch.full_like(s, float("-inf")))
    s = torch.where(even & (err > 0), up, torch.where(even & (err < 0), down, s))
    return s.float()


def scaled_mm_native(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                     out_dtype: torch.dtype, bias: torch.Tensor | None = None, azp_adj: torch.Tensor | None = None,
                     azp: torch.Tensor | None = None) -> torch.Tensor:
    """``cutlass_scaled_mm`` (``azp_adj`` None) or ``cutlass_scaled_mm_azp`` (vllm.md § cutlass_scaled_mm(_azp)):
    ``acc[m, n] = sum_k a[m, k] b[k, n]`` (exact for int8; fp64 for fp8 inputs), with zero points
    ``acc - azp_adj[n]`` (per-tensor) or ``acc - azp[m] * azp_adj[n]`` (per-token; int32 wrap-around);
    ``F = rd32(acc)``; ``u = rd32(sb[n] * F)``; ``v = rd32(sa[m] * u)`` or ``fma(sa[m], u, bias[n])``;
    returns ``rd_out(v)`` shaped ``[..., N]``.

    Args:
        a: int8 or float8_e4m3fn ``[..., K]``. b: same dtype ``[K, N]`` (any strides; vLLM's is column-major).
        scale_a: fp32, 1 or M elements. scale_b: fp32, 1 or N elements.
        out_dtype: torch.float16 or torch.bfloat16. bias: None or ``[N]``.
        azp_adj: None or int32 ``[N]``. azp: None or int32 ``[M]``.

    Raises:
        ValueError: shapes or dtypes do not fit.
    """
    k = a.shape[-1]
    a2 = a.reshape(-1, k)
    m, n = a2.shape[0], b.shape[1]
    if b.shape[0] != k or a.dtype != b.dtype or a.dtype not in (torch.int8, torch.float8_e4m3fn):
        raise ValueError(f"vllm::cutlass_scaled_mm: a {a.dtype} {list(a.shape)} and b {b.dtype} {list(b.shape)} do "
                         f"not fit (int8 or float8_e4m3fn, [M, K] x [K, N])")
    if scale_a.numel() not in (1, m) or scale_b.numel() not in (1, n):
        raise ValueError(f"vllm::cutlass_scaled_mm: scale_a has {scale_a.numel()} elements (1 or M = {m}), scale_b "
                         f"{scale_b.numel()} (1 or N = {n})")
    return _epilogue(a2.double() @ b.double(), a.shape, scale_a, scale_b, out_dtype, bias, azp_adj, azp)


def _epilogue(acc: torch.Tensor, a_shape: torch.Size, scale_a: torch.Tensor, scale_b: torch.Tensor,
              out_dtype: torch.dtype, bias: torch.Tensor | None, azp_adj: torch.Tensor | None,
              azp: torch.Tensor | None) -> torch.Tensor:
    """The spec's steps after the accumulation ``acc [M, N]`` (exact integers in any integer or fp64 dtype, or
    fp32 sums): zero-point correction in wrapping int32, ``F = rd32(acc)``, ``u = rd32(sb * F)``, ``v = rd32(sa *
    u)`` or ``fma32(sa, u, bias)``, ``rd_out(v)`` shaped ``[..., N]``."""
    m, n = acc.shape
    if azp_adj is not None:
        adj = azp_adj.reshape(1, n).to(torch.int64)
        corr = adj if azp is None else _wrap32(azp.reshape(m, 1).to(torch.int64) * adj)
        acc = _wrap32(acc.to(torch.int64) - corr).double()
    f = acc.float() if acc.is_floating_point() else acc.double().float()
    sb = scale_b.reshape(1, -1).float()
    sa = scale_a.reshape(-1, 1).float()
    u = sb * f
    v = sa * u if bias is None else fma32(sa.expand_as(u), u, bias.reshape(1, n).float().expand_as(u))
    return v.to(out_dtype).reshape(*a_shape[:-1], n)


def scaled_mm_fast(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                   out_dtype: torch.dtype, bias: torch.Tensor | None = None, azp_adj: torch.Tensor | None = None,
                   azp: torch.Tensor | None = None) -> torch.Tensor:
    """The native baseline of the scaled GEMMs (vllm.md §2.4): :func:`scaled_mm_native`'s function with the
    accumulation done by PyTorch's own low-precision GEMMs instead of an fp64 matmul, so that the kernels are
    timed against an int8/fp8 GEMM, not a double-precision one: ``torch._int_mm`` (exact int32; A is padded to 17
    rows where it has fewer, which CUDA's kernel needs) or ``torch._scaled_mm`` with unit scales (fp32 sums), then
    the same fp32 epilogue. Shapes outside those GEMMs' limits (K or N not a multiple of 16) use the fp64 path."""
    k = a.shape[-1]
    a2 = a.reshape(-1, k)
    m, n = a2.shape[0], b.shape[1]
    if k % 16 or n % 16 or m == 0:
        return scaled_mm_native(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp)
    if a.dtype == torch.int8:
        if m <= 16:
            a2 = torch.cat([a2, a2.new_zeros((17 - m, k))])
        acc = torch._int_mm(a2, b)[:m]
    else:
        one = torch.ones((), dtype=torch.float32, device=a.device)
        acc = torch._scaled_mm(a2, b, scale_a=one, scale_b=one, out_dtype=torch.float32)
    return _epilogue(acc, a.shape, scale_a, scale_b, out_dtype, bias, azp_adj, azp)


def _mm_allowance(call: Call) -> torch.Tensor:
    """The rounding-point allowance of a scaled-GEMM output: 4 fp32 ulps of the pre-bias product
    ``|sa * sb * acc|`` (an implementation may round the int32 -> fp32 conversion and the two scalings in another
    order, e.g. ``(sa * sb) * acc``), so that cancellation against the bias does not turn those into a failure."""
    a, b, sa, sb = call.args[:4]
    k = a.shape[-1]
    acc = (a.reshape(-1, k).double() @ b.double()).abs()
    mag = sa.reshape(-1, 1).double().abs() * sb.reshape(1, -1).double().abs() * acc
    return (4 * 2.0 ** -24 * mag).reshape(*a.shape[:-1], b.shape[1])


def _in_dtype(p: dict[str, Any]) -> torch.dtype:
    return torch.float8_e4m3fn if p.get("in", "int8") == "fp8" else torch.int8


def _mm_operands(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``a [M, K]`` and the column-major ``b [K, N]`` (the transpose view of a contiguous ``[N, K]``)."""
    m, k, n = p["m"], p["k"], p["n"]
    if _in_dtype(p) == torch.int8:  # upstream: randint(-128, 127)
        a = make_tensor([m, k], "int8", device, gen, low=-128, high=127)
        bt = make_tensor([n, k], "int8", device, gen, low=-128, high=127)
    else:
        a = make_tensor([m, k], "fp32", device, gen).to(torch.float8_e4m3fn)
        bt = make_tensor([n, k], "fp32", device, gen).to(torch.float8_e4m3fn)
    return a, bt.t()


def _scales(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = p["m"], p["n"]
    mag = p.get("scale_mag", 1.0)
    row_col = p["scales"] == "row_col"
    sh_a, sh_b = ((m, 1), (1, n)) if row_col else ((1, 1), (1, 1))
    if p.get("scale_dist", "randn") == "randn":   # cutlass_scaled_mm upstream: randn (negative scales included)
        sa = torch.randn(sh_a, generator=gen, device=device, dtype=torch.float32)
        sb = torch.randn(sh_b, generator=gen, device=device, dtype=torch.float32)
    else:                                         # cutlass_scaled_mm_azp upstream: rand + 0.5
        sa = torch.rand(sh_a, generator=gen, device=device, dtype=torch.float32) + 0.5
        sb = torch.rand(sh_b, generator=gen, device=device, dtype=torch.float32) + 0.5
    return sa * mag, sb * mag


def _smm_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    a, b = _mm_operands(p, device, gen)
    sa, sb = _scales(p, device, gen)
    out = dtype_of(p["out"])
    bias = make_tensor([p["n"]], out, device, gen) if p["bias"] else None
    return Call([a, b, sa, sb, out, bias])


def _mm_tolerance(p: dict[str, Any]) -> Tolerance:
    # int8: the accumulation is exact (reduce_dim 1 suffices); fp8: fp32 accumulation, reduce_dim = K (the spec)
    return Tolerance(reduce_dim=p["k"] if _in_dtype(p) != torch.int8 else 1)


def _smm_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ref = scaled_mm_native(*call.args)
    return [Expected("return", ref, _mm_tolerance(p), atol_extra=_mm_allowance(call))]


def _mm_cost(p: dict[str, Any], zero_points: bool = False) -> Cost:
    m, k, n = p["m"], p["k"], p["n"]
    out = esize(p["out"])
    byts = m * k + k * n + m * n * out + 4 * (m + n) + (n * out if p.get("bias") else 0)
    if zero_points:
        byts += 4 * n + (4 * m if p.get("azp") else 0)
    # measured against the matrix-unit rate of the input type (int8 and fp8 run about twice fp16's)
    return Cost(2.0 * m * n * k, byts, compute="int8" if _in_dtype(p) == torch.int8 else "fp8")


CUTLASS_SCALED_MM = FunctionOperator(
    "cutlass_scaled_mm", source="vllm", category="quantized GEMM", section="vllm.md § vllm::cutlass_scaled_mm",
    semantics="a [..., K] -> [M, K] (row-major), b [K, N] column-major, both int8 or float8_e4m3fn. acc[m, n] = "
              "sum_k a[m, k] * b[k, n] (exact int32 for int8; fp32 accumulation for fp8); F = float(acc) (int32 -> "
              "fp32, round to nearest even); u = rd_fp32(sb[n] * F); without bias v = rd_fp32(sa[m] * u), with bias "
              "v = fma(sa[m], u, float(bias[n])) (one rounding); out = rd_out(v). sa/sb are the single scale or the "
              "per-row/per-column one. Returns a new [..., N] tensor of out_dtype.",
    interface=Interface(
        function="cutlass_scaled_mm", params=("a", "b", "scale_a", "scale_b", "out_dtype", "bias"),
        defaults={"bias": None}, returns="Tensor [..., N] of out_dtype",
        args_doc={"a": "int8 or float8_e4m3fn [..., K], row-major (leading dims flattened to M)",
                  "b": "same dtype as a, [K, N] column-major (b.stride(0) == 1: the transpose view of a contiguous "
                       "[N, K])",
                  "scale_a": "fp32, 1 element (per-tensor) or M elements ([M, 1], per-token)",
                  "scale_b": "fp32, 1 element (per-tensor) or N elements ([1, N], per-channel)",
                  "out_dtype": "torch.float16 or torch.bfloat16",
                  "bias": "None or [N] of out_dtype"}),
    grids={
        "smoke": [
            dict(m=3, k=32, n=16, out="fp16", scales="scalar", bias=False),
            dict(m=17, k=64, n=48, out="bf16", scales="row_col", bias=True),
            dict(m=5, k=32, n=32, out="fp16", scales="scalar", bias=False, **{"in": "fp8"}),
            dict(m=13, k=48, n=40, out="fp16", scales="row_col", bias=True),
        ],
        "full": product(**{"m,k,n": [(1, 128, 128), (71, 512, 256), (128, 512, 512), (1024, 4096, 4096)]},
                        out=["fp16", "bf16"], scales=["scalar", "row_col"], bias=[False, True]),
        "heldout": [
            dict(m=4097, k=4096, n=14336, out="bf16", scales="row_col", bias=True),
            dict(m=33, k=7168, n=2048, out="fp16", scales="scalar", bias=False, **{"in": "fp8"}),
            dict(m=1, k=8192, n=28672, out="fp16", scales="row_col", bias=False, scale_mag=0.01),
        ],
    },
    build=_smm_build, reference=_smm_ref, cost=_mm_cost,
    timed=lambda p: max(p["m"], p["n"], p["k"]) >= 1024,
    baseline=baseline("cutlass_scaled_mm", lambda c: scaled_mm_fast(*c.args)), label=baseline_label,
    dtypes=lambda p: {_in_dtype(p), dtype_of(p["out"])},
    atol_text="1e-4 for int8 inputs (reduce_dim 1: the accumulation is exact), 1e-4 x K for fp8 inputs; plus 4 fp32 "
              "ulps of |sa * sb * acc| per element (the epilogue's rounding points)",
    notes="Full tier: the upstream grid (int8 inputs only, scales randn and so possibly negative); with fp16 output "
          "the (1024, 4096, 4096) cases overflow to +-inf in many elements, as upstream (infinities must match "
          "with their sign). fp8 inputs (smoke, held-out) are built as randn rounded to E4M3. "
          "Tolerance: the spec's (rtol by out_dtype, atol 1e-4 x reduce_dim with reduce_dim 1 for int8, K "
          "for fp8) plus 4 fp32 ulps of |sa*sb*acc|, so that another order of the epilogue's fp32 roundings is not "
          "failed where the bias cancels the product. The held-out M = 1 case uses scales 100x smaller so that "
          "its fp16 results are finite. Cost: FLOPs are measured against the fp16 matrix rate (no int8/fp8 "
          "ceiling is measured yet; those rates are twice it on Hopper). Baseline without vLLM: the same function "
          "through torch._int_mm / torch._scaled_mm (not the reference's fp64 matmul) under torch.compile.",
)


def _azp_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    m, n = p["m"], p["n"]
    a, b = _mm_operands(p, device, gen)
    sa, sb = _scales(dict(p, scale_dist="rand"), device, gen)
    out = dtype_of(p["out"])
    colsum = b.to(torch.int64).sum(0)
    if p.get("adj") == "colsum":   # realistic: azp_adj = sum_k b[k, n] (per-token) or azp * that (per-tensor)
        azp = (torch.randint(-8, 9, (m,), generator=gen, device=device).to(torch.int32) if p["azp"] else None)
        zp = 0 if p["azp"] else int(p.get("zp", 5))
        adj = (colsum if p["azp"] else zp * colsum).to(torch.int32)
    else:                          # upstream: randint(-8, 9) for both, unrelated to b
        adj = torch.randint(-8, 9, (n,), generator=gen, device=device).to(torch.int32)
        azp = torch.randint(-8, 9, (m,), generator=gen, device=device).to(torch.int32) if p["azp"] else None
    bias = make_tensor([n], out, device, gen) if p["bias"] else None
    return Call([a, b, sa, sb, out, adj, azp, bias])


def _azp_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, b, sa, sb, out, adj, azp, bias = call.args
    ref = scaled_mm_native(a, b, sa, sb, out, bias, adj, azp)
    return [Expected("return", ref, Tolerance(), atol_extra=_mm_allowance(call))]


CUTLASS_SCALED_MM_AZP = FunctionOperator(
    "cutlass_scaled_mm_azp", source="vllm", category="quantized GEMM",
    section="vllm.md § vllm::cutlass_scaled_mm_azp",
    semantics="a int8 [..., K] -> [M, K], b int8 [K, N] column-major; acc[m, n] = sum_k a[m, k] * b[k, n] (int32). "
              "Per-tensor zero point (azp None): c = acc - azp_adj[n]; per-token (azp [M]): c = acc - azp[m] * "
              "azp_adj[n]; int32 products and differences wrap around. F = float(c); u = rd_fp32(sb[n] * F); v = "
              "rd_fp32(sa[m] * u), or fma(sa[m], u, float(bias[n])) with a bias (one rounding); out = rd_out(v). "
              "Returns a new [..., N] tensor of out_dtype.",
    interface=Interface(
        function="cutlass_scaled_mm_azp",
        params=("a", "b", "scale_a", "scale_b", "out_dtype", "azp_adj", "azp", "bias"),
        defaults={"azp": None, "bias": None}, returns="Tensor [..., N] of out_dtype",
        args_doc={"a": "int8 [..., K], row-major (leading dims flattened to M)",
                  "b": "int8 [K, N] column-major (b.stride(0) == 1); K % 16 == 0 and N % 16 == 0",
                  "scale_a": "fp32, 1 element or M elements ([M, 1])",
                  "scale_b": "fp32, 1 element or N elements ([1, N])",
                  "out_dtype": "torch.float16 or torch.bfloat16",
                  "azp_adj": "int32 [N] (per-tensor mode: already azp * sum_k b[k, n]; per-token: sum_k b[k, n])",
                  "azp": "None (per-tensor mode) or int32 [M] (per-token zero points)",
                  "bias": "None or [N] of out_dtype"}),
    grids={
        "smoke": [
            dict(m=4, k=32, n=16, azp=False, bias=False, out="fp16", scales="scalar"),
            dict(m=9, k=64, n=32, azp=True, bias=True, out="bf16", scales="row_col"),
            dict(m=9, k=64, n=32, azp=True, bias=True, out="fp16", scales="row_col"),
        ],
        "full": [dict(m=m, k=k, n=n, azp=az, bias=bi, out="fp16", scales="row_col")
                 for m, k, n, az, bi in ((32, 128, 128, False, False), (32, 128, 128, True, False),
                                         (128, 256, 256, False, True), (128, 256, 256, True, True),
                                         (128, 256, 256, False, False), (256, 512, 512, False, False),
                                         (256, 512, 512, True, True), (256, 512, 512, True, False))],
        "heldout": [
            dict(m=1024, k=4096, n=4096, azp=True, bias=True, out="fp16", scales="row_col", adj="colsum",
                 scale_mag=0.01),
            dict(m=7, k=2048, n=512, azp=False, bias=False, out="bf16", scales="scalar", adj="colsum", zp=5,
                 scale_mag=0.01),
        ],
    },
    build=_azp_build, reference=_azp_ref, cost=lambda p: _mm_cost(p, zero_points=True),
    timed=lambda p: p["m"] >= 128,
    baseline=baseline("cutlass_scaled_mm_azp", lambda c: scaled_mm_fast(*c.args[:5], c.args[7], c.args[5],
                                                                         c.args[6])),
    label=baseline_label, dtypes=lambda p: {torch.int8, dtype_of(p["out"])},
    atol_text="1e-4 (reduce_dim 1: the integer part is exact), plus 4 fp32 ulps of |sa * sb * acc| per element (the "
              "epilogue's rounding points)",
    notes="Full tier: the upstream grid; azp_adj and azp are randint(-8, 9) unrelated to b (not a meaningful "
          "dequantisation, irrelevant to the formula); scales rand + 0.5 per row/column; fp16 output. Held-out: "
          "realistic azp_adj (sum_k b, or azp * sum_k b in per-tensor mode) with scales 100x smaller so that fp16 "
          "results stay finite. Tolerance as cutlass_scaled_mm's int8 cases.",
)


OPERATORS = [SCALED_FP8_QUANT, CUTLASS_SCALED_MM, CUTLASS_SCALED_MM_AZP]
