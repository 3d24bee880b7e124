"""The indexing family's dim-wise rows (aten.md §8): ``gather``, ``scatter``, ``masked_fill_``, ``embedding``,
``im2col``, and the first slice's ``index_select``. The family's machinery (the :class:`~.indexing.IndexOperator`
row, the judges of unspecified winners and error cases, seeded Python draws, accumulation tolerances) and what
it means for these rows is in :mod:`.indexing`.
"""
from __future__ import annotations

import math
import random
from typing import Any

import torch

from ..common import make_tensor, poisoned
from ..spec import EXACT, EXACT_TEXT, Call, Cost, Counts, Expected, Wrapper, dtype_of, numel, product, written_expected
from ..tensors import poison_
from .family import AtenCase, AtenOperator, elem_bytes, std_expected
from .indexing import IndexOperator, accumulated, randint_index, seeded, self_tensor, winner_judge
from .pools import FLOAT3, POINTWISE_SHAPES, REDUCTION_SHAPES

# ========================================================================================= gather
GATHER_SHAPES = [[512, 128, 32], [1024, 64, 16], [128, 32, 256]]


def _perm_prefix(sizes: list[int], dim: int, size_dim: int, device, gen) -> torch.Tensor:
    """An int64 tensor of shape ``sizes`` whose every line along ``dim`` is a prefix of a random
    permutation of ``range(size_dim)`` (distinct values along ``dim``, as upstream draws them)."""
    full = list(sizes)
    full[dim] = size_dim
    r = torch.rand(tuple(full), generator=gen, device=device)
    return torch.argsort(r, dim=dim).narrow(dim, 0, sizes[dim]).contiguous()


def _gather_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = self_tensor(p, device, gen)
    dim, ishape = p["dim"], list(p["index_shape"])
    if p.get("dups"):
        index = randint_index(p["shape"][dim], ishape, device, gen)
    else:
        index = _perm_prefix(ishape, dim, p["shape"][dim], device, gen)
    if p.get("grad"):
        x.requires_grad_(True)
    if p.get("overload") == "out":
        out = poison_(torch.empty(ishape, dtype=x.dtype, device=device))
        return AtenCase("torch.gather", [x, dim, index], {"out": out}, ("out",))
    return AtenCase("torch.gather", [x, dim, index], needs_launch=numel(ishape) > 0)


def _gather_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, dim, index = call.args
    ref = torch.gather(x.detach(), dim, index)
    if "out" in call.kwargs:
        return [written_expected("arg.out", call.kwargs["out"], ref, EXACT),
                Expected("return", None, EXACT, alias="arg.out")]
    return [Expected("return", ref, EXACT)]


GATHER = IndexOperator(
    "gather", category="index (gather along dim)",
    semantics="out[i][j][k] = self[index[i][j][k]][j][k] for dim=0 (likewise for other dims): index is int64 with "
              "self's rank and index.size(d) <= self.size(d) for d != dim; the output has index's shape and self's "
              "dtype; sparse_grad only affects backward; gather.out writes into out.",
    exercised=["gather"], absent={
        "dimname": "aten::gather.dimname(Tensor self, Dimname dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
        "dimname_out": "aten::gather.dimname_out(Tensor self, Dimname dim, Tensor index, *, bool sparse_grad=False, "
                       "Tensor(a!) out) -> Tensor(a!)"},
    grids={
        "smoke": [
            dict(dtype="fp32", shape=[8, 4, 3], dim=0, index_shape=[5, 4, 2], grad=True),
            dict(dtype="bf16", shape=[16, 8, 4], dim=2, index_shape=[9, 8, 3], grad=True),
            dict(dtype="fp16", shape=[4, 5, 6], dim=1, index_shape=[4, 7, 6], dups=True, grad=True),
            dict(dtype="int32", shape=[6, 9], dim=1, index_shape=[5, 4], overload="out"),
        ],
        "full": seeded([dict(dtype=dt, dim=d, shape=s, grad=True)
                         for dt in FLOAT3 for d in (0, 1, 2) for s in GATHER_SHAPES],
                        lambda rng, c: {"index_shape": [rng.randint(1, n) for n in c["shape"]]}),
        "heldout": [
            dict(dtype="fp32", shape=[511, 257, 3], dim=1, index_shape=[400, 300, 3], dups=True),
            dict(dtype="fp16", shape=[1024, 7, 33], dim=0, layout="transposed", index_shape=[700, 7, 20]),
            dict(dtype="bf16", shape=[151, 81, 5], dim=2, index_shape=[151, 81, 9], dups=True),
            dict(dtype="fp32", shape=[33, 65], dim=0, index_shape=[40, 60], dups=True, overload="out"),
        ],
    },
    build=_gather_build, reference=_gather_ref,
    cost=lambda p: Cost(0.0, numel(p["index_shape"]) * (8 + 2 * elem_bytes(p["dtype"]))),
    overload_of=lambda p: "gather.out" if p.get("overload") == "out" else "gather",
    own_ops=frozenset({"gather", "take_along_dim"}),
    notes="Index shapes are drawn per dim from random.Random(42) in grid order (aten.md §6b.8), stored in the "
          "cases; along dim every index line is a permutation prefix (distinct values), as upstream draws them. "
          "self requires grad, so on GPUs the candidate runs below autograd; upstream's gradient comparison checks "
          "gather's backward (scatter_add), not the candidate, and is not repeated.",
).facts(counts=Counts(smoke=4, full=27, timed=27, heldout=4))


