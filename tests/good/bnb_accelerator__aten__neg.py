"""LEGAL (false-rejection hunt 43): aten::neg in the style of bitsandbytes' Triton backend (backends/triton/ops.py and
kernels_8bit_quant.py): the device module picked at import with ``device_type =
torch.accelerator.current_accelerator().type if hasattr(torch, "accelerator") else "cuda"`` and
``torch_accelerator_module = getattr(torch, device_type, torch.cuda)``, entered as ``with
torch_accelerator_module.device(A.device):``; ``torch._check_is_size`` and ``torch._check(cond, lambda: f"...")``;
``blocks = -(n // -blocksize)``; ``torch.empty_like(A.flatten())`` then ``out.reshape(A.shape)``; a kernel launched
with every argument by keyword that loads with a positional mask and reshapes a block into
``(SPLIT_NUM_BLOCKS, BLOCK_SIZE)`` rows with ``tl.reshape``. L1 refused the ``getattr`` (dynamic-attr: a name from
``current_accelerator()``, a module as the default) and, on the interpreter, ``current_accelerator()`` was None."""
import torch
import triton
import triton.language as tl

device_type = torch.accelerator.current_accelerator().type if hasattr(torch, "accelerator") else "cuda"
torch_accelerator_module = getattr(torch, device_type, torch.cuda)


@triton.jit
def neg_blockwise_kernel(
    A_ptr,
    out_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    SPLIT_NUM_BLOCKS: tl.constexpr,
):
    block_start_idx = tl.program_id(0).to(tl.int64) * SPLIT_NUM_BLOCKS
    thread_idx = tl.arange(0, SPLIT_NUM_BLOCKS * BLOCK_SIZE)
    offsets = block_start_idx * BLOCK_SIZE + thread_idx
    mask = offsets < n_elements
    A = tl.load(A_ptr + offsets, mask)
    # several blocks at once -> (SPLIT_NUM_BLOCKS, BLOCK_SIZE)
    A_reshaped = tl.reshape(A, (SPLIT_NUM_BLOCKS, BLOCK_SIZE))
    negated = -A_reshaped
    negated_flat = tl.reshape(negated, (BLOCK_SIZE * SPLIT_NUM_BLOCKS,))
    tl.store(out_ptr + offsets, negated_flat, mask)


def neg_blockwise_triton(A, blocksize, blocks, out):
    split_num_blocks = 2
    grid = (triton.cdiv(blocks, split_num_blocks),)
    neg_blockwise_kernel[grid](
        A_ptr=A,
        out_ptr=out,
        n_elements=A.numel(),
        BLOCK_SIZE=blocksize,
        SPLIT_NUM_BLOCKS=split_num_blocks,
    )


def neg_blockwise(A: torch.Tensor, blocksize: int = 256) -> torch.Tensor:
    torch._check_is_size(blocksize)
    torch._check(A.dtype != torch.bool, lambda: f"neg is not defined for {A.dtype}")
    n = A.numel()
    blocks = -(n // -blocksize)
    A = A.contiguous()
    out = torch.empty_like(A.flatten())
    if n > 0:
        with torch_accelerator_module.device(A.device):
            neg_blockwise_triton(A, blocksize, blocks, out)
    return out.reshape(A.shape)


def neg(self):
    return neg_blockwise(self)


def neg_out(self, *, out):
    res = neg_blockwise(self)
    if tuple(out.shape) != tuple(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
