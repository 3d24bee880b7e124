"""LEGAL (tp44): vllm::moe_align_block_size as vLLM and SGLang wrote it in Triton before their CUDA kernels took
over (``moe_align_block_size_stage1..4``): one program per expert counts a slice of the entries into its own row
of a ``tokens_cnts`` matrix, the rows are prefix-summed per expert column, one program turns the counts into padded
offsets, and each program scatters its slice, all with scalar ``tl.load``/``tl.store`` in ``range`` loops (one
bounded by ``tl.minimum``). Idioms: ``@triton.jit(do_not_specialize=["numel", "tokens_per_thread"])``, ``if
start_idx + i < numel:`` inside a loop, ``tl.cdiv`` in a kernel, a module ``ceil_div`` helper, the wrapper's
``sorted_token_ids.fill_(topk_ids.numel())`` (a fill of the caller's output with a Python int), ``torch.zeros`` work
tables, and a discard column (index E) for entries the operator ignores (an id >= E, or -1 through ``expert_map``)."""
import torch
import triton
import triton.language as tl


def ceil_div(a, b):
    return (a + b - 1) // b


@triton.jit
def _local_expert(topk_ids_ptr, expert_map_ptr, i, num_experts, HAS_MAP: tl.constexpr):
    expert = tl.load(topk_ids_ptr + i).to(tl.int32)
    if HAS_MAP:
        inside = (expert >= 0) & (expert < num_experts)
        expert = tl.load(expert_map_ptr + tl.where(inside, expert, 0))
        expert = tl.where(inside, expert, -1)
    return tl.where((expert >= 0) & (expert < num_experts), expert, num_experts)


@triton.jit(do_not_specialize=["numel", "tokens_per_thread"])
def moe_align_block_size_stage1(topk_ids_ptr, expert_map_ptr, tokens_cnts_ptr, num_experts: tl.constexpr, numel,
                                tokens_per_thread, HAS_MAP: tl.constexpr):
    pid = tl.program_id(0)
    start_idx = pid * tokens_per_thread
    off_c = (pid + 1) * (num_experts + 1)
    for i in range(tokens_per_thread):
        if start_idx + i < numel:
            expert_idx = _local_expert(topk_ids_ptr, expert_map_ptr, start_idx + i, num_experts, HAS_MAP)
            token_cnt = tl.load(tokens_cnts_ptr + off_c + expert_idx)
            tl.store(tokens_cnts_ptr + off_c + expert_idx, token_cnt + 1)


@triton.jit
def moe_align_block_size_stage2(tokens_cnts_ptr, num_experts: tl.constexpr):
    pid = tl.program_id(0)
    last_cnt = 0
    for i in range(1, num_experts + 1):
        token_cnt = tl.load(tokens_cnts_ptr + i * (num_experts + 1) + pid)
        last_cnt = last_cnt + token_cnt
        tl.store(tokens_cnts_ptr + i * (num_experts + 1) + pid, last_cnt)


@triton.jit(do_not_specialize=["num_blocks"])
def moe_align_block_size_stage3(total_tokens_post_pad_ptr, tokens_cnts_ptr, cumsum_ptr, expert_ids_ptr, num_blocks,
                                num_experts: tl.constexpr, block_size: tl.constexpr, BLOCK: tl.constexpr):
    last_cumsum = 0
    off_cnt = num_experts * (num_experts + 1)
    for i in range(1, num_experts + 1):
        token_cnt = tl.load(tokens_cnts_ptr + off_cnt + i - 1)
        last_cumsum = last_cumsum + tl.cdiv(token_cnt, block_size) * block_size
        tl.store(cumsum_ptr + i, last_cumsum)
    tl.store(total_tokens_post_pad_ptr, last_cumsum)
    for start in range(last_cumsum // block_size, num_blocks, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(expert_ids_ptr + offs, tl.zeros([BLOCK], dtype=tl.int32), mask=offs < num_blocks)


@triton.jit(do_not_specialize=["numel", "tokens_per_thread"])
def moe_align_block_size_stage4(topk_ids_ptr, expert_map_ptr, sorted_token_ids_ptr, expert_ids_ptr, tokens_cnts_ptr,
                                cumsum_ptr, num_experts: tl.constexpr, block_size: tl.constexpr, numel,
                                tokens_per_thread, HAS_MAP: tl.constexpr):
    pid = tl.program_id(0)
    start_idx = tl.load(cumsum_ptr + pid)
    end_idx = tl.load(cumsum_ptr + pid + 1)
    for i in range(start_idx, end_idx, block_size):
        tl.store(expert_ids_ptr + i // block_size, pid)

    start_idx = pid * tokens_per_thread
    off_t = pid * (num_experts + 1)
    for i in range(start_idx, tl.minimum(start_idx + tokens_per_thread, numel)):
        expert_id = _local_expert(topk_ids_ptr, expert_map_ptr, i, num_experts, HAS_MAP)
        if expert_id < num_experts:
            token_cnt = tl.load(tokens_cnts_ptr + off_t + expert_id)
            rank_post_pad = token_cnt + tl.load(cumsum_ptr + expert_id)
            tl.store(sorted_token_ids_ptr + rank_post_pad, i)
            tl.store(tokens_cnts_ptr + off_t + expert_id, token_cnt + 1)


def moe_align_block_size(topk_ids, num_experts, block_size, sorted_token_ids, experts_ids, num_tokens_post_pad,
                         expert_map=None):
    numel = topk_ids.numel()
    device = topk_ids.device
    grid = (num_experts,)
    tokens_cnts = torch.zeros((num_experts + 1, num_experts + 1), dtype=torch.int32, device=device)
    cumsum = torch.zeros((num_experts + 1,), dtype=torch.int32, device=device)
    tokens_per_thread = ceil_div(numel, num_experts)
    num_blocks = min(experts_ids.numel(), ceil_div(sorted_token_ids.numel(), block_size))
    has_map = expert_map is not None
    sorted_token_ids.fill_(topk_ids.numel())

    moe_align_block_size_stage1[grid](topk_ids, expert_map, tokens_cnts, num_experts, numel, tokens_per_thread,
                                      HAS_MAP=has_map)
    moe_align_block_size_stage2[grid](tokens_cnts, num_experts)
    moe_align_block_size_stage3[(1,)](num_tokens_post_pad, tokens_cnts, cumsum, experts_ids, num_blocks,
                                      num_experts, block_size, BLOCK=256)
    moe_align_block_size_stage4[grid](topk_ids, expert_map, sorted_token_ids, experts_ids, tokens_cnts, cumsum,
                                      num_experts, block_size, numel, tokens_per_thread, HAS_MAP=has_map)
