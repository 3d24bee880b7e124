"""LEGAL (false-rejection hunt 43): aten::index_select in the style of xformers' ``k_index_select_cat.py``: argument
checks that raise ``ValueError`` with f-strings (``source.is_cuda``, ``ndim``), the launch grid a nested ``def
grid(meta)`` returning a 2-D tuple from ``meta["BLOCK_SIZE_INDEX"]``/``meta["BLOCK_SIZE_COL"]``, a 2-D gather of
rows through loaded indices (``rows[:, None] * stride0 + cols[None, :] * stride1``). The input is taken as given
(``.contiguous()``) and viewed as (outer, dim, inner); the result is a new buffer, copied into ``out=`` whole."""
import torch
import triton
import triton.language as tl


@triton.jit
def index_select_fwd_kernel(
    output_ptr,  # *Pointer* to the output (outer, num_indices, inner)
    source_ptr,  # *Pointer* to the source (outer, num_rows, inner)
    index_ptr,  # *Pointer* to the indices
    num_indices,
    num_rows,
    num_cols,
    BLOCK_SIZE_INDEX: tl.constexpr,
    BLOCK_SIZE_COL: tl.constexpr,
):
    pid0 = tl.program_id(axis=0)  # index block
    pid1 = tl.program_id(axis=1)  # column block
    outer = tl.program_id(axis=2).to(tl.int64)
    indices = pid0 * BLOCK_SIZE_INDEX + tl.arange(0, BLOCK_SIZE_INDEX)
    rows = tl.load(index_ptr + indices, mask=indices < num_indices, other=0).to(tl.int64)
    rows = tl.where(rows < 0, rows + num_rows, rows)
    cols = pid1 * BLOCK_SIZE_COL + tl.arange(0, BLOCK_SIZE_COL)
    mask = (indices[:, None] < num_indices) & (cols[None, :] < num_cols)
    source_offsets = source_ptr + outer * num_rows * num_cols + rows[:, None] * num_cols + cols[None, :]
    output = tl.load(source_offsets, mask=mask)
    output_offsets = output_ptr + outer * num_indices * num_cols + indices[:, None].to(tl.int64) * num_cols \
        + cols[None, :]
    tl.store(output_offsets, output, mask=mask)


def index_select_fwd(source: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    if source.is_cuda != index.is_cuda:
        raise ValueError("The index tensor and the source tensor must be on the same device type!")
    if not index.ndim <= 1:
        raise ValueError(f"Expected a 0- or 1-dimensional index, got {index.ndim}.")
    shape = list(source.shape)
    if source.ndim == 0:
        shape, dim = [1], 0
    dim = dim % len(shape)
    num_indices = index.numel()
    outer = 1
    for s in shape[:dim]:
        outer *= s
    num_rows = shape[dim]
    num_cols = 1
    for s in shape[dim + 1:]:
        num_cols *= s
    out_shape = shape[:dim] + [num_indices] + shape[dim + 1:]
    output = torch.empty(out_shape if source.ndim else [num_indices] if index.ndim else [],
                         dtype=source.dtype, device=source.device)
    if output.numel() == 0:
        return output
    src = source.contiguous()
    idx = index.contiguous()

    def grid(meta):
        return (
            triton.cdiv(num_indices, meta["BLOCK_SIZE_INDEX"]),
            triton.cdiv(num_cols, meta["BLOCK_SIZE_COL"]),
            outer,
        )

    index_select_fwd_kernel[grid](
        output,
        src,
        idx,
        num_indices,
        num_rows,
        num_cols,
        BLOCK_SIZE_INDEX=4,
        BLOCK_SIZE_COL=128,
    )
    return output


def index_select(self, dim, index):
    return index_select_fwd(self, dim, index)


def index_select_out(self, dim, index, *, out):
    res = index_select_fwd(self, dim, index)
    if tuple(out.shape) != tuple(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
