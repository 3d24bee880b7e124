"""Measure the accumulation bound (suite/spec.py ``accumulation_allowance``) against honest fp32
accumulation orders and reduced-precision cheats, on the real inputs of the suite's cases (issue 12,
class 4).

For every case of the GEMM-class rows (aten::mm, bmm, linear, matmul, cublas::cublasSgemm_v2) and the
sum/mean/cumsum reductions, the case's own inputs are built (``op.build`` with the case seed, as the
verifier builds them), and candidate results are *emulated* on the CPU, operation by operation in
fp32 (every fp32 add and multiply is a torch fp32 op, so every rounding is the IEEE one):

honest (must pass, ratio well below 1)
    ``seq``        products rounded to fp32, summed left to right in fp32
    ``seq_fma``    fused multiply-add chain (one rounding per step): a GPU's ``tl.dot(..., "ieee")``
    ``pairwise``   products rounded, pairwise tree in fp32
    ``blk16/32/64`` K in blocks, each block an FMA chain from zero, the block sums added to an fp32
                   accumulator (a tiled kernel with fp32 partials)
    ``splitk4/16`` K in 4/16 contiguous slices, each an FMA chain, the partials added in fp32
    ``sorted``     the worst order constructed: products sorted descending (all positive ones
                   first), summed left to right in fp32: partial sums as large as sum|a_i b_i|/2
    ``blas``       torch's own fp32 matmul on the CPU (MKL/oneDNN blocking), GEMMs only
cheats (must fail, ratio above 1)
    ``tf32``       operands truncated to TF32 (low 13 mantissa bits zeroed), exact products, fp32 FMA
    ``tf32rn``     operands rounded to nearest TF32 (ties away: cvt.rna), as above
    ``tf32x3``     3xTF32 (hi*hi + hi*lo + lo*hi, lo*lo dropped): reported, judged as fp32-accurate
    ``fp16op``     operands rounded to fp16, exact products, fp32 FMA
    ``bf16op``     operands rounded to bf16, as above
    ``acc16``      (fp16/bf16 inputs) block sums of 16 in fp32, accumulated in the input dtype
    ``seq16``      (fp16/bf16 inputs, sums, scans) every step rounded to the input dtype

Each result is judged against the fp64 reference rounded to the output dtype, with the bound of the
new rule (rtol·|ref| + the accumulation allowance) and with the old rule (rtol·|ref| + 1e-4·K); the
table shows the largest error/bound over the elements of every case of a group.

    PYTHONPATH=src python bench/precision_bound.py [--tier full] [--op aten::mm ...] [--out table.md]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from typing import Any

import numpy as np
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Tolerance, accumulation_rule, dtype_of
from kernelgenbench.verify.compare import compare_values

F32, F64 = torch.float32, torch.float64
HONEST = ["seq", "seq_fma", "pairwise", "blk16", "blk32", "blk64", "splitk4", "splitk16", "sorted", "blas"]
CHEATS32 = ["tf32", "tf32rn", "tf32x3", "fp16op", "bf16op"]
CHEATS16 = ["acc16", "seq16"]
CHUNK = 1 << 22  # product elements per chunk (fp64: 32 MiB)


# ----------------------------------------------------------------------------------------------- rounding
def tf32_trunc(x: torch.Tensor) -> torch.Tensor:
    """fp32 -> TF32 by truncation (the low 13 of 23 mantissa bits zeroed)."""
    return (x.contiguous().view(torch.int32) & ~0x1FFF).view(F32)


def tf32_rna(x: torch.Tensor) -> torch.Tensor:
    """fp32 -> TF32, round to nearest, ties away from zero (PTX cvt.rna.tf32.f32)."""
    return ((x.contiguous().view(torch.int32) + 0x1000) & ~0x1FFF).view(F32)


def fl(x: torch.Tensor, dt: torch.dtype) -> torch.Tensor:
    """Round to ``dt`` (round to nearest even) and back to fp32."""
    return x.to(dt).to(F32)


# --------------------------------------------------------------------------------------- summation orders
def _fma_chain(p: torch.Tensor, acc: torch.Tensor | None = None) -> torch.Tensor:
    """acc <- fl32(acc + p_k) over the last dim, p exact (fp64): one rounding per step (an FMA chain)."""
    acc = torch.zeros(p.shape[:-1], dtype=F32) if acc is None else acc
    for k in range(p.shape[-1]):
        acc = (acc.to(F64) + p[..., k]).to(F32)
    return acc


def _seq32(p32: torch.Tensor, acc: torch.Tensor | None = None, dt: torch.dtype = F32) -> torch.Tensor:
    """Left-to-right sum of fp32 terms, every partial rounded to ``dt``."""
    acc = torch.zeros(p32.shape[:-1], dtype=F32) if acc is None else acc
    for k in range(p32.shape[-1]):
        acc = acc + p32[..., k]
        if dt != F32:
            acc = fl(acc, dt)
    return acc


def _pairwise32(p32: torch.Tensor) -> torch.Tensor:
    x = p32
    while x.shape[-1] > 1:
        if x.shape[-1] % 2:
            x = torch.cat([x, torch.zeros(x.shape[:-1] + (1,), dtype=F32)], -1)
        x = x[..., 0::2] + x[..., 1::2]
    return x[..., 0]


def _blocked(p: torch.Tensor, bk: int) -> torch.Tensor:
    acc = torch.zeros(p.shape[:-1], dtype=F32)
    for s in range(0, p.shape[-1], bk):
        acc = acc + _fma_chain(p[..., s:s + bk])
    return acc


def _splitk(p: torch.Tensor, parts: int) -> torch.Tensor:
    k = p.shape[-1]
    step = max(1, -(-k // parts))
    acc = torch.zeros(p.shape[:-1], dtype=F32)
    for s in range(0, k, step):
        acc = acc + _fma_chain(p[..., s:s + step])
    return acc


def _sorted(p: torch.Tensor) -> torch.Tensor:
    return _seq32(torch.sort(p.to(F32), dim=-1, descending=True).values)


def dot_orders(p: torch.Tensor, orders: list[str], half: torch.dtype | None) -> dict[str, torch.Tensor]:
    """The fp32 accumulator of each honest order (and the in-dtype cheats for half inputs) over exact
    products ``p`` (fp64, last dim = the reduction)."""
    out: dict[str, torch.Tensor] = {}
    for o in orders:
        if o == "seq":
            out[o] = _seq32(p.to(F32))
        elif o == "seq_fma":
            out[o] = _fma_chain(p)
        elif o == "pairwise":
            out[o] = _pairwise32(p.to(F32))
        elif o.startswith("blk"):
            out[o] = _blocked(p, int(o[3:]))
        elif o.startswith("splitk"):
            out[o] = _splitk(p, int(o[6:]))
        elif o == "sorted":
            out[o] = _sorted(p)
        elif o == "acc16" and half is not None:
            acc = torch.zeros(p.shape[:-1], dtype=F32)
            for s in range(0, p.shape[-1], 16):
                acc = fl(acc + _fma_chain(p[..., s:s + 16]), half)
            out[o] = acc
        elif o == "seq16" and half is not None:
            out[o] = _seq32(p.to(F32), dt=half)
    return out


# ------------------------------------------------------------------------------------------------ GEMMs
def _as_batched(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(..., M, K) and (..., K, N) broadcast and flattened to (batch, M, K), (batch, K, N)."""
    a = a if a.dim() > 1 else a[None, :]
    b = b if b.dim() > 1 else b[:, None]
    lead = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = a.expand(*lead, *a.shape[-2:]).reshape(-1, *a.shape[-2:])
    b = b.expand(*lead, *b.shape[-2:]).reshape(-1, *b.shape[-2:])
    return a, b