# ======================================================================================== scatter
SCATTER_INP = [[512, 128, 32], [1024, 64, 16]]
SCATTER_SRC = [[128, 16, 4], [256, 32, 8]]


def _scatter_index_shape(rng: random.Random, c: dict[str, Any]) -> dict[str, Any]:
    return {"index_shape": [rng.randint(1, min(a, b)) for a, b in zip(c["src_shape"], c["shape"])]}


def _scatter_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = self_tensor(p, device, gen)
    dim, ishape = p["dim"], list(p["index_shape"])
    if p.get("dups"):
        index = randint_index(p["shape"][dim], ishape, device, gen)
    else:
        size_dim = min(p["shape"][dim], p.get("src_shape", p["shape"])[dim])
        index = _perm_prefix(ishape, dim, size_dim, device, gen)
    if "value" in p:
        src: Any = p["value"]
    else:
        src = make_tensor(p["src_shape"], p["dtype"], device, gen, layout=p.get("src_layout", "contig"))
    kwargs: dict[str, Any] = {}
    if p.get("reduce"):
        kwargs["reduce"] = p["reduce"]
    written: tuple = ()
    if p.get("overload", "").endswith("out"):
        kwargs["out"] = poison_(torch.empty(p["shape"], dtype=x.dtype, device=device))
        written = ("out",)
    return AtenCase("torch.scatter", [x, dim, index, src], kwargs, written)


def _scatter_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, dim, index, src = call.args
    reduce = call.kwargs.get("reduce")
    addr = torch.arange(x.numel(), dtype=torch.int64, device=x.device).view(x.shape)
    pos = torch.gather(addr, dim, index).reshape(-1)
    if isinstance(src, torch.Tensor):
        vals = src[tuple(slice(0, s) for s in index.shape)].to(x.dtype).reshape(-1)
    else:
        vals = torch.full((pos.numel(),), src, dtype=x.dtype, device=x.device)
    before = x.contiguous().reshape(-1)
    if reduce:
        flat, tol, extra = accumulated(before, pos, vals, "add" if reduce == "add" else "multiply")
        exp = Expected("return", flat.view(x.shape), tol, atol_extra=None if extra is None else extra.view(x.shape))
    else:
        flat = before.clone()
        flat[pos] = vals
        exp = winner_judge(Expected("return", flat.view(x.shape), EXACT), pos, vals)
    if "out" not in call.kwargs:
        return [exp]
    if exp.check is not None:
        raise ValueError("aten::scatter: out= cases must not have ambiguous duplicate targets")
    out = call.kwargs["out"]
    extra = None if exp.atol_extra is None else exp.atol_extra
    return [written_expected("arg.out", out, exp.value, exp.tol, atol_extra=extra),
            Expected("return", None, exp.tol, alias="arg.out")]


