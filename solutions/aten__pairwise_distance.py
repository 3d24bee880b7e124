"""Oracle Triton solution for aten::pairwise_distance (spec: shared/spec/aten.md, section
`aten::pairwise_distance`).

Wrappers: pairwise_distance.

y = ||x1 - x2 + eps||_p over the last dim of the broadcast inputs, in one kernel (PyTorch's
CompositeImplicit version runs sub, add and norm). The roundings of the composite are kept: for
fp16/bf16 inputs x1 - x2 is rounded to the input dtype, then + eps is rounded again (each computed
in fp32, as PyTorch's elementwise kernels do); the norm accumulates in fp32 and is rounded once.

Layout: the broadcast shape (expanded views, stride 0 where broadcast) is seen as (M, D) with the
M leading dims as at most two coalesced groups (m -> (m // M2, m % M2)) for x1, x2 and y alike; a
program owns BLOCK_M rows and streams them in [BLOCK_M, BLOCK_D] tiles (D is the contiguous axis
in the usual layout). p = 1, 2, 3 use exact powers (|d|, d*d, |d|^3), the 3rd root gets a Newton
step; p = 0 counts non-zeros; p = inf takes the largest |d| (NaN propagating); any other p goes
through exp2(p * log2|d|).
"""
import torch
import triton
import triton.language as tl

_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32, torch.float64: tl.float64}