def gemm_problem(op_id: str, p: dict[str, Any], call) -> dict[str, Any]:
    """The case as one canonical batched GEMM: A (batch, M, K), B (batch, K, N), and the epilogue."""
    prob: dict[str, Any] = dict(alpha=1.0, beta=0.0, C=None, bias=None,
                                out=dtype_of(p.get("out_dtype", p.get("dtype", "fp32"))))
    args = call.args
    if op_id == "cublas::cublasSgemm_v2":
        from kernelgenbench.suite.cublas.decl import mat_view, trans_code
        from kernelgenbench.suite.cublas.grids import f32
        ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc = args
        ra, ca = (m, k) if trans_code(ta) == 0 else (k, m)
        rb, cb = (k, n) if trans_code(tb) == 0 else (n, k)
        a = mat_view(A, ra, ca, lda)
        b = mat_view(B, rb, cb, ldb)
        a = a if trans_code(ta) == 0 else a.t()
        b = b if trans_code(tb) == 0 else b.t()
        prob.update(alpha=f32(alpha), beta=f32(beta), C=mat_view(C, m, n, ldc)[None].clone())
        prob["A"], prob["B"] = a[None].contiguous(), b[None].contiguous()
        return prob
    a, b = args[0], args[1]
    if op_id == "aten::linear":
        b = b.t()
        if len(args) > 2 and args[2] is not None:
            prob["bias"] = args[2]
    prob["A"], prob["B"] = (x.contiguous() for x in _as_batched(a, b))
    return prob