def _scatter_overload(p: dict[str, Any]) -> str:
    base = "value" if "value" in p else "src"
    if p.get("reduce"):
        base = "value_reduce" if base == "value" else "reduce"
    return f"scatter.{base}" + ("_out" if p.get("overload", "").endswith("out") else "")


def _scatter_cost(p: dict[str, Any]) -> Cost:
    es = elem_bytes(p["dtype"])
    n = numel(p["index_shape"])
    reads = 8 + (0 if "value" in p else es) + (es if p.get("reduce") else 0)
    return Cost(float(n) if p.get("reduce") else 0.0, 2 * numel(p["shape"]) * es + n * (reads + es))


def _scatter_full() -> list[dict[str, Any]]:
    src = [dict(dtype=dt, dim=d, shape=i, src_shape=s) for dt in FLOAT3 for d in (0, 1, 2)
           for i in SCATTER_INP for s in SCATTER_SRC]
    add = [dict(dtype=dt, dim=d, shape=i, src_shape=s, reduce="add") for dt in ("fp16", "fp32") for d in (0, 1, 2)
           for i in SCATTER_INP for s in SCATTER_SRC]
    mul = [dict(c, reduce="multiply") for c in add]
    return seeded(src + add + mul, _scatter_index_shape)


SCATTER = IndexOperator(
    "scatter", category="index / scatter",
    semantics="Out of place: out = self.clone(), then out[index[i][j][k]][j][k] = src[i][j][k] for dim=0 (likewise "
              "for other dims); only index's shape is iterated (index.size(d) <= src.size(d), and <= self.size(d) "
              "for d != dim). reduce='add' adds and 'multiply' multiplies into out; .value/.value_reduce take a "
              "Scalar instead of src; with duplicate targets and no reduction one of the written values wins; the "
              "_out forms write into out.",
    exercised=["scatter.src", "scatter.reduce"], absent={
        "dimname_src": "aten::scatter.dimname_src(Tensor self, Dimname dim, Tensor index, Tensor src) -> Tensor",
        "dimname_value": "aten::scatter.dimname_value(Tensor self, Dimname dim, Tensor index, Scalar value) -> Tensor"},
    grids={
        "smoke": [
            dict(dtype="fp32", shape=[8, 6, 4], src_shape=[5, 6, 4], dim=0, index_shape=[5, 6, 4]),
            dict(dtype="fp16", shape=[16, 8, 4], src_shape=[16, 8, 4], dim=1, index_shape=[10, 6, 3], reduce="add"),
            dict(dtype="fp32", shape=[16, 8, 4], src_shape=[16, 8, 4], dim=2, index_shape=[12, 8, 3],
                 reduce="multiply"),
            dict(dtype="bf16", shape=[12, 10], src_shape=[9, 10], dim=0, index_shape=[9, 7]),
            dict(dtype="int32", shape=[10, 12], dim=1, index_shape=[8, 20], dups=True, value=7),
        ],
        "full": _scatter_full(),
        "heldout": [
            dict(dtype="bf16", shape=[511, 257, 3], src_shape=[300, 257, 3], dim=1, index_shape=[300, 200, 3]),
            dict(dtype="fp32", shape=[64, 33], src_shape=[64, 200], dim=1, index_shape=[64, 200], dups=True,
                 reduce="add"),
            dict(dtype="fp16", shape=[129, 65], layout="transposed", src_shape=[129, 65], dim=0,
                 index_shape=[100, 65], dups=True),
            dict(dtype="fp32", shape=[40, 50], dim=0, index_shape=[60, 50], dups=True, value=-2.5,
                 reduce="multiply"),
            dict(dtype="fp16", shape=[20, 30], src_shape=[20, 30], dim=1, index_shape=[20, 30], overload="out"),
            dict(dtype="fp32", shape=[20, 30], dim=0, index_shape=[20, 30], value=3.0, overload="out"),
            dict(dtype="fp32", shape=[30, 20], src_shape=[30, 20], dim=0, index_shape=[30, 20], dups=True,
                 reduce="multiply", overload="out"),
            dict(dtype="int64", shape=[30, 20], dim=1, index_shape=[30, 40], dups=True, value=3, reduce="add",
                 overload="out"),
        ],
    },
    build=_scatter_build, reference=_scatter_ref, cost=_scatter_cost, overload_of=_scatter_overload,
    own_ops=frozenset({"scatter", "scatter_add", "scatter_reduce"}),
    notes="Index shapes are drawn per dim from random.Random(42) in grid order (aten.md §6b.8), stored in the "
          "cases; along dim every index line is a permutation prefix of range(min(src, self) size), so the full "
          "tier has no duplicate targets. reduce='add'/'multiply' are judged against an fp64 reference with a "
          "reduce-aware tolerance; held-out cases add duplicates (add, multiply, and .src judged as 'one of the "
          "written values') and every untested dispatcher overload.",
).facts(counts=Counts(smoke=5, full=84, timed=84, heldout=8))


