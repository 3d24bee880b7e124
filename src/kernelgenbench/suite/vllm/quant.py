"""vLLM quantisation and quantised-GEMM support ops (vllm.md §3: permute_cols, scaled_int8_quant). References
are pure PyTorch written from the spec (fp32 math with the spec's rounding points; integer results exact)."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..compare import SlotResult
from ..function import FunctionOperator
from ..spec import EXACT, Call, Cost, Expected, Interface, numel, product
from .common import baseline, baseline_label, esize, true_div


# -------------------------------------------------------------------------------------- permute_cols
def _perm_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    shape = p["shape"]
    k = shape[-1]
    a = make_tensor(shape, p["dtype"], device, gen)
    kind = p["perm"]
    if kind == "identity":
        perm = torch.arange(k, device=device)
    elif kind == "reverse":
        perm = torch.arange(k - 1, -1, -1, device=device)
    elif kind == "random":
        perm = torch.randperm(k, generator=gen, device=device)
    elif kind == "repeats":  # indices in [0, K), not a permutation
        perm = torch.randint(0, k, (k,), generator=gen, device=device)
    else:
        raise ValueError(f"vllm::permute_cols: unknown perm kind {kind!r}")
    return Call([a, perm.to(torch.int32)])


def _perm_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, perm = call.args
    return [Expected("return", a[..., perm.long()], EXACT)]


PERMUTE_COLS = FunctionOperator(
    "permute_cols", source="vllm", category="gather", section="vllm.md § vllm::permute_cols",
    semantics="returns a new tensor of a's shape and dtype: out[..., j] = a[..., perm[j]] (a gather of columns; "
              "perm need not be a permutation).",
    interface=Interface(
        function="permute_cols", params=("a", "perm"), returns="Tensor (a's shape and dtype)",
        args_doc={"a": "fp16/bf16 [..., K] contiguous, K % 8 == 0 (leading dims flattened)",
                  "perm": "int32 [K], values in [0, K)"}),
    grids={
        "smoke": [
            dict(shape=[3, 16], dtype="fp16", perm="reverse"),
            dict(shape=[2, 8, 24], dtype="bf16", perm="random"),
            dict(shape=[1, 8], dtype="fp16", perm="repeats"),
            dict(shape=[5, 40], dtype="fp16", perm="random"),
        ],
        "full": product(shape=[[1, 32], [71, 504], [128, 512], [1024, 4096], [5333, 8192]],
                        perm=["identity", "reverse", "random"], dtype=["fp16", "bf16"]),
        "heldout": [
            dict(shape=[4096, 14336], dtype="bf16", perm="random"),
            dict(shape=[17, 4104], dtype="fp16", perm="random"),
        ],
    },
    build=_perm_build, reference=_perm_ref,
    cost=lambda p: Cost(0.0, 2 * numel(p["shape"]) * esize(p["dtype"]) + 4 * p["shape"][-1]),
    timed=lambda p: p["shape"][-1] >= 2048 and numel(p["shape"][:-1]) >= 512,
    baseline=baseline("permute_cols", lambda c: c.args[0][..., c.args[1].long()]), label=baseline_label,
    data_movement=True,
    notes="The upstream random permutation comes from its own generator seeded 42; ours is drawn from the case's "
          "seed (the values, not the axis, differ).",
)

# --------------------------------------------------------------------------------- scaled_int8_quant
def rne_sat(v: torch.Tensor, lo: int, hi: int) -> torch.Tensor:
    """Round half to even (fp32 in, fp32 out) then clamp to [lo, hi], as int64 (NaN -> 0, CUDA's
    ``cvt.rni.sat``)."""
    r = torch.round(v.float())
    r = torch.where(torch.isnan(r), torch.zeros_like(r), r)
    return r.clamp(lo, hi).to(torch.int64)


def int8_native(x: torch.Tensor, scale: torch.Tensor | None, azp: torch.Tensor | None, symmetric: bool
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """``scaled_int8_quant``'s ``(out int8 like x, scale, azp)`` (vllm.md § scaled_int8_quant), all in fp32:
    static symmetric ``sat8(rne(x / scale))``; static asymmetric ``sat8(sat32(rne(x * rd(1/scale))) + azp)``;
    dynamic symmetric per row ``scale = a/127``, ``r = 127/a`` (0 if a = 0), ``sat8(rne(x * r))``; dynamic
    asymmetric ``s = (mx - mn)/255``, ``zp = rne(-128 - mn/s)``, ``sat8(sat32(rne(x * rd(1/s))) + zp)``.
    Dynamic scales/azp are ``[N, 1]``."""
    h = x.shape[-1]
    xf = x.reshape(-1, h).float()
    i32 = (-2 ** 31, 2 ** 31 - 1)
    if scale is not None:
        sc = scale.reshape(-1)[0].float()
        if azp is None:
            q = rne_sat(xf / sc, -128, 127)
        else:
            inv = torch.ones((), dtype=torch.float32, device=x.device) / sc
            q = (rne_sat(xf * inv, *i32) + int(azp.reshape(-1)[0])).clamp(-128, 127)
        return q.to(torch.int8).reshape(x.shape), scale, azp
    if symmetric:
        a = xf.abs().amax(-1, keepdim=True)
        sc = true_div(a, 127.0)
        r = torch.where(a == 0, torch.zeros_like(a), torch.full_like(a, 127.0) / a)  # rd(127/a), not 127*rd(1/a)
        return rne_sat(xf * r, -128, 127).to(torch.int8).reshape(x.shape), sc, None
    mn, mx = xf.amin(-1, keepdim=True), xf.amax(-1, keepdim=True)
    s = true_div(mx - mn, 255.0)
    zp = rne_sat(-128.0 - mn / s, *i32)
    inv = 1.0 / s
    q = (rne_sat(xf * inv, *i32) + zp).clamp(-128, 127)
    return q.to(torch.int8).reshape(x.shape), s, zp.to(torch.int32)


def _int8_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    x = make_tensor(p["shape"], p["dtype"], device, gen)
    if p.get("amp"):
        x = (x.float() * p["amp"]).to(x.dtype)
    if p.get("zero_row"):
        x[0] = 0
    scale = torch.tensor([p["scale"]], dtype=torch.float32, device=device) if p.get("scale") is not None else None
    azp = torch.tensor([p["azp"]], dtype=torch.int32, device=device) if p.get("azp") is not None else None
    return Call([x, scale, azp, p["symmetric"]])


def _same_object_check(slot: str, arg: int) -> Any:
    def check(actual: Any, out: dict[str, Any]) -> SlotResult:
        target = (out.get("args") or [None] * (arg + 1))[arg]
        if target is None:
            return SlotResult(actual is None, "" if actual is None else f"{slot}: expected None, got "
                                                                        f"{type(actual).__name__}")
        ok = (isinstance(actual, torch.Tensor) and actual.untyped_storage().data_ptr()
              == target.untyped_storage().data_ptr() and actual.shape == target.shape)
        return SlotResult(ok, "" if ok else f"{slot}: the static path must return the given argument "
                                            f"(arg.{arg}) itself; got {type(actual).__name__}")
    return check


def _int8_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, scale, azp, sym = call.args
    q, s, z = int8_native(x, scale, azp, sym)
    exp = [Expected("return.0", q, EXACT)]
    if scale is not None:  # static: the given scale and azp objects come back
        exp += [Expected("return.1", scale, EXACT, check=_same_object_check("return.1", 1)),
                Expected("return.2", azp, EXACT, check=_same_object_check("return.2", 2))]
    else:
        exp.append(Expected("return.1", s, EXACT))
        exp.append(Expected("return.2", z, EXACT) if z is not None
                   else Expected("return.2", None, EXACT, check=lambda a, o: SlotResult(
                       a is None, "" if a is None else f"return.2: the symmetric dynamic path returns azp None, "
                                                       f"got {type(a).__name__}")))
    return exp


def _int8_grid() -> list[dict[str, Any]]:
    out = []
    for d in product(shape=[[1, 32], [71, 497], [128, 512], [1024, 4096], [5333, 8192]], dtype=["fp16", "bf16", "fp32"],
                     symmetric=[True, False], provide_scale=[False, True], provide_azp=[False, True]):
        if not d["symmetric"] and d["provide_scale"] and not d["provide_azp"]:
            continue  # upstream returns before calling the op (static asymmetric needs an azp)
        static_asym = d["provide_scale"] and not d["symmetric"]
        out.append(dict(shape=d["shape"], dtype=d["dtype"], symmetric=d["symmetric"],
                        provide_scale=d["provide_scale"], provide_azp=d["provide_azp"],
                        scale=0.1 if d["provide_scale"] else None, azp=0 if static_asym else None))
    return out


SCALED_INT8_QUANT = FunctionOperator(
    "scaled_int8_quant", source="vllm", category="quantization", section="vllm.md § vllm::scaled_int8_quant",
    semantics="x = float(input); static symmetric (scale given, azp None): q = sat8(rne(x / scale)) (IEEE division); "
              "static asymmetric: q = sat8(sat32(rne(x * rd_fp32(1/scale))) + azp); dynamic symmetric (scale None): "
              "per row a = max|x|, scale = a/127, r = 127/a (0 if a = 0), q = sat8(rne(x * r)); dynamic asymmetric: "
              "s = (mx - mn)/255, zp = rne(-128 - mn/s) (int32), q = sat8(sat32(rne(x * rd_fp32(1/s))) + zp). rne = "
              "round half to even. Returns (out int8 of input's shape, scale, azp): static returns the given scale "
              "and azp objects; dynamic new fp32 scales [N, 1] and int32 azp [N, 1] (None when symmetric).",
    interface=Interface(
        function="scaled_int8_quant", params=("input", "scale", "azp", "symmetric"),
        defaults={"scale": None, "azp": None, "symmetric": True}, returns="(out, scale, azp)",
        args_doc={"input": "[..., H] fp16/bf16/fp32 contiguous",
                  "scale": "None (dynamic per-token) or fp32 [1] (static)",
                  "azp": "None or int32 [1]; static mode requires symmetric == (azp is None)",
                  "symmetric": "bool"}),
    grids={
        "smoke": [
            dict(shape=[3, 40], dtype="fp16", symmetric=True, scale=0.05, azp=None, amp=4.0),
            dict(shape=[2, 33], dtype="bf16", symmetric=False, scale=None, azp=None),
            dict(shape=[4, 16], dtype="fp32", symmetric=True, scale=None, azp=None, zero_row=True),
            dict(shape=[3, 50], dtype="fp16", symmetric=False, scale=None, azp=None),
        ],
        "full": _int8_grid(),
        "heldout": [
            dict(shape=[4096, 8192], dtype="bf16", symmetric=False, scale=None, azp=None),
            dict(shape=[17, 5137], dtype="fp32", symmetric=False, scale=0.1, azp=-3),
            dict(shape=[1, 1], dtype="fp16", symmetric=True, scale=None, azp=None),
        ],
    },
    build=_int8_build, reference=_int8_ref,
    cost=lambda p: Cost(3.0 * numel(p["shape"]), numel(p["shape"]) * (esize(p["dtype"]) + 1)),
    timed=lambda p: numel(p["shape"]) >= 4_194_304,
    baseline=baseline("scaled_int8_quant", lambda c: int8_native(*c.args)), label=baseline_label,
    notes="Full tier: the upstream axes less the 15 static-asymmetric cases without an azp, which the upstream test "
          "returns from before calling the op (105 cases). Static scale 0.1 and azp 0 as upstream.",
)

OPERATORS = [PERMUTE_COLS, SCALED_INT8_QUANT]