def gemm_candidates(prob: dict[str, Any], orders: list[str]) -> tuple[torch.Tensor, torch.Tensor, int,
                                                                       dict[str, torch.Tensor]]:
    """(reference in the output dtype (as fp64), allowance, n, {order: candidate in the output dtype})."""
    A, B = prob["A"], prob["B"]
    bt, m, k = A.shape
    n = B.shape[-1]
    half = A.dtype if A.dtype in (torch.float16, torch.bfloat16) else None
    Bt = B.transpose(1, 2)
    idx = torch.arange(bt * m * n)
    ref = torch.empty(bt * m * n, dtype=F64)
    absum = torch.empty(bt * m * n, dtype=F64)
    acc: dict[str, torch.Tensor] = {o: torch.empty(bt * m * n, dtype=F32) for o in orders}
    step = max(1, CHUNK // max(1, k))
    for s in range(0, idx.numel(), step):
        i = idx[s:s + step]
        ib, im, jn = i // (m * n), (i // n) % m, i % n
        ra, rb = A[ib, im, :].to(F32), Bt[ib, jn, :].to(F32)
        p = ra.to(F64) * rb.to(F64)  # exact products (fp32 x fp32 fits in fp64)
        ref[s:s + step] = p.sum(-1)
        absum[s:s + step] = p.abs().sum(-1)
        honest = [o for o in orders if o in HONEST and o != "blas"] + [o for o in orders if o in CHEATS16]
        for o, v in dot_orders(p, honest, half).items():
            acc[o][s:s + step] = v
        for o in orders:
            if o not in CHEATS32 or half is not None:
                continue
            if o == "tf32x3":
                ha, hb = tf32_rna(ra), tf32_rna(rb)
                la, lb = tf32_rna(ra - ha), tf32_rna(rb - hb)
                q = ha.to(F64) * hb.to(F64) + ha.to(F64) * lb.to(F64) + la.to(F64) * hb.to(F64)
                q = q.to(F32).to(F64)
            else:
                rnd = {"tf32": tf32_trunc, "tf32rn": tf32_rna, "fp16op": lambda x: fl(x, torch.float16),
                       "bf16op": lambda x: fl(x, torch.bfloat16)}[o]
                q = rnd(ra).to(F64) * rnd(rb).to(F64)
            acc[o][s:s + step] = _fma_chain(q)
    if "blas" in orders:
        acc["blas"] = torch.matmul(A.to(F32), B.to(F32)).reshape(-1)
    shape = (bt, m, n)
    ref, absum = ref.reshape(shape), absum.reshape(shape)
    terms = k  # as the harness counts them: K, K + 1 with a bias, K + 2 for Sgemm (alpha, beta)
    alpha, beta, C, bias = prob["alpha"], prob["beta"], prob["C"], prob["bias"]
    ref = ref * alpha if alpha != 0.0 else torch.zeros_like(ref)
    absum = absum * abs(alpha) if alpha != 0.0 else torch.zeros_like(absum)
    if C is not None:
        terms += 2
    if bias is not None:
        ref = ref + bias.to(F64)
        absum = absum + bias.to(F64).abs()
        terms += 1
    if C is not None and beta != 0.0:
        ref = ref + beta * C.to(F64)
        absum = absum + abs(beta) * C.to(F64).abs()
    out = prob["out"]
    cands = {}
    for o, v in acc.items():
        v = v.reshape(shape)
        if alpha != 1.0:
            v = v * alpha if alpha != 0.0 else torch.zeros_like(v)
        if bias is not None:
            v = v + bias.to(F32)
        if C is not None and beta != 0.0:
            v = v + beta * C.to(F32)
        cands[o] = v.to(out)
    return ref.to(out), absum, terms, cands


# ------------------------------------------------------------------------------------------- reductions
def _reduced_last(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    rest = [d for d in range(x.dim()) if d not in dims]
    y = x.permute(*rest, *dims)
    return y.reshape(-1, math.prod(x.shape[d] for d in dims) if dims else 1)


def sum_candidates(p: dict[str, Any], call, orders: list[str], mean: bool = False):
    """A sum (or with ``mean``, a mean: the fp32 sum divided by n in fp32) in each order."""
    x = call.args[0]
    d = call.kwargs.get("dim", p.get("dim"))
    if d is None or d == []:
        dims = list(range(x.dim()))
    else:
        dims = [dd % x.dim() for dd in (d if isinstance(d, list) else [d])]
    r = _reduced_last(x, dims)  # (outputs, n)
    half = x.dtype if x.dtype in (torch.float16, torch.bfloat16) else None
    t = r.to(F64)
    ref = t.sum(-1)
    absum = t.abs().sum(-1)
    n = r.shape[-1]
    x32 = r.to(F32)
    cands: dict[str, torch.Tensor] = {}
    for o in orders:
        if o == "seq":  # numpy-free sequential fp32: cumsum in fp32 accumulates in fp64 on CPU, so loop in blocks
            cands[o] = _seq_sum(x32)
        elif o == "pairwise":
            cands[o] = _pairwise32(x32)
        elif o.startswith("blk"):
            bs = int(o[3:]) * 16  # blocks of 256 / 512 / 1024 elements (a tl.sum per block)
            cands[o] = _seq_sum(_block_sums(x32, bs))
        elif o.startswith("splitk"):
            parts = int(o[6:])
            step = -(-n // parts)
            cands[o] = _seq_sum(torch.stack([_seq_sum(x32[:, s:s + step]) for s in range(0, n, step)], -1))
        elif o == "sorted":
            cands[o] = _seq_sum(torch.sort(x32, dim=-1, descending=True).values)
        elif o == "fp16op" and half is None:
            cands[o] = _seq_sum(_block_sums(fl(x32, torch.float16), 1024))
        elif o == "bf16op" and half is None:
            cands[o] = _seq_sum(_block_sums(fl(x32, torch.bfloat16), 1024))
        elif o == "acc16" and half is not None:
            cands[o] = _seq_sum(_block_sums(x32, 1024), dt=half)
        elif o == "seq16" and half is not None and (half == torch.float16 or n <= 200_000):
            cands[o] = _seq_sum(x32, dt=half)
    outdt = x.dtype
    if mean:
        outdt = dtype_of(p.get("out_dtype", p["dtype"]))
        ref, absum = ref / n, absum / n
        cands = {o: v / n for o, v in cands.items()}
    return ref.to(outdt), absum, n, {o: v.to(outdt) for o, v in cands.items()}


def _block_sums(x32: torch.Tensor, bs: int) -> torch.Tensor:
    """Per block of ``bs`` elements, the pairwise (tree) fp32 sum: what one tl.sum of a block gives."""
    n = x32.shape[-1]
    pad = (-n) % bs
    if pad:
        x32 = torch.cat([x32, torch.zeros(x32.shape[0], pad, dtype=F32)], -1)
    return _pairwise32(x32.reshape(x32.shape[0], -1, bs))


def _seq_sum(x32: torch.Tensor, dt: torch.dtype = F32) -> torch.Tensor:
    """Left to right, every partial rounded to ``dt`` (fp32, or fp16 through numpy's half
    accumulation), vectorised over rows; bf16 partials step by step in torch."""
    return _scan_seq(x32, dt)[..., -1]


def cumsum_candidates(p: dict[str, Any], call, orders: list[str]):
    x = call.args[0]
    d = call.kwargs.get("dim", call.args[1] if len(call.args) > 1 else None) % max(1, x.dim())
    y = x.movedim(d, -1)
    shape = y.shape
    r = y.reshape(-1, shape[-1])
    half = x.dtype if x.dtype in (torch.float16, torch.bfloat16) else None
    t = r.to(F64)
    ref = t.cumsum(-1)
    absum = t.abs().cumsum(-1)
    n = torch.arange(1, r.shape[-1] + 1, dtype=F64)
    x32 = r.to(F32)
    cands: dict[str, torch.Tensor] = {}
    for o in orders:
        if o == "seq":
            cands[o] = _scan_seq(x32)
        elif o == "pairwise":  # Hillis-Steele tree scan in fp32
            cands[o] = _scan_tree(x32)
        elif o.startswith("blk"):
            cands[o] = _scan_blocked(x32, int(o[3:]) * 16)
        elif o == "fp16op" and half is None:
            cands[o] = _scan_blocked(fl(x32, torch.float16), 1024)
        elif o == "bf16op" and half is None:
            cands[o] = _scan_blocked(fl(x32, torch.bfloat16), 1024)
        elif o == "seq16" and half is not None:
            cands[o] = _scan_seq(x32, dt=half)
        elif o == "acc16" and half is not None:
            cands[o] = _scan_blocked(x32, 1024, carry_dt=half)
    outdt = x.dtype
    return ref.to(outdt), absum, n, {o: v.to(outdt) for o, v in cands.items()}


def _scan_seq(x32: torch.Tensor, dt: torch.dtype = F32) -> torch.Tensor:
    """Inclusive left-to-right scan along the last dim, every partial rounded to ``dt``. numpy's
    accumulate is sequential in its dtype (fp32, fp16); torch's CPU cumsum of fp32 accumulates in fp64,
    so it is not used. bf16 partials step by step in torch."""
    if dt in (F32, torch.float16):
        npdt = np.float32 if dt == F32 else np.float16
        return torch.from_numpy(np.cumsum(x32.numpy().astype(npdt), axis=-1, dtype=npdt).astype(np.float32))
    out = torch.empty_like(x32)
    acc = torch.zeros(x32.shape[:-1], dtype=F32)
    for k in range(x32.shape[-1]):
        acc = fl(acc + x32[..., k], dt)
        out[..., k] = acc
    return out


def _scan_tree(x32: torch.Tensor) -> torch.Tensor:
    x = x32.clone()
    s = 1
    while s < x.shape[-1]:
        x = torch.cat([x[:, :s], x[:, s:] + x[:, :-s]], -1)
        s *= 2
    return x


def _scan_blocked(x32: torch.Tensor, bs: int, carry_dt: torch.dtype = F32) -> torch.Tensor:
    """Each block scanned by the tree, the running carry of the previous blocks added in fp32 (rounded
    to ``carry_dt``): a one-pass scan kernel with one program per row and a block loop."""
    out = torch.empty_like(x32)
    carry = torch.zeros(x32.shape[0], dtype=F32)
    for s in range(0, x32.shape[-1], bs):
        loc = _scan_tree(x32[:, s:s + bs])
        v = carry[:, None] + loc
        if carry_dt != F32:
            v = fl(v, carry_dt)
        out[:, s:s + bs] = v
        carry = v[:, -1]
    return out


# ---------------------------------------------------------------------------------------------- judging
def ratios(ref: torch.Tensor, cand: torch.Tensor, absum: torch.Tensor, n: Any, old_k: int) -> tuple[float, float]:
    """(new-rule, old-rule) largest error/bound over the elements, by the harness's own comparison
    (compare_values with the row's accumulation rule; the old rule: rtol + 1e-4 x n). inf where the
    comparison fails before any bound applies (NaN or infinity mismatch)."""
    tol, extra = accumulation_rule(ref.dtype, absum, n, old_k)
    out = []
    for t, x in ((tol, extra), (Tolerance(reduce_dim=old_k), None)):
        r = compare_values(cand, ref, t, atol_extra=x)
        out.append(r.ratio if r.ok or r.ratio else math.inf)
    return out[0], out[1]


GEMMS = ["aten::mm", "aten::bmm", "aten::linear", "aten::matmul", "cublas::cublasSgemm_v2"]
REDUCTIONS = ["aten::sum", "aten::mean", "aten::cumsum"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tier", action="append", help="tiers (default full)")
    ap.add_argument("--op", action="append", help="operators (default: every affected one)")
    ap.add_argument("--out", help="also write the table (markdown) here")
    args = ap.parse_args(argv)
    tiers = args.tier or ["full"]
    ops = args.op or GEMMS + REDUCTIONS
    rows: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    cpu = torch.device("cpu")
    torch.set_num_threads(1)
    for op_id in ops:
        op = get_operator(op_id)
        for tier in tiers:
            for case in op.cases(tier):
                p = case.params
                dt = dtype_of(p.get("dtype", "fp32"))
                if dt in (torch.float64,) or not dt.is_floating_point:
                    continue
                t0 = time.time()
                call = op.build(p, cpu, generator(cpu, case.seed))
                if op_id in GEMMS:
                    orders = HONEST + (CHEATS16 if dt != F32 else CHEATS32)
                    prob = gemm_problem(op_id, p, call)
                    ref, absum, n, cands = gemm_candidates(prob, orders)
                    k = prob["A"].shape[-1]
                    key = (op_id, tier, p.get("dtype", "fp32"),
                           f"K={k}" + (" alpha=0" if p.get("alpha", 1.0) == 0.0 else ""))
                elif op_id in ("aten::sum", "aten::mean"):
                    if dtype_of(p.get("out_dtype", p["dtype"])) == torch.float64 or 0 in p["shape"]:
                        continue
                    orders = ["seq", "pairwise", "blk16", "blk64", "splitk16", "sorted"] + \
                        (CHEATS16 if dt != F32 else ["fp16op", "bf16op"])
                    ref, absum, n, cands = sum_candidates(p, call, orders, mean=op_id == "aten::mean")
                    k = n if op_id == "aten::sum" else 1  # mean: the spec's reduce_dim is 1
                    key = (op_id, tier, p["dtype"], f"n={n}")
                else:
                    orders = ["seq", "pairwise", "blk16", "blk64"] + (CHEATS16 if dt != F32 else ["fp16op", "bf16op"])
                    ref, absum, n, cands = cumsum_candidates(p, call, orders)
                    k = int(n[-1])
                    key = (op_id, tier, p["dtype"], f"n<={k}")
                for o, c in cands.items():
                    new, old = ratios(ref, c, absum, n, k)
                    rows[key][o].append(new)
                    rows[key][o + ":old"].append(old)
                print(f"{op_id} {case.id} {case.describe()}: {time.time() - t0:.1f}s", file=sys.stderr, flush=True)
    table = render(rows)
    print(table)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(table + "\n")
    return 0


def render(rows: dict[tuple, dict[str, list[float]]]) -> str:
    cols = HONEST + CHEATS32 + CHEATS16
    present = [c for c in cols if any(c in r for r in rows.values())]
    head = "| operator | tier | dtype | size | cases | " + " | ".join(present) + " |"
    lines = [head, "|" + "---|" * (5 + len(present))]
    for key, r in rows.items():
        cases = max(len(v) for v in r.values())
        cells = []
        for c in present:
            if c not in r:
                cells.append("")
                continue
            new = max(r[c])
            cheat = c not in HONEST
            # cheats: the smallest case maximum (every case must fail); honest: the largest
            v = min(r[c]) if cheat else new
            old = min(r[c + ":old"]) if cheat else max(r[c + ":old"])
            cells.append(f"{v:.3g} ({old:.2g})")
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {cases} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