# ================================================================================== masked_fill_
MASKED_VALUES = ["t_int64", "t_fp32", 1024]


def _mf_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = self_tensor(p, device, gen)
    mshape = p.get("mask_shape", p["shape"])
    mask = torch.randn(tuple(mshape), generator=gen, device=device) < p["threshold"]
    v = p["value"]
    vdev = torch.device(p["value_device"]) if "value_device" in p else device
    if v == "t_int64":
        value: Any = torch.tensor(1024, dtype=torch.int64, device=vdev)
    elif v == "t_fp32":
        value = torch.scalar_tensor(1024, dtype=torch.float32, device=vdev)
    else:
        value = v
    host = (2,) if isinstance(value, torch.Tensor) and value.device.type != device.type else ()
    return AtenCase("torch.Tensor.masked_fill_", [x, mask, value], {}, (0,), host=host)


def _mf_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, mask, value = call.args
    ref = x.clone().masked_fill_(mask, value)
    return [written_expected("arg.0", x, ref, EXACT), Expected("return", None, EXACT, alias="arg.0")]


MASKED_FILL_ = IndexOperator(
    "masked_fill_", category="index / select (in-place)",
    semantics="In place: self[i] = value wherever mask[i] is true, returning self. mask is bool and broadcasts to "
              "self (self does not grow). .Scalar casts the Python number to self's dtype; .Tensor takes a 0-d "
              "value tensor (on self's device or the CPU, any dtype), cast to self's dtype.",
    exercised=["masked_fill_.Scalar", "masked_fill_.Tensor"],
    grids={
        "smoke": [
            dict(value=1024, threshold=0.3, dtype="fp32", shape=[64, 33], init="randn"),
            dict(value="t_int64", threshold=0.5, dtype="bf16", shape=[17]),
            dict(value="t_fp32", threshold=0.7, dtype="fp16", shape=[], init="zeros"),
            dict(value=-3.5, threshold=0.5, dtype="fp32", shape=[4, 5], mask_shape=[1, 5]),
            dict(value=7, threshold=0.0, dtype="int32", shape=[9, 7], layout="transposed"),
            dict(value=True, threshold=0.5, dtype="bool", shape=[33]),
        ],
        "full": [dict(value=v, threshold=t, dtype=dt, shape=s, init="zeros")
                 for v in MASKED_VALUES for t in (0.3, 0.5, 0.7) for dt in FLOAT3 for s in POINTWISE_SHAPES],
        "heldout": [
            dict(value=1024, threshold=0.5, dtype="fp16", shape=[511, 257], mask_shape=[257]),
            dict(value="t_fp32", threshold=0.3, dtype="fp32", shape=[257, 511], layout="transposed"),
            dict(value="t_int64", threshold=0.7, dtype="bf16", shape=[7, 17, 31], value_device="cpu"),
            dict(value=-0.25, threshold=0.5, dtype="fp64", shape=[5, 7, 11, 13], mask_shape=[7, 1, 13],
                 layout="step2"),
        ],
    },
    build=_mf_build, reference=_mf_ref,
    cost=lambda p: Cost(0.0, numel(p.get("mask_shape", p["shape"])) + numel(p["shape"]) * elem_bytes(p["dtype"])),
    overload_of=lambda p: "masked_fill_.Tensor" if isinstance(p["value"], str) else "masked_fill_.Scalar",
    own_ops=frozenset({"masked_fill_", "masked_fill"}),
    notes="Full tier as upstream: self is zeros and the mask is randn < threshold; smoke and held-out cases use "
          "randn self (untouched elements must keep their values), broadcast masks, strided self, a 0-d CPU "
          "value tensor, int, bool and fp64 selves.",
).facts(counts=Counts(smoke=6, full=162, timed=162, heldout=4))


