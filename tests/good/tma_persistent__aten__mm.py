"""LEGAL (false-rejection hunt 42): aten::mm in the shape of Triton's persistent-matmul tutorial (09): host
``TensorDescriptor.from_tensor(t, [1, 1])`` descriptors with a dummy block shape that an autotune config's
``pre_hook`` sets from the chosen config (``nargs["a_desc"].block_shape = [BLOCK_SIZE_M, BLOCK_SIZE_K]``), configs made by
a ``get_configs(pre_hook=...)`` helper, ``@triton.jit(launch_metadata=...)`` reporting name/flops/bytes for
profilers, a persistent grid of ``NUM_SMS`` programs walking tiles with ``tl.range(..., flatten=True,
warp_specialize=WARP_SPECIALIZE)`` and a grouped ``_compute_pid`` helper; a pointer kernel where TMA's 16-byte
alignment does not hold."""
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count


def _matmul_launch_metadata(grid, kernel, args):
    ret = {}
    M, N, K = args["M"], args["N"], args["K"]
    ret["name"] = f"{kernel.name} [M={M}, N={N}, K={K}]"
    elem = args["c_desc"].base.element_size()
    ret[f"flops{elem * 8}"] = 2.0 * M * N * K
    ret["bytes"] = elem * (M * K + N * K + M * N)
    return ret


def set_block_size_hook(nargs):
    bm, bn, bk = nargs["BLOCK_SIZE_M"], nargs["BLOCK_SIZE_N"], nargs["BLOCK_SIZE_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bk, bn]
    nargs["c_desc"].block_shape = [bm, bn]


def get_configs(pre_hook=None):
    return [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 8},
                          num_stages=s, num_warps=4, pre_hook=pre_hook)
            for bm, bn in ((16, 32), (32, 32)) for s in (2, 3)]


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(configs=get_configs(pre_hook=set_block_size_hook), key=["M", "N", "K", "WARP_SPECIALIZE"])
@triton.jit(launch_metadata=_matmul_launch_metadata)
def _mm_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                       WARP_SPECIALIZE: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_m = pid_m * BLOCK_SIZE_M
        offs_n = pid_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_m, offs_k])
            b = b_desc.load([offs_k, offs_n])
            acc = tl.dot(a, b, acc, input_precision="ieee")
        c_desc.store([offs_m, offs_n], acc.to(c_desc.dtype))


@triton.jit
def _mm_ptr(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _launch(a, b, c, M, N, K):
    aligned = all((s * t.element_size()) % 16 == 0 and t.data_ptr() % 16 == 0 for s, t in ((K, a), (N, b), (N, c)))
    if not aligned:
        _mm_ptr[(triton.cdiv(M, 16), triton.cdiv(N, 32))](a, b, c, M, N, K, BM=16, BN=32, BK=16)
        return
    dummy_block = [1, 1]
    a_desc = TensorDescriptor.from_tensor(a, dummy_block)
    b_desc = TensorDescriptor.from_tensor(b, dummy_block)
    c_desc = TensorDescriptor.from_tensor(c, dummy_block)

    def grid(META):
        tiles = triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])
        return (min(NUM_SMS, tiles), )

    _mm_tma_persistent[grid](a_desc, b_desc, c_desc, M, N, K, NUM_SMS=NUM_SMS, WARP_SPECIALIZE=False)


def mm(self, mat2):
    assert self.dim() == 2 and mat2.dim() == 2, "mm: 2-D operands"
    assert self.shape[1] == mat2.shape[0], f"mm: shapes {tuple(self.shape)} and {tuple(mat2.shape)}"
    a = self.contiguous()
    b = mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    if K == 0:
        c.zero_()
        return c
    _launch(a, b, c, M, N, K)
    return c


def mm_out(self, mat2, *, out):
    res = mm(self, mat2)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out


def mm_dtype(self, mat2, out_dtype):
    if out_dtype != self.dtype and not (out_dtype == torch.float32 and self.dtype in (torch.float16, torch.bfloat16)):
        raise RuntimeError("mm.dtype: out_dtype must be the input dtype or float32 for half inputs")
    a = self.contiguous()
    b = mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=out_dtype, device=a.device)
    if M and N:
        if K == 0:
            c.zero_()
        else:
            _launch(a, b, c, M, N, K)
    return c


def mm_dtype_out(self, mat2, out_dtype, *, out):
    res = mm_dtype(self, mat2, out_dtype)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out
