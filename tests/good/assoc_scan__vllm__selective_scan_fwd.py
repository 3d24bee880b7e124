"""LEGAL (tp44): vllm::selective_scan_fwd as a chunked parallel scan, in the style of mamba's Triton kernels
(mamba_ssm/ops/triton/selective_state_update.py) and of Triton selective-scan ports: the recurrence
``h <- exp(dt*A) * h + dt*u*B`` over each chunk of tokens is ``tl.associative_scan((a, b), axis=2,
combine_fn=_first_order_op)`` on a pair of blocks, with a @triton.jit combine taking and returning two values; the
carry between chunks is the scan's last column. Idioms: stacked ``@triton.heuristics`` deciding ``HAS_DT_BIAS``,
``HAS_D``, ``HAS_Z``, ``HAS_STATE_IDX`` from ``args[...] is not None`` and ``BLOCK_SIZE_DSTATE`` from
``args["dstate"]``; ``None`` pointers; a ``softplus`` jit helper defined by Triton version (``TRITON3 = version.parse(triton.__version__)
>= version.parse("3.0.0")``: ``libdevice.log1p`` imported under the ``if``, Triton 2's ``tl.math.log1p`` otherwise); a bool tensor
(``has_initial_state``) passed to the kernel as it is; ``with torch.cuda.device(u.device.index):`` around the
launch; varlen and batch layouts told apart by a ``query_start_loc`` pointer left ``None``."""
import torch
import triton
import triton.language as tl
from packaging import version

TRITON3 = version.parse(triton.__version__) >= version.parse("3.0.0")

if TRITON3:
    from triton.language.extra import libdevice

    @triton.jit
    def softplus(dt):
        return tl.where(dt <= 20.0, libdevice.log1p(tl.exp(dt)), dt)
else:

    @triton.jit
    def softplus(dt):
        return tl.where(dt <= 20.0, tl.math.log1p(tl.exp(dt)), dt)


@triton.jit
def _first_order_op(l_a, l_b, r_a, r_b):
    return r_a * l_a, r_a * l_b + r_b