# ==================================================================================== embedding
def _emb_build(p: dict[str, Any], device, gen) -> AtenCase:
    V, D = p["V"], p["N"]
    weight = make_tensor([V, D], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    idx = randint_index(V, p["indices_shape"], device, gen).to(dtype_of(p.get("index_dtype", "int64")))
    if p.get("overload") == "out":
        out = poison_(torch.empty(list(p["indices_shape"]) + [D], dtype=weight.dtype, device=device))
        pad = -1 if p.get("padding_idx") is None else p["padding_idx"] % V
        return AtenCase("torch.ops.aten.embedding.out", [weight, idx, pad, p.get("scale_grad_by_freq", False), False],
                        {"out": out}, ("out",))
    weight.requires_grad_(True)
    return AtenCase("torch.nn.functional.embedding", [idx, weight, p.get("padding_idx")],
                    {"scale_grad_by_freq": p.get("scale_grad_by_freq", False)})


def _emb_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    if "out" in call.kwargs:
        weight, idx = call.args[:2]
        ref = torch.nn.functional.embedding(idx, weight.detach())
        return [written_expected("arg.out", call.kwargs["out"], ref, EXACT),
                Expected("return", None, EXACT, alias="arg.out")]
    idx, weight = call.args[:2]
    return [Expected("return", torch.nn.functional.embedding(idx, weight.detach()), EXACT)]


def _emb_cost(p: dict[str, Any]) -> Cost:
    rows = numel(p["indices_shape"])
    return Cost(0.0, 2 * rows * p["N"] * elem_bytes(p["dtype"]) + rows * elem_bytes(p.get("index_dtype", "int64")))


EMBEDDING = IndexOperator(
    "embedding", category="index (row gather)",
    semantics="out[idx..., :] = weight[indices[idx...], :]: weight (V, D), indices of any shape (int64 or int32), "
              "output indices.shape + (D,) in weight's dtype. padding_idx and scale_grad_by_freq only affect the "
              "backward pass; sparse is False. embedding.out writes into out.",
    exercised=["embedding"],
    grids={
        "smoke": [
            dict(dtype="fp32", V=16, N=8, indices_shape=[2, 3]),
            dict(dtype="bf16", V=100, N=33, indices_shape=[5], padding_idx=3),
            dict(dtype="fp16", V=64, N=128, indices_shape=[2, 2, 2], index_dtype="int32", scale_grad_by_freq=True),
            dict(dtype="fp32", V=50, N=40, indices_shape=[3, 4], padding_idx=-1, overload="out"),
        ],
        "full": [dict(dtype=dt, scale_grad_by_freq=s, padding_idx=pi, N=n, M=m, batch=b, V=4096,
                      indices_shape=[b, m])
                 for dt in FLOAT3 for s in (True, False) for pi in (None, -1, 1, 2) for n in (128, 256, 4096)
                 for m in (4, 8) for b in (2, 4)],
        "heldout": [
            dict(dtype="bf16", V=151936, N=1024, indices_shape=[1, 1]),
            dict(dtype="fp32", V=4096, N=4097, indices_shape=[3, 5], padding_idx=0),
            dict(dtype="fp16", V=1000, N=96, indices_shape=[7, 9], layout="transposed", index_dtype="int32"),
            dict(dtype="fp32", V=300, N=65, indices_shape=[17], overload="out"),
        ],
    },
    build=_emb_build, reference=_emb_ref, cost=_emb_cost,
    overload_of=lambda p: "embedding.out" if p.get("overload") == "out" else "embedding",
    own_ops=frozenset({"embedding", "index_select"}),
    notes="The pre-damage forward grid (aten.md §6b.2: 288 cases; HEAD's body is the fill_ test; the embedding "
          "backward test calls another op and is dropped): indices randint(0, 4096, (Batch, M)), weight randn(4096, "
          "N) with requires_grad, called through F.embedding (padding_idx None -> -1, -1 -> V-1).",
).facts(counts=Counts(smoke=4, full=288, timed=288, heldout=4))


# ======================================================================================== im2col
IM2COL_CFGS = [  # (kernel_size, dilation, padding, stride)
    ([3, 3], [1, 1], [1, 1], [1, 1]), ([3, 3], [1, 1], [0, 0], [2, 2]), ([5, 4], [2, 2], [2, 1], [1, 2]),
    ([1, 1], [1, 1], [0, 0], [1, 1]),
]


def _im2col_out_shape(p: dict[str, Any]) -> list[int]:
    shape = list(p["shape"])
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = p["kernel_size"], p["dilation"], p["padding"], p["stride"]
    H, W = shape[-2], shape[-1]
    oh = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    return shape[:-3] + [shape[-3] * kh * kw, oh * ow]


def _im2col_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    args = [x, p["kernel_size"], p["dilation"], p["padding"], p["stride"]]
    if p.get("overload") == "out":
        out = poison_(torch.empty(_im2col_out_shape(p), dtype=x.dtype, device=device))
        return AtenCase("torch.ops.aten.im2col.out", args, {"out": out}, ("out",))
    return AtenCase("torch.ops.aten.im2col.default", args)


def _im2col_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ref = torch.ops.aten.im2col.default(*call.args)
    if "out" in call.kwargs:
        return [written_expected("arg.out", call.kwargs["out"], ref, EXACT),
                Expected("return", None, EXACT, alias="arg.out")]
    return [Expected("return", ref, EXACT)]


def _cfg(k, d, pd, s) -> dict[str, Any]:
    return dict(kernel_size=k, dilation=d, padding=pd, stride=s)


IM2COL = IndexOperator(
    "im2col", category="conv helper (unfold)",
    semantics="Unfold sliding blocks of a (C,H,W) or (N,C,H,W) input into (C*kh*kw, L) or (N, C*kh*kw, L), L = "
              "OH*OW with OH = (H + 2ph - dh(kh-1) - 1)//sh + 1 (likewise OW). Row c*kh*kw + i*kw + j, column "
              "oh*OW + ow holds x[c, oh*sh - ph + i*dh, ow*sw - pw + j*dw], or 0 outside the image. Arguments in "
              "the order kernel_size, dilation, padding, stride; im2col.out writes into out.",
    exercised=["im2col", "im2col.out"],
    grids={
        "smoke": [
            dict(dtype="fp32", shape=[1, 4, 4], **_cfg([2, 2], [1, 1], [0, 0], [2, 2])),
            dict(dtype="bf16", shape=[3, 8, 8], **_cfg([3, 3], [1, 1], [1, 1], [1, 1])),
            dict(dtype="fp16", shape=[2, 7, 9], **_cfg([5, 4], [2, 2], [2, 1], [1, 2])),
            dict(dtype="fp32", shape=[2, 2, 6, 5], overload="out", **_cfg([3, 2], [1, 2], [1, 0], [2, 1])),
        ],
        "full": [dict(dtype=dt, shape=s, **_cfg(*cfg)) for cfg in IM2COL_CFGS for dt in ("fp32", "fp16", "bf16")
                 for s in ([3, 8, 8], [16, 64, 64], [32, 128, 128])]
        + [dict(dtype=dt, shape=s, overload="out", **_cfg(*cfg)) for cfg in IM2COL_CFGS
           for dt in ("fp32", "fp16", "bf16") for s in ([3, 8, 8], [16, 64, 64], [32, 128, 128])],
        "heldout": [
            dict(dtype="fp32", shape=[2, 3, 33, 17], **_cfg([3, 3], [1, 1], [0, 0], [2, 1])),
            dict(dtype="fp16", shape=[5, 31, 29], **_cfg([7, 7], [1, 2], [3, 3], [1, 1])),
            dict(dtype="bf16", shape=[4, 20, 24], layout="transposed", **_cfg([3, 3], [1, 1], [1, 1], [1, 1])),
            dict(dtype="fp32", shape=[3, 19, 23], layout="step2", overload="out",
                 **_cfg([4, 3], [2, 1], [1, 2], [3, 2])),
        ],
    },
    build=_im2col_build, reference=_im2col_ref,
    cost=lambda p: Cost(0.0, (numel(p["shape"]) + numel(_im2col_out_shape(p))) * elem_bytes(p["dtype"])),
    overload_of=lambda p: "im2col.out" if p.get("overload") == "out" else "im2col",
).facts(counts=Counts(smoke=4, full=72, timed=72, heldout=4))


# ------------------------------------------------------------------------------------- index_select
def _isel_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    size = p["shape"][p["dim"]]
    count = p.get("count", int(math.floor(0.8 * size)))
    idx = torch.randint(0, size, (count,), generator=gen, device=device, dtype=torch.int64)
    idx = idx.to(dtype_of(p.get("index_dtype", "int64")))
    if p.get("overload") == "out":
        shape = list(p["shape"])
        shape[p["dim"]] = count
        return AtenCase("torch.index_select", [x, p["dim"], idx], {"out": poisoned(shape, p["dtype"], device)},
                        ("out",))
    return AtenCase("torch.index_select", [x, p["dim"], idx])


def _isel_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, dim, idx = call.args
    ref = torch.index_select(x, dim, idx)
    return std_expected(p, call, ref, EXACT)


def _isel_cost(p: dict[str, Any]) -> Cost:
    size = p["shape"][p["dim"]]
    count = p.get("count", int(math.floor(0.8 * size)))
    out = numel(p["shape"]) // max(1, size) * count
    return Cost(0.0, 2 * out * elem_bytes(p["dtype"]) + count * 8)


INDEX_SELECT = AtenOperator(
    "index_select", category="index",
    semantics="out = self with dim `dim` replaced by self[index[j]] for each j; index is a 1-D (or 0-d) int64/"
              "int32 tensor; duplicates allowed; an empty index gives a size-0 dim; out-of-range indices are an "
              "error.",
    wrappers=[
        Wrapper("index_select", "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor", exercised=True),
        Wrapper("index_select.out", "aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) "
                                    "-> Tensor(a!)"),
    ],
    grids={
        "smoke": [
            dict(shape=[1, 2], dtype="fp32", dim=0),
            dict(shape=[64, 33], dtype="bf16", dim=1),
            dict(shape=[5, 40, 3], dtype="fp16", dim=1),
            dict(shape=[30, 20], dtype="fp32", dim=0, index_dtype="int32", overload="out"),
        ],
        "full": product(dtype=FLOAT3, dim=[0, 1], shape=REDUCTION_SHAPES),
        "heldout": [
            dict(shape=[2048, 129], dtype="fp32", dim=0, index_dtype="int32"),
            dict(shape=[151, 8191, 5], dtype="bf16", dim=1),
            dict(shape=[257, 511], layout="transposed", dtype="fp16", dim=0),
            dict(shape=[64, 65], dtype="int32", dim=1, overload="out"),
        ],
    },
    build=_isel_build, reference=_isel_ref, cost=_isel_cost,
).facts(counts=Counts(smoke=4, full=18, timed=18, heldout=4))
INDEX_SELECT.tolerance_text = EXACT_TEXT


# The rows' full-tier counts (Counts.full, Counts.timed): aten.md §1 counts; embedding: the pre-damage forward grid
# (288; the backward test calls another op).
OPERATORS: list[AtenOperator] = [EMBEDDING, GATHER, IM2COL, INDEX_SELECT, MASKED_FILL_, SCATTER]

__all__ = ["OPERATORS"]