@triton.jit
def _pdist_kernel(a_ptr, b_ptr, y_ptr, M, M2, D, eps, p, inv_p,
                  sa1, sa2, sad, sb1, sb2, sbd, sy1, sy2,
                  MODE: tl.constexpr, ROUND: tl.constexpr, RT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr,
                  USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    mmask = m < M
    if USE_I64:
        m = m.to(tl.int64)
    m1 = m // M2
    m2 = m % M2
    abase = a_ptr + m1 * sa1 + m2 * sa2
    bbase = b_ptr + m1 * sb1 + m2 * sb2
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    for start in range(0, D, BLOCK_D):
        d = start + tl.arange(0, BLOCK_D)
        mask = mmask[:, None] & (d[None, :] < D)
        a = tl.load(abase[:, None] + d[None, :] * sad, mask=mask, other=0)
        b = tl.load(bbase[:, None] + d[None, :] * sbd, mask=mask, other=0)
        diff = a.to(tl.float32) - b.to(tl.float32)
        if ROUND:  # the composite rounds x1 - x2, then (x1 - x2) + eps, to the input dtype
            diff = diff.to(RT).to(tl.float32)
        diff = diff + eps
        if ROUND:
            diff = diff.to(RT).to(tl.float32)
        ad = tl.abs(diff)
        if MODE == 0:
            v = (diff != 0).to(tl.float32)
        elif MODE == 1:
            v = ad
        elif MODE == 2:
            v = diff * diff
        elif MODE == 3:
            v = ad * ad * ad
        elif MODE == 4:
            v = ad
        else:
            v = tl.exp2(p * tl.log2(ad))
        v = tl.where(mask, v, 0.0)
        if MODE == 4:
            acc = tl.maximum(acc, v, propagate_nan=tl.PropagateNan.ALL)
        else:
            acc += v
    if MODE == 4:
        s = tl.max(acc, axis=1)
        has_nan = tl.max((acc != acc).to(tl.int32), axis=1)
        s = tl.where(has_nan > 0, float("nan"), s)
    else:
        s = tl.sum(acc, axis=1)
    if MODE == 2:
        s = tl.sqrt_rn(s)
    elif MODE == 3:
        r = tl.exp2(tl.log2(s) * inv_p)
        r = tl.where((r > 0) & (r < float("inf")), r - (r * r * r - s) / (3.0 * r * r), r)  # one Newton step
        s = r
    elif MODE == 5:
        s = tl.exp2(tl.log2(s) * inv_p)
    tl.store(y_ptr + m1 * sy1 + m2 * sy2, s.to(y_ptr.dtype.element_ty), mask=mmask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _cdiv(a, b):
    return -(-a // b)


def _coalesce(sizes, strides_list):
    dims = []
    for d, sz in enumerate(sizes):
        if sz == 1:
            continue
        st = [s[d] for s in strides_list]
        if dims:
            psz, pst = dims[-1]
            if all(pst[k] == st[k] * sz for k in range(len(st))):
                dims[-1] = (psz * sz, st)
                continue
        dims.append((sz, st))
    return dims


def _span(t):
    if t.numel() == 0:
        return 0
    span = 1
    for s, st in zip(t.shape, t.stride()):
        span += (s - 1) * abs(st)
    return span


def _broadcast(s1, s2):
    """NumPy broadcasting of two shapes (a plain-Python torch.broadcast_shapes)."""
    n = max(len(s1), len(s2))
    s1, s2 = [1] * (n - len(s1)) + s1, [1] * (n - len(s2)) + s2
    out = []
    for a, b in zip(s1, s2):
        if a != b and a != 1 and b != 1:
            raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton "
                               "dimension" % (a, b))
        out.append(b if a == 1 else a)
    return out


def _mode(p):
    if p == 0:
        return 0
    if p == 1:
        return 1
    if p == 2:
        return 2
    if p == 3:
        return 3
    if p == float("inf"):
        return 4
    return 5


# ----------------------------------------------------------------------------------------------
# wrapper

def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    shape = _broadcast(list(x1.shape), list(x2.shape))
    common = torch.promote_types(x1.dtype, x2.dtype)
    if common.is_complex:
        raise NotImplementedError("pairwise_distance: complex inputs are not supported by this Triton solution")
    out_dtype = common if common.is_floating_point else torch.get_default_dtype()
    if not shape:
        shape = [1]  # 0-d inputs: one element in the last dim
        a, b = x1.reshape([1]), x2.reshape([1])
        out_shape = []
    else:
        a, b = x1.expand(shape), x2.expand(shape)
        out_shape = shape[:-1] + ([1] if keepdim else [])
    y = torch.empty(out_shape, dtype=out_dtype, device=x1.device)
    D = shape[-1]
    lead = shape[:-1]
    M = 1
    for s in lead:
        M *= s
    if M == 0:
        return y
    ys = list(y.stride())[: len(lead)] if out_shape else []
    groups = _coalesce(lead, [list(a.stride())[: len(lead)], list(b.stride())[: len(lead)], ys])
    if len(groups) > 2:
        a, b = a.contiguous(), b.contiguous()
        groups = _coalesce(lead, [list(a.stride())[: len(lead)], list(b.stride())[: len(lead)], ys])
    while len(groups) < 2:
        groups.insert(0, (1, [0, 0, 0]))
    (M1, (sa1, sb1, sy1)), (M2, (sa2, sb2, sy2)) = groups
    sad, sbd = a.stride(-1), b.stride(-1)
    cpu = x1.device.type == "cpu"
    BLOCK_D = min(_next_pow2(max(D, 1)), 4096 if cpu else 1024)
    if cpu:
        BLOCK_M = min(_next_pow2(M), max(1, 65536 // BLOCK_D))
    else:
        BLOCK_M = min(_next_pow2(M), max(1, 1024 // BLOCK_D))
        while BLOCK_M > 1 and _cdiv(M, BLOCK_M) < 264:  # at least two programs per SM when rows allow
            BLOCK_M //= 2
    warps = 1 if cpu else max(1, min(8, BLOCK_M * BLOCK_D // 256))
    use_i64 = max(_span(a), _span(b), M) >= 2 ** 31 - 65536
    mode = _mode(float(p))
    pf = float(p)
    rnd = out_dtype in (torch.float16, torch.bfloat16)
    _pdist_kernel[(_cdiv(M, BLOCK_M),)](
        a, b, y, M, M2, D, float(eps), pf, 1.0 / pf if pf not in (0.0, float("inf")) else 0.0,
        sa1, sa2, sad, sb1, sb2, sbd, sy1, sy2,
        MODE=mode, ROUND=rnd, RT=_TL.get(out_dtype, tl.float32), BLOCK_M=BLOCK_M, BLOCK_D=BLOCK_D, USE_I64=use_i64, num_warps=warps)
    return y
