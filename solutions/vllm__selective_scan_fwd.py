import torch
import triton
import triton.language as tl


@triton.jit
def _softplus(x):
    # log1p(exp(x)) for x <= 20, x beyond: a short series where exp(x) is small (log(1 + e) loses its
    # relative accuracy there), log(1 + e) elsewhere
    e = tl.exp(x)
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * (0.2 - e * (1.0 / 6.0))))))
    lp = tl.where(e < 0.0625, series, tl.log(1.0 + e))
    return tl.where(x <= 20.0, lp, x)


@triton.jit
def _scan_kernel(u_ptr, dl_ptr, a_ptr, b_ptr, c_ptr, dd_ptr, z_ptr, bias_ptr, qsl_ptr, ci_ptr, init_ptr, st_ptr,
                 pad_id, DM, N, L, GSIZE,
                 su_b, su_d, sd_b, sd_d, sz_b, sz_d, sb_b, sb_g, sb_n, sc_b, sc_g, sc_n, ss_0, ss_1, ss_2,
                 VARLEN: tl.constexpr, HAS_D: tl.constexpr, HAS_Z: tl.constexpr, HAS_BIAS: tl.constexpr,
                 SOFTPLUS: tl.constexpr, HAS_CACHE: tl.constexpr, HAS_INIT: tl.constexpr,
                 BLOCK_D: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    n = tl.arange(0, BLOCK_N)
    dm = d < DM
    nm = n < N
    m2 = dm[:, None] & nm[None, :]
    if HAS_CACHE:
        ci = tl.load(ci_ptr + b)
    else:
        ci = b
    if ci != pad_id:
        if VARLEN:
            t0 = tl.load(qsl_ptr + b)
            ln = tl.load(qsl_ptr + b + 1) - t0
            bb = 0
        else:
            t0 = 0
            ln = L
            bb = b
        d64 = d.to(tl.int64)
        ub = u_ptr + bb.to(tl.int64) * su_b + d64 * su_d + t0
        db = dl_ptr + bb.to(tl.int64) * sd_b + d64 * sd_d + t0
        zb = z_ptr + bb.to(tl.int64) * sz_b + d64 * sz_d + t0
        g = (d // GSIZE).to(tl.int64)
        brow = b_ptr + bb.to(tl.int64) * sb_b + g[:, None] * sb_g + n[None, :].to(tl.int64) * sb_n + t0
        crow = c_ptr + bb.to(tl.int64) * sc_b + g[:, None] * sc_g + n[None, :].to(tl.int64) * sc_n + t0
        A = tl.load(a_ptr + d64[:, None] * N + n[None, :], mask=m2, other=0.0).to(tl.float32)
        sp = st_ptr + ci.to(tl.int64) * ss_0 + d64[:, None] * ss_1 + n[None, :] * ss_2
        if HAS_INIT:
            use = tl.load(init_ptr + b) != 0
            h = tl.load(sp, mask=m2 & use, other=0.0).to(tl.float32)
        else:
            h = tl.zeros([BLOCK_D, BLOCK_N], dtype=tl.float32)
        if HAS_BIAS:
            bias = tl.load(bias_ptr + d, mask=dm, other=0.0).to(tl.float32)
        if HAS_D:
            dsk = tl.load(dd_ptr + d, mask=dm, other=0.0).to(tl.float32)
        for t in range(0, ln):
            dt = tl.load(db + t, mask=dm, other=0.0).to(tl.float32)
            if HAS_BIAS:
                dt = dt + bias
            if SOFTPLUS:
                dt = _softplus(dt)
            uu = tl.load(ub + t, mask=dm, other=0.0).to(tl.float32)
            bt = tl.load(brow + t, mask=m2, other=0.0).to(tl.float32)
            ct = tl.load(crow + t, mask=m2, other=0.0).to(tl.float32)
            h = tl.exp(dt[:, None] * A) * h + (dt * uu)[:, None] * bt
            y = tl.sum(h * ct, axis=1)
            if HAS_D:
                y = dsk * uu + y
            tl.store(db + t, y.to(dl_ptr.dtype.element_ty), mask=dm)
            if HAS_Z:
                zf = tl.load(zb + t, mask=dm, other=0.0).to(tl.float32)
                tl.store(zb + t, (y * zf / (1.0 + tl.exp(-zf))).to(z_ptr.dtype.element_ty), mask=dm)
        tl.store(sp, h.to(st_ptr.dtype.element_ty), mask=m2)


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc, cache_indices,
                       has_initial_state, ssm_states, pad_slot_id, block_size=1024,
                       block_idx_first_scheduled_token=None, block_idx_last_scheduled_token=None,
                       initial_state_idx=None):
    if block_idx_first_scheduled_token is not None or initial_state_idx is not None:
        raise NotImplementedError("selective_scan_fwd: the prefix-caching mode is not supported")
    varlen = query_start_loc is not None
    dm, n = A.shape
    g = B.shape[-3]
    if varlen:
        nseq = query_start_loc.shape[0] - 1
        L = 0
        su = (0, u.stride(0))
        sd = (0, delta.stride(0))
        sz = (0, z_.stride(0)) if z_ is not None else (0, 0)
        sb = (0, B.stride(0), B.stride(1))
        sc = (0, C.stride(0), C.stride(1))
    else:
        nseq = u.shape[0]
        L = u.shape[2]
        su = (u.stride(0), u.stride(1))
        sd = (delta.stride(0), delta.stride(1))
        sz = (z_.stride(0), z_.stride(1)) if z_ is not None else (0, 0)
        sb = (B.stride(0), B.stride(1), B.stride(2))
        sc = (C.stride(0), C.stride(1), C.stride(2))
    if nseq == 0 or dm == 0:
        return None
    block_n = max(16, triton.next_power_of_2(n))
    block_d = max(1, min(32, 4096 // block_n))
    dummy = u
    init = has_initial_state.view(torch.uint8) if has_initial_state is not None else dummy
    grid = (nseq, triton.cdiv(dm, block_d))
    _scan_kernel[grid](u, delta, A, B, C, D_ if D_ is not None else dummy, z_ if z_ is not None else dummy,
                       delta_bias_ if delta_bias_ is not None else dummy,
                       query_start_loc if varlen else dummy, cache_indices if cache_indices is not None else dummy,
                       init, ssm_states, int(pad_slot_id), dm, n, L, dm // g,
                       su[0], su[1], sd[0], sd[1], sz[0], sz[1], sb[0], sb[1], sb[2], sc[0], sc[1], sc[2],
                       ssm_states.stride(0), ssm_states.stride(1), ssm_states.stride(2),
                       VARLEN=varlen, HAS_D=D_ is not None, HAS_Z=z_ is not None,
                       HAS_BIAS=delta_bias_ is not None, SOFTPLUS=bool(delta_softplus),
                       HAS_CACHE=cache_indices is not None, HAS_INIT=has_initial_state is not None,
                       BLOCK_D=block_d, BLOCK_N=block_n, num_warps=4)
    return None