@triton.heuristics({"HAS_DT_BIAS": lambda args: args["dt_bias_ptr"] is not None})
@triton.heuristics({"HAS_D": lambda args: args["D_ptr"] is not None})
@triton.heuristics({"HAS_Z": lambda args: args["z_ptr"] is not None})
@triton.heuristics({"HAS_STATE_IDX": lambda args: args["state_batch_indices_ptr"] is not None})
@triton.heuristics({"HAS_INIT": lambda args: args["has_initial_state_ptr"] is not None})
@triton.heuristics({"VARLEN": lambda args: args["query_start_loc_ptr"] is not None})
@triton.heuristics({"BLOCK_SIZE_DSTATE": lambda args: max(16, triton.next_power_of_2(args["dstate"]))})
@triton.jit
def _selective_scan_kernel(
    u_ptr, delta_ptr, A_ptr, B_ptr, C_ptr, D_ptr, z_ptr, dt_bias_ptr, query_start_loc_ptr, state_batch_indices_ptr,
    has_initial_state_ptr, state_ptr, pad_slot_id, dim, dstate, seqlen, nheads_ngroups_ratio,
    stride_u_batch, stride_u_dim, stride_delta_batch, stride_delta_dim, stride_z_batch, stride_z_dim,
    stride_B_batch, stride_B_group, stride_B_dstate, stride_C_batch, stride_C_group, stride_C_dstate,
    stride_state_batch, stride_state_dim, stride_state_dstate,
    DT_SOFTPLUS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_L: tl.constexpr,
    HAS_DT_BIAS: tl.constexpr, HAS_D: tl.constexpr, HAS_Z: tl.constexpr, HAS_STATE_IDX: tl.constexpr,
    HAS_INIT: tl.constexpr, VARLEN: tl.constexpr, BLOCK_SIZE_DSTATE: tl.constexpr,
):
    pid_b = tl.program_id(axis=0)
    pid_m = tl.program_id(axis=1)
    if VARLEN:
        start = tl.load(query_start_loc_ptr + pid_b)
        end = tl.load(query_start_loc_ptr + pid_b + 1)
        batch = 0
    else:
        start = 0
        end = seqlen
        batch = pid_b
    if HAS_STATE_IDX:
        slot = tl.load(state_batch_indices_ptr + pid_b).to(tl.int64)
    else:
        slot = pid_b.to(tl.int64)
    if slot == pad_slot_id:
        return

    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.arange(0, BLOCK_SIZE_DSTATE)
    offs_l = tl.arange(0, BLOCK_L)
    mask_m = offs_m < dim
    mask_n = offs_n < dstate
    mask_mn = mask_m[:, None] & mask_n[None, :]
    group = (pid_m * BLOCK_SIZE_M // nheads_ngroups_ratio).to(tl.int64)
    tl.static_assert(BLOCK_L >= 1)

    A = tl.load(A_ptr + offs_m[:, None] * dstate + offs_n[None, :], mask=mask_mn, other=0.0).to(tl.float32)
    state_ptrs = state_ptr + slot * stride_state_batch + offs_m[:, None] * stride_state_dim \
        + offs_n[None, :] * stride_state_dstate
    h = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_DSTATE), dtype=tl.float32)
    if HAS_INIT:
        if tl.load(has_initial_state_ptr + pid_b):
            h = tl.load(state_ptrs, mask=mask_mn, other=0.0).to(tl.float32)
    if HAS_DT_BIAS:
        dt_bias = tl.load(dt_bias_ptr + offs_m, mask=mask_m, other=0.0).to(tl.float32)
    if HAS_D:
        D = tl.load(D_ptr + offs_m, mask=mask_m, other=0.0).to(tl.float32)

    u_base = u_ptr + batch * stride_u_batch + offs_m[:, None] * stride_u_dim
    delta_base = delta_ptr + batch * stride_delta_batch + offs_m[:, None] * stride_delta_dim
    if HAS_Z:
        z_base = z_ptr + batch * stride_z_batch + offs_m[:, None] * stride_z_dim
    B_base = B_ptr + batch * stride_B_batch + group * stride_B_group + offs_n[:, None] * stride_B_dstate
    C_base = C_ptr + batch * stride_C_batch + group * stride_C_group + offs_n[:, None] * stride_C_dstate
    for t0 in range(start, end, BLOCK_L):
        t = t0 + offs_l
        mask_t = t < end
        mask_mt = mask_m[:, None] & mask_t[None, :]
        dt = tl.load(delta_base + t[None, :], mask=mask_mt, other=0.0).to(tl.float32)
        if HAS_DT_BIAS:
            dt += dt_bias[:, None]
        if DT_SOFTPLUS:
            dt = softplus(dt)
        u = tl.load(u_base + t[None, :], mask=mask_mt, other=0.0).to(tl.float32)
        Bt = tl.load(B_base + t[None, :], mask=mask_n[:, None] & mask_t[None, :], other=0.0).to(tl.float32)
        Ct = tl.load(C_base + t[None, :], mask=mask_n[:, None] & mask_t[None, :], other=0.0).to(tl.float32)
        dA = tl.exp(dt[:, None, :] * A[:, :, None])
        dBu = (dt * u)[:, None, :] * Bt[None, :, :]
        keep = mask_t[None, None, :]
        dA = tl.where(keep, dA, 1.0)
        dBu = tl.where(keep, dBu, 0.0)
        a_cum, b_cum = tl.associative_scan((dA, dBu), axis=2, combine_fn=_first_order_op)
        hs = a_cum * h[:, :, None] + b_cum
        y = tl.sum(hs * Ct[None, :, :], axis=1)
        if HAS_D:
            y += D[:, None] * u
        tl.store(delta_base + t[None, :], y.to(delta_ptr.dtype.element_ty), mask=mask_mt)
        if HAS_Z:
            z = tl.load(z_base + t[None, :], mask=mask_mt, other=0.0).to(tl.float32)
            tl.store(z_base + t[None, :], (y * z / (1.0 + tl.exp(-z))).to(z_ptr.dtype.element_ty), mask=mask_mt)
        last = tl.minimum(end - t0, BLOCK_L) - 1
        h = tl.sum(tl.where(offs_l[None, None, :] == last, hs, 0.0), axis=2)
    tl.store(state_ptrs, h.to(state_ptr.dtype.element_ty), mask=mask_mn)


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc, cache_indices,
                       has_initial_state, ssm_states, pad_slot_id, block_size=1024,
                       block_idx_first_scheduled_token=None, block_idx_last_scheduled_token=None,
                       initial_state_idx=None):
    assert block_idx_first_scheduled_token is None and initial_state_idx is None, "prefix caching is not supported"
    dim, dstate = A.shape
    ngroups = B.shape[-3]
    if query_start_loc is not None:
        batch, seqlen = query_start_loc.shape[0] - 1, 0
        sb = lambda t: (0, t.stride(0)) if t is not None else (0, 0)  # noqa: E731
        sg = lambda t: (0, t.stride(0), t.stride(1))  # noqa: E731
    else:
        batch, seqlen = u.shape[0], u.shape[-1]
        sb = lambda t: (t.stride(0), t.stride(1)) if t is not None else (0, 0)  # noqa: E731
        sg = lambda t: (t.stride(0), t.stride(1), t.stride(2))  # noqa: E731
    if batch == 0 or dim == 0:
        return
    ratio = dim // ngroups
    BLOCK_SIZE_M = min(8, ratio & -ratio)  # a power of two that divides the group: one group per program
    grid = (batch, triton.cdiv(dim, BLOCK_SIZE_M))
    with torch.cuda.device(u.device.index):
        _selective_scan_kernel[grid](
            u, delta, A, B, C, D_, z_, delta_bias_, query_start_loc, cache_indices, has_initial_state, ssm_states,
            pad_slot_id, dim, dstate, seqlen, ratio,
            *sb(u), *sb(delta), *sb(z_), *sg(B), *sg(C), *ssm_states.stride(),
            DT_SOFTPLUS=bool(delta_softplus), BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_L=16, num_warps=4,
        )
