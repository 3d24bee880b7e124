"""LEGAL (false-rejection hunt 42): vllm::merge_attn_states in the style of vLLM's own Triton kernel
(triton_merge_attn_states): grid ``(num_tokens, num_heads)`` read back in the kernel with ``tl.num_programs``, the
LSEs fixed with Python conditional expressions on scalars (``p_lse = float("-inf") if p_lse == float("inf") else
p_lse``), an ``if`` on a scalar for the both-minus-infinity case, ``OUTPUT_LSE``/``PADDED_HEAD_SIZE`` constexprs and
the output LSE pointer passed only when asked for."""
import torch
import triton
import triton.language as tl


@triton.jit
def merge_attn_states_kernel(output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse,
                             out_head_stride, in_head_stride, HEAD_SIZE: tl.constexpr,
                             PADDED_HEAD_SIZE: tl.constexpr, OUTPUT_LSE: tl.constexpr):
    token_idx = tl.program_id(0).to(tl.int64)
    num_tokens = tl.num_programs(0).to(tl.int64)
    head_idx = tl.program_id(1).to(tl.int64)
    num_heads = tl.num_programs(1).to(tl.int64)

    p_lse = tl.load(prefix_lse + head_idx * num_tokens + token_idx)
    s_lse = tl.load(suffix_lse + head_idx * num_tokens + token_idx)
    # +inf (and -inf) read as -inf, as vLLM's CUDA kernel does
    p_lse = float("-inf") if (p_lse == float("inf")) | (p_lse == float("-inf")) else p_lse
    s_lse = float("-inf") if (s_lse == float("inf")) | (s_lse == float("-inf")) else s_lse
    # NaN-ignoring max
    max_lse = s_lse if p_lse != p_lse else (p_lse if s_lse != s_lse else tl.maximum(p_lse, s_lse))

    head_arange = tl.arange(0, PADDED_HEAD_SIZE)
    head_mask = head_arange < HEAD_SIZE
    src = token_idx * num_heads * in_head_stride + head_idx * in_head_stride + head_arange
    dst = token_idx * num_heads * out_head_stride + head_idx * out_head_stride + head_arange
    p_out = tl.load(prefix_output + src, mask=head_mask, other=0.0).to(tl.float32)
    if max_lse == float("-inf"):
        tl.store(output + dst, p_out.to(output.dtype.element_ty), mask=head_mask)
        if OUTPUT_LSE:
            tl.store(output_lse + head_idx * num_tokens + token_idx, max_lse)
    else:
        s_out = tl.load(suffix_output + src, mask=head_mask, other=0.0).to(tl.float32)
        p_se = tl.exp(p_lse - max_lse)
        s_se = tl.exp(s_lse - max_lse)
        out_se = p_se + s_se
        if OUTPUT_LSE:
            tl.store(output_lse + head_idx * num_tokens + token_idx, tl.log(out_se) + max_lse)
        p_scale = tl.math.div_rn(p_se, out_se)
        s_scale = tl.math.div_rn(s_se, out_se)
        out = p_out * p_scale + s_out * s_scale
        tl.store(output + dst, out.to(output.dtype.element_ty), mask=head_mask)


def merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse, output_lse=None):
    num_tokens = output.shape[0]
    num_query_heads = output.shape[1]
    head_size = output.shape[2]
    if num_tokens == 0 or num_query_heads == 0:
        return None
    padded_head_size = triton.next_power_of_2(head_size)
    merge_attn_states_kernel[(num_tokens, num_query_heads)](
        output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse,
        output.stride(1), prefix_output.stride(1), head_size, padded_head_size, output_lse is not None,
    )
    return None
