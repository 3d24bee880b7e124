"""LEGAL (false-rejection hunt 42): aten::_softmax exactly in the shape of Triton's fused-softmax tutorial, with
its occupancy step: ``kernel = softmax_kernel.warmup(..., grid=(1,))``, ``kernel._init_handles()``, then the
compiled kernel's ``n_regs`` and ``metadata.shared`` size the persistent grid, and the compiled kernel is launched
as ``kernel[(num_programs, 1, 1)](...)`` (device properties read at import as in device_props)."""
import torch
import triton
import triton.language as tl
from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


properties = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]
_props = torch.cuda.get_device_properties(DEVICE)
assert _props.multi_processor_count == NUM_SM
IS_HOPPER_OR_NEWER = torch.cuda.get_device_capability()[0] >= 9


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # starting row of the program
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf")).to(tl.float32)
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output.to(output_ptr.dtype.element_ty), mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x)
    # compile ahead of time to read the kernel's register and shared-memory use
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                   num_stages=num_stages, num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    n_regs = kernel.n_regs
    size_smem = kernel.metadata.shared
    if is_hip():
        NUM_GPRS = NUM_REGS * 2 if IS_HOPPER_OR_NEWER else NUM_REGS
        occupancy = NUM_GPRS // (max(n_regs, 1) * WARP_SIZE * num_warps)
    else:
        occupancy = NUM_REGS // (max(n_regs, 1) * WARP_SIZE * num_warps)
    if size_smem > 0:
        occupancy = min(occupancy, SIZE_SMEM // size_smem)
    num_programs = min(NUM_SM * max(occupancy, 1), n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)
    return y


def _softmax_rows(self, dim):
    dim = dim % max(self.dim(), 1)
    if self.dim() == 0:
        x2 = self.reshape(1, 1)
    else:
        x2 = self.movedim(dim, -1).contiguous()
        x2 = x2.view(-1, x2.shape[-1])
    y2 = softmax(x2)
    if self.dim() == 0:
        return y2.reshape(())
    moved = list(self.movedim(dim, -1).shape)
    return y2.view(moved).movedim(-1, dim)


def _softmax(self, dim, half_to_float):
    if half_to_float:
        raise RuntimeError("half_to_float is not supported")
    if self.numel() == 0:
        return torch.empty_like(self)
    return _softmax_rows(self, dim)


def _softmax_out(self, dim, half_to_float, *, out):
    res = _softmax(self, dim, half_to_float)
    if tuple(out.shape) != tuple(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
