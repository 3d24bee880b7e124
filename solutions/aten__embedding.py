"""Oracle Triton solution for aten::embedding (spec: shared/spec/aten.md, section `aten::embedding`).

Wrappers: embedding, embedding_out.

out[idx..., :] = weight[indices[idx...], :]: a row gather. One 2-D tiled kernel: rows are the flattened
indices (int64 or int32, read through their strides, so any index layout works without a copy), columns
the embedding dim (vectorised, contiguous stores of a dense out; weight read through its strides, so a
transposed weight needs no copy). padding_idx and scale_grad_by_freq only matter for the backward pass;
the forward ignores them. int32 offset arithmetic unless a tensor spans 2^31 elements; the row offset is
always int64 (index times row stride).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(w_ptr, i_ptr, o_ptr, N, D, q1, q2, is0, is1, is2, ws0, ws1, os0, ncb,
                      ND: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, I64: tl.constexpr):
    pid = tl.program_id(0)
    pn = pid // ncb
    pd = pid % ncb
    if I64:
        rows = pn.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
        cols = pd.to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    else:
        rows = pn * BLOCK_N + tl.arange(0, BLOCK_N)
        cols = pd * BLOCK_D + tl.arange(0, BLOCK_D)
    rm = rows < N
    cm = cols < D
    # the index element of each row: indices coalesced to <= 3 dims (right-aligned, inner sizes q1, q2)
    if ND == 1:
        ioff = rows * is2
    elif ND == 2:
        ioff = (rows // q2) * is1 + (rows % q2) * is2
    else:
        t = rows // q2
        ioff = (t // q1) * is0 + (t % q1) * is1 + (rows % q2) * is2
    idx = tl.load(i_ptr + ioff, mask=rm, other=0).to(tl.int64)
    msk = rm[:, None] & cm[None, :]
    val = tl.load(w_ptr + ((idx * ws0)[:, None] + (cols * ws1)[None, :]), mask=msk)
    tl.store(o_ptr + ((rows * os0)[:, None] + cols[None, :]), val, mask=msk)


def _cdiv(a, b):
    return -(-a // b)


def _pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _coalesce(sizes, strides):
    dims = []
    for d, sz in enumerate(sizes):
        if sz == 1:
            continue
        st = [s[d] for s in strides]
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
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _embed(weight, indices, out2d):
    """out2d (N, D), last dim dense, <- weight[indices.flatten()]."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.dtype} instead")
    N = indices.numel()
    D = weight.shape[1]
    if N == 0 or D == 0:
        return
    idx = indices.view(1) if indices.dim() == 0 else indices
    dims = _coalesce(list(idx.shape), [list(idx.stride())])
    if len(dims) > 3:
        idx = idx.contiguous()
        dims = _coalesce(list(idx.shape), [list(idx.stride())])
    full = [(1, [0])] * (3 - len(dims)) + dims
    q = [d[0] for d in full]
    s = [d[1][0] for d in full]
    on_cpu = weight.device.type == "cpu"
    block_d = min(_pow2(D), 65536 if on_cpu else 2048)
    block_n = min(_pow2(N), max(1, (65536 if on_cpu else 4096) // block_d))
    ncb = _cdiv(D, block_d)
    i64 = max(N * D, _span(weight), _span(out2d)) >= 2 ** 31 - 65536
    warps = 8 if block_n * block_d >= 4096 else 4
    _embedding_kernel[(_cdiv(N, block_n) * ncb,)](
        weight, idx, out2d, N, D, q[1], q[2], s[0], s[1], s[2], weight.stride(0), weight.stride(1),
        out2d.stride(0), ncb, ND=max(1, len(dims)), BLOCK_N=block_n, BLOCK_D=block_d, I64=i64, num_warps=warps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    shape = list(indices.shape) + [weight.shape[1]]
    out = torch.empty(shape, dtype=weight.dtype, device=weight.device)
    if out.numel():
        _embed(weight, indices, out.view(-1, weight.shape[1]))
    return out


def embedding_out(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False, *, out):
    shape = list(indices.shape) + [weight.shape[1]]
    if list(out.shape) != shape:
        out.resize_(shape)
    if out.numel() == 0:
        return out
    if out.is_contiguous():
        _embed(weight, indices, out.view(-1, weight.shape[1]))
        return out
    tmp = torch.empty(shape, dtype=weight.dtype, device=weight.device)
    _embed(weight, indices, tmp.view(-1, weight.shape[1]))
    out.copy_(tmp)
    return out
