"""The kernel author's tools: ``kgb show OP --cases`` (every shown case, with what each axis means), ``kgb init
OP`` (a submission skeleton) and ``kgb repro RUN OP CASE`` (a failing case rebuilt and run in the foreground).

Held-out cases are never shown nor rebuilt here (:data:`~kernelgenbench.suite.tiers.SHOWN_TIERS`): they judge
whether a kernel generalises beyond the cases it was written against.
"""
from __future__ import annotations

import keyword
import os
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

# -- kgb show --cases -----------------------------------------------------------------------------------------
#: What the common case axes mean (the families' docstrings in ``suite/`` define them; an operator's own
#: axes are explained there, see :func:`axis_meaning`).
AXES: dict[str, str] = {
    "shape": "the logical shape of the (first) input tensor; [] is a 0-d tensor",
    "shape2": "the logical shape of the second operand (broadcast against the first)",
    "dtype": "the dtype of the inputs (fp16, bf16, fp32, fp64, int*, bool); the result's dtype follows PyTorch's "
             "type promotion unless out_dtype says otherwise",
    "dtype2": "the dtype of the second operand",
    "out_dtype": "the dtype of the out= tensor (or of the result where the call takes dtype=)",
    "layout": "how the input is laid out in memory (see its values below): your kernel must follow the strides, "
              "never assume a contiguous input",
    "layout2": "the layout of the second operand (values as for layout)",
    "out_layout": "how the out= (or in-place) destination is laid out (see its values below): write through its "
                  "strides, and never outside the view",
    "out": "True: the call passes out= (the .out overload is reached; write into it and return it)",
    "overload": "which overload of the operator the case reaches (the wrapper named <op>_<overload>, e.g. "
                "add_Scalar_out); 'default' is the plain one",
    "form": "which operands are tensors: tt tensor-tensor, ts tensor and Python number (scalar), st number and "
            "tensor, td/dt a tensor and a 0-d tensor; for other families the named form of the call",
    "scalar": "the Python number operand of ts/st forms (reaches the wrapper as a Python number)",
    "alpha": "the alpha= multiplier of the second operand (add/sub); the scalar alpha of BLAS routines",
    "beta": "the beta multiplier of the existing output (BLAS: C = alpha*op(A)op(B) + beta*C)",
    "range": "the interval the input values are drawn from (uniform; integers: [low, high))",
    "range2": "the interval the second operand's values are drawn from",
    "values": "leading values pinned in logical order ('nan', 'inf', '-inf', '-0.0' included): edge cases your "
              "kernel must get right",
    "values2": "leading values of the second operand pinned in logical order (None: drawn)",
    "dim": "the dimension(s) reduced or indexed along (negative counts from the end; None: all)",
    "keepdim": "keep the reduced dims as size 1 in the result",
    "eps": "the epsilon added inside the square root / denominator",
    "epsilon": "the epsilon added inside the square root",
    "weight": "how the weight is drawn: ones, randn, a scalar or per-channel weight (prelu); True/False: whether a "
              "weight tensor is passed",
    "neg_inf": "-inf entries in the input: True replaces every negative element by -inf; rows: x[0] all -inf (a "
               "slice with no finite entry, whose softmax is NaN) and the first half of x[1] -inf; False: none",
    "heads_pad": "a 3-D input is a slice of a buffer with heads_pad more heads in the middle dim (non-contiguous "
                 "outer strides)",
    "n": "a length (BLAS vector length; an operator's n)",
    "m": "a row count (BLAS: rows of op(A) and C)",
    "k": "the inner dimension (BLAS: columns of op(A), rows of op(B)); topk: how many are kept",
    "incx": "the stride between elements of x in its storage (BLAS; negative: the vector runs backwards from the "
            "end of its storage)",
    "incy": "the stride between elements of y in its storage (BLAS; negative: backwards)",
    "transa": "BLAS op(A): 'N' as stored, 'T' transposed (column-major storage)",
    "transb": "BLAS op(B): 'N' as stored, 'T' transposed (column-major storage)",
    "t": "the number of tokens (rows)",
    "h": "the hidden size (row length)",
    "hidden": "the hidden size (row length)",
    "e": "the number of experts",
    "batch": "the batch size",
    "reduction": "the loss reduction: 0 none, 1 mean, 2 sum",
    "index": "the index tensors (their shapes; a mask for boolean indexing)",
    "index_dtype": "the dtype of the index tensor",
    "index_shape": "the shape of the index tensor",
    "accumulate": "True: indexed writes add instead of overwrite (duplicates accumulate)",
    "dups": "the index holds duplicates",
    "memory_format": "the memory format the result must have (contiguous, or preserve the input's strides)",
    "stride": "the strides of the view or input, in elements",
    "stride_kind": "how the input's strides are made: contig, expanded (stride 0 broadcast), padded2 (rows twice "
                   "as long), reversed/revcontig (dims stored in reverse order)",
    "size": "the requested size of the result",
    "sizes": "the requested sizes of the result",
    "fill": "the fill value",
    "value": "the scalar value of the call (fill value, threshold value, ...)",
    "start": "the first value (arange) or start index",
    "end": "the end (exclusive) of the range",
    "step": "the step of the range",
    "p": "the probability (random ops) or the norm's order",
    "gen": "how random numbers are drawn: an explicit torch.Generator or the default one (results are judged by "
           "statistics, never against PyTorch's random stream)",
    "descending": "sort in descending order",
    "training": "training mode (dropout-like ops): False is a no-op copy",
    "bias": "whether a bias is passed",
    "contig": "whether the input is contiguous",
    "case": "the named layout case of a view or copy (see the family's docstring: transpose, subsample, offset, "
            "reshape_like, ...)",
    "why": "why this case has nothing to compute (the result PyTorch returns is the input itself)",
    "renormalize": "renormalise the top-k weights to sum to 1",
}

#: Axes whose meaning depends on the operator's source: (source, axis) -> meaning.
AXES_BY_SOURCE: dict[tuple[str, str], str] = {
    ("vllm", "pad"): "the input's rows are slices of rows pad elements longer (stride(-2) = H + pad): follow the "
                     "row stride, never assume contiguous rows",
    ("cublas", "pad"): "the leading dimensions are rows + pad (lda, ldb, ldc larger than the rows): the padding rows "
                       "of C hold sentinels that must stay untouched bit for bit",
    ("vllm", "k"): "how many experts each token keeps (topk)",
    ("cublas", "nan"): "the operands filled entirely with NaN in this case: its alpha or beta is 0, so the routine "
                       "must not read them (cublas.md §2.5: alpha == 0 leaves x, A, B unread, beta == 0 leaves C or "
                       "y unread); a NaN that reaches the result means they were read",
    # the cuBLAS axes most routines share (fresh user 44: `kgb show cublas::cublasDgemv_v2 --cases` explained
    # trans and poison only as "a parameter of this operator's cases: see its grid")
    ("cublas", "trans"): "BLAS op(A): 'N' or 0 as stored, 'T' or 1 transposed, 'C' or 2 conjugate-transposed (= 'T' "
                         "for real data); column-major storage",
    ("cublas", "uplo"): "which triangle of the symmetric or triangular matrix is stored and may be read: 0 or 'L' "
                        "lower, 1 or 'U' upper",
    ("cublas", "side"): "where the square matrix A multiplies: 0 or 'L' from the left (op(A)*B), 1 or 'R' from the "
                        "right (B*op(A))",
    ("cublas", "diag"): "0 or 'N': A's diagonal is read; 1 or 'U': a unit diagonal, taken as 1 and never read",
    ("cublas", "batchCount"): "the number of problems in the batch",
    ("cublas", "cparts"): "how complex inputs are drawn: half = torch's complex randn (each part of variance 1/2); "
                          "otherwise each part has variance 1 (cublas.md §2.8)",
    ("cublas", "poison"): "True: the output's memory outside its logical elements (gaps between strided vector "
                          "elements, padding rows, gaps between batches) holds a NaN poison that must stay bit for "
                          "bit: write only the logical elements",
    ("cublas", "nan_x"): "x is filled with NaN and alpha is 0: x must not be read (cublas.md §2.5)",
    ("cublas", "nan_result"): "the result is filled with NaN before the call: the routine must overwrite it",
    ("cublas", "nan_inf"): "x holds NaN and inf values: scal multiplies them even with alpha 0 (NaN stays NaN, inf "
                           "becomes NaN; cublas.md §2.5)",
    ("cublas", "nan_other"): "NaN outside the uplo triangle of A and in its padding rows: only the uplo triangle "
                             "may be read",
    ("cublas", "nan_band"): "NaN in the band storage's out-of-matrix slots (and its diagonal row for a unit "
                            "diagonal): those slots must not be read",
}

#: What the values of layout-like axes mean (suite/common.py make_tensor and poisoned, and the families).
AXIS_VALUES: dict[str, dict[str, str]] = {
    "layout": {
        "contig": "contiguous",
        "transposed": "a transposed view (the last two dims swapped in memory: x.transpose(-1, -2) of a contiguous "
                      "buffer)",
        "step2": "a strided view: the last dim taken with step 2 from a buffer twice as wide (base[..., ::2])",
        "step3": "a strided view: the last dim taken with step 3 from a buffer three times as wide",
        "permuted": "dims stored in reverse order (a permute of a contiguous buffer)",
        "slice0_2": "base[::2] along dim 0 of a base of the given shape",
        "slice0_3": "base[::3] along dim 0 of a base of the given shape",
        "t_slice2": "base.t()[::2] of a base of the given shape",
    },
    "out_layout": {
        "contig": "a contiguous out=",
        "contiguous": "a contiguous out=",
        "step2": "out= is the view base[..., ::2] of a poisoned buffer twice as wide: the skipped elements must stay "
                 "poisoned (never write outside the view)",
        "noncontiguous": "out= is a non-contiguous view (base[..., ::2] of a wider poisoned buffer)",
        "transposed": "out= is a transposed view (x.transpose(-1, -2) of a contiguous poisoned buffer)",
        "resize": "out= is an empty tensor of shape [0]: the wrapper must resize it to the result's shape "
                  "(out.resize_(...)) and fill it",
    },
}
AXIS_VALUES["layout2"] = AXIS_VALUES["layout"]


#: Axes whose meaning is one operator's own: (operator id, axis) -> meaning.
AXES_BY_OP: dict[tuple[str, str], str] = {
    ("vllm::merge_attn_states", "special"): "inf: edge LSEs (where t >= 2 and h >= 2): prefix and suffix LSE both "
                                            "-inf at head 0, token 0 (the output copies the prefix, output_lse "
                                            "-inf), and a prefix LSE of +inf at head 1, token 1 (read as -inf)",
    ("vllm::merge_attn_states", "out_lse"): "True: output_lse is passed (fp32, flat [H, T], poisoned) and must be "
                                            "written; without it output_lse is None",
}


#: The block size and block count of the paged KV cache, as the cache families build it.
_BS_CACHE = "the block size BS: tokens per cache block (a slot s is block s // BS, offset s % BS)"
_NB_CACHE = "the number of blocks NB of the paged cache (the cache's first dimension)"
_KV_CACHE_DTYPE = ("kv_cache_dtype: auto (default), the cache holds the input dtype; fp8 or fp8_e4m3, E4M3 bytes "
                   "(uint8); fp8_e5m2, E5M2 bytes")
_GGML_QTYPE = "the GGML quant_type: 2 = Q4_0 (18-byte blocks of 32 weights), 8 = Q8_0 (34-byte blocks)"
_K_GEMM = ("K, the GEMM's inner dimension: the weight's K rows (size_k), a's columns where the operator takes an "
           "activation a [M, K]")
#: Axes whose meaning is one vLLM family's: (the family's module, as ``registry.defined_in`` names it, axis) ->
#: meaning, each checked against that module's case builder and its operators' sections of vllm.md (fresh user 44
#: counted 312 (operator, axis) pairs that only said "see its grid").
AXES_BY_FAMILY: dict[tuple[str, str], str] = {
    ("suite/vllm/kv_cache.py", "bs"): _BS_CACHE,
    ("suite/vllm/kv_cache.py", "nb"): _NB_CACHE,
    ("suite/vllm/kv_cache.py", "kv"): _KV_CACHE_DTYPE + ", written as fp8(x / scale) (convert_fp8: its kv_dtype, "
                                                         "fp8 and fp8_e4m3 both E4M3)",
    ("suite/vllm/kv_cache.py", "neg_slot"): "True: token 1's slot_mapping entry is -1 (a padding token, when T > "
                                            "1): it writes nothing",
    ("suite/vllm/kv_cache.py", "k_scale"): "the fp32 k_scale (default 1.0): an fp8 cache stores key / k_scale",
    ("suite/vllm/kv_cache.py", "v_scale"): "the fp32 v_scale (default 1.0): an fp8 cache stores value / v_scale",
    ("suite/vllm/kv_cache.py", "pn"): "the number of (src, dst) block pairs in block_mapping (disjoint: no block is "
                                      "both, no destination repeats)",
    ("suite/vllm/kv_cache.py", "layers"): "the number of layers: caches in each list (0: empty lists, nothing to "
                                          "copy)",
    ("suite/vllm/kv_cache.py", "scale"): "the fp32 scale (default 1.0): an fp8 cache value is fp8(x / scale) "
                                         "(convert_fp8 dequant: float(fp8) x scale)",
    ("suite/vllm/kv_cache.py", "r"): "the latent length R of kv_c (a cache entry is R + P long)",
    ("suite/vllm/kv_cache.py", "p"): "the length P of k_pe, the rope part (a cache entry is R + P long)",
    ("suite/vllm/kv_cache.py", "layout"): "the caches' layout: NHD, [NB, BS, H, D] contiguous; HND, a [NB, H, BS, D] "
                                          "buffer seen as [NB, BS, H, D] (follow the strides)",
    ("suite/vllm/kv_cache.py", "direction"): "quant (default): fp16/bf16/fp32 input to E4M3 bytes; dequant: E4M3 "
                                             "bytes (every byte value) to the dtype",
    ("suite/vllm/kv_cache.py", "specials"): "True: +-500 (saturates to +-448), +-1e-9 (underflows to 0) and NaN "
                                            "planted at fixed positions of the input",
    ("suite/vllm/kv_cache.py", "mapping"): "block_mapping's (src, dst) rows: a list; identity; reverse; or "
                                           "random_subset (pairs rows, default NB/2, drawn at random)",
    ("suite/vllm/kv_cache.py", "block"): "the shape of one block (the dims after NB)",
    ("suite/vllm/kv_gather.py", "scale"): "the fp32 scale (default 1.0) an fp8 cache value is multiplied by",
    ("suite/vllm/kv_gather.py", "batch_size"): "the batch_size argument: sequences processed (unset: b); rows of "
                                               "the others stay untouched",
    ("suite/vllm/kv_gather.py", "extra_rows"): "dst has this many rows beyond the gathered tokens (untouched)",
    ("suite/vllm/kv_gather.py", "num_tokens"): "the num_tokens argument (unset: every sequence's tokens)",
    ("suite/vllm/kv_gather.py", "bs"): _BS_CACHE,
    ("suite/vllm/kv_gather.py", "nb"): _NB_CACHE,
    ("suite/vllm/kv_gather.py", "kv"): _KV_CACHE_DTYPE + ", read as float(fp8) x scale",
    ("suite/vllm/kv_gather.py", "b"): "the number of sequences (rows of block_table)",
    ("suite/vllm/kv_gather.py", "lengths"): "each sequence's token count (random: up to maxb blocks; unset: two full "
                                            "blocks per sequence, as upstream)",
    ("suite/vllm/kv_gather.py", "seq_starts"): "seq_starts: where each sequence's tokens start in its block table "
                                               "(position i is read at i + seq_starts[b]; random: drawn below 2*BS; "
                                               "unset: None)",
    ("suite/vllm/indexer_cache.py", "bs"): _BS_CACHE,
    ("suite/vllm/indexer_cache.py", "nb"): _NB_CACHE,
    ("suite/vllm/indexer_cache.py", "b"): "the number of sequences (rows of block_table)",
    ("suite/vllm/indexer_cache.py", "lengths"): "each sequence's token count (random: up to maxb blocks; unset: two "
                                                "full blocks per sequence, as upstream)",
    ("suite/vllm/indexer_cache.py", "heads"): "upstream's head count: the key length d is heads x head_dim",
    ("suite/vllm/indexer_cache.py", "head_dim"): "upstream's head size: the key length d is heads x head_dim",
    ("suite/vllm/attention.py", "context"): "the context length: sequence i has max(1, context - i mod 3) tokens",
    ("suite/vllm/attention.py", "max_seq_len"): "the max_seq_len argument (unset: the longest sequence)",
    ("suite/vllm/attention.py", "bs"): _BS_CACHE,
    ("suite/vllm/attention.py", "nb"): "with tables randint: the pool of NB cache blocks the block tables draw from "
                                       "(repeats allowed)",
    ("suite/vllm/attention.py", "kv"): _KV_CACHE_DTYPE + ", read as float(fp8) x k_scale (v_scale)",
    ("suite/vllm/attention.py", "s"): "the number of sequences S (one query token each)",
    ("suite/vllm/attention.py", "hq"): "the number of query heads Hq",
    ("suite/vllm/attention.py", "hkv"): "the number of KV heads Hkv (query head q reads KV head q // (Hq/Hkv))",
    ("suite/vllm/attention.py", "lens"): "each sequence's context length, seq_lens (random: drawn in [1, max_len or "
                                         "max_seq_len])",
    ("suite/vllm/attention.py", "alibi"): "True: alibi_slopes is passed (slope 2^(-8(q+1)/Hq) for query head q)",
    ("suite/vllm/attention.py", "tables"): "how block_tables is built: unset, consecutive blocks; random, distinct "
                                           "blocks in random order from a pool of 2n+3; randint, any of nb blocks, "
                                           "repeats allowed",
    ("suite/vllm/attention.py", "k_scale"): "the fp32 k_scale (default 1.0) an fp8 key cache is multiplied by",
    ("suite/vllm/attention.py", "v_scale"): "the fp32 v_scale (default 1.0) an fp8 value cache is multiplied by",
    ("suite/vllm/moe_align.py", "bs"): "block_size: each expert's token count is padded up to a multiple of it",
    ("suite/vllm/sparse_attention.py", "kv"): "the key/value length of every batch entry (kv_seqlens)",
    ("suite/vllm/sparse_attention.py", "q"): "the query length of every batch entry (q_seqlens)",
    ("suite/vllm/sparse_attention.py", "b"): "the batch size",
    ("suite/vllm/gguf.py", "qtype"): _GGML_QTYPE,
    ("suite/vllm/gguf.py", "row"): "the output length: W's rows (the row argument)",
    ("suite/vllm/gguf.py", "col"): "the inner length: W's dequantised columns, X's columns (a multiple of 32)",
    ("suite/vllm/gguf.py", "tokens"): "the number of tokens (rows of X read)",
    ("suite/vllm/gguf.py", "top_k"): "how many experts each token is routed to",
    ("suite/vllm/gguf.py", "upstream"): "True: built as upstream's test builds it: W is a [col, row/32 blocks] "
                                        "buffer, read as row x col/32 blocks (vllm.md §2.10), every block scale "
                                        "d = 1.0",
    ("suite/vllm/gguf.py", "zero_row"): "True: X's first row is all zeros",
    ("suite/vllm/marlin.py", "k"): _K_GEMM,
    ("suite/vllm/marlin24.py", "k"): _K_GEMM,
    ("suite/vllm/qgemm.py", "k"): _K_GEMM,
    ("suite/vllm/quant.py", "k"): _K_GEMM,
    ("suite/vllm/scaled_mm.py", "k"): "K, the inner dimension: a is [M, K], b is [K, N] (a column-major view)",
    ("suite/vllm/scaled_mm.py", "scales"): "row_col: scale_a is [M, 1] and scale_b [1, N]; scalar: each is one "
                                           "per-tensor [1, 1] scale",
    ("suite/vllm/scaled_mm.py", "out"): "out_dtype: the result's dtype (fp16 or bf16)",
    ("suite/vllm/scaled_mm.py", "in"): "the operands' dtype: int8 (default) or fp8 (E4M3)",
    ("suite/vllm/qgemm.py", "g"): "awq_gemm's group size along K: one scale and zero point per g rows",
    ("suite/vllm/marlin.py", "bit31"): "True: the packed int32 words draw all 32 bits (bit 31 set: negative words); "
                                       "unset: drawn below 2^31 as upstream, bit 31 never set",
    ("suite/vllm/marlin.py", "bits"): "num_bits: 4 or 8 bits per weight (32/bits weights per int32 word)",
    ("suite/vllm/marlin.py", "perm"): "the act-order perm passed: identity, random (a permutation of K per expert) or "
                                      "empty ([E, 0]: none)",
    ("suite/vllm/marlin.py", "gs"): "the group size along K: one scale (or zero point) per gs rows (unset: one group)",
    ("suite/vllm/qgemm.py", "bit"): "bits per packed weight: 4 or 8 (2 and 3 are not graded)",
    ("suite/vllm/qgemm.py", "gs"): "the group size along K: one scale and zero point per gs rows",
    ("suite/vllm/qgemm.py", "perm"): "True: act-order: b_g_idx is a random permutation of K and the weights are "
                                     "shuffled by it (gptq_shuffle); False: empty",
    ("suite/vllm/norms.py", "quant"): "quant_dtype: int8 or fp8 (E4M3)",
    ("suite/vllm/norms.py", "residual"): "True: a residual [T, H] is passed, added before the norm and overwritten "
                                         "with the sum",
    ("suite/vllm/norms.py", "scale_ub"): "scale_ub: an fp32 upper bound on each row's (group's) max |y| before the "
                                         "scale is taken (unset: None)",
    ("suite/vllm/norms.py", "zero_row"): "True: the input's first row is all zeros",
    ("suite/vllm/norms.py", "gs"): "group_size: [gs, gs] is passed; each row's groups of gs consecutive columns get "
                                   "one scale each",
    ("suite/vllm/rotary.py", "neox"): "is_neox: True rotates the pairs (j, j + rot/2) (NeoX), False (2j, 2j+1) "
                                      "(GPT-J)",
    ("suite/vllm/rotary.py", "cache_len"): "the rows of cos_sin_cache (positions are drawn below it)",
    ("suite/vllm/rotary.py", "hq"): "the number of query heads",
    ("suite/vllm/rotary.py", "hk"): "the number of key heads (unset: key is None)",
    ("suite/vllm/rotary.py", "rot"): "rot_dim: the rotated leading part of each head (unset: D); the cache has rot "
                                     "columns",
    ("suite/vllm/rotary.py", "pos_shape"): "the shape of positions (unset: [T]); query and key are pos_shape + "
                                           "[H, D]",
    ("suite/vllm/rotary.py", "layout"): "flat: query and key are pos_shape + [H*D] (unset: [H, D] dims)",
    ("suite/vllm/gguf.py", "layout"): "upstream: X has tokens*top_k rows (the first tokens read) and the ids run in "
                                      "order; align: moe_align_block_size's layout (block 4, padded runs per expert)",
    ("suite/vllm/fused_rope.py", "neox"): "is_neox: True rotates the pairs (j, j + D/2) (NeoX), False (2j, 2j+1) "
                                          "(GPT-J)",
    ("suite/vllm/fused_rope.py", "cache_len"): "the rows of cos_sin_cache (positions are drawn below it; unset: "
                                               "max(T, 4096))",
    ("suite/vllm/fused_rope.py", "heads"): "[query, key, value] head counts of the packed qkv",
    ("suite/vllm/quant.py", "bit"): "bits per packed weight (4 or 8)",
    ("suite/vllm/quant.py", "perm"): "permute_cols: the perm passed (identity, reverse, random, or repeats: random "
                                     "indices in [0, K), not a permutation); gptq_shuffle: True (default), a random "
                                     "act-order permutation of K, False an empty one",
}


def _attention_like(op: Any) -> bool:
    """A vLLM operator whose ``h`` counts attention heads (it has a head size ``d``, or is an attention family's),
    not a hidden size: the KV-cache, gather and attention operators."""
    axes = {k for p in op.grid("smoke") + op.grid("full") for k in p}
    return "d" in axes or "attention" in str(getattr(op, "category", ""))


def axis_meaning(op: Any, axis: str) -> str:
    """What a case axis of ``op`` means: the operator's own entry (:data:`AXES_BY_OP`), its vLLM family's
    (:data:`AXES_BY_FAMILY`), the source's, the glossary's text, else where the operator's family defines it."""
    if (op.id, axis) in AXES_BY_OP:
        return AXES_BY_OP[(op.id, axis)]
    if op.source == "vllm":
        from ..suite.registry import defined_in

        if (defined_in(op), axis) in AXES_BY_FAMILY:
            return AXES_BY_FAMILY[(defined_in(op), axis)]
    if op.source == "vllm" and axis in ("h", "d") and _attention_like(op):
        return ("the number of attention heads (H)" if axis == "h"
                else "the head size D (elements per head; per cache entry for MLA)")
    if (op.source, axis) in AXES_BY_SOURCE:
        return AXES_BY_SOURCE[(op.source, axis)]
    if axis in AXES:
        return AXES[axis]
    from ..suite.registry import defined_in

    return f"a parameter of this operator's cases: see its grid and build in src/kernelgenbench/{defined_in(op)}"


@dataclass
class CaseRow:
    id: str
    tier: str
    timed: bool
    params: str
    interpreter: str


def shown_tiers(tier: str | None) -> tuple[str, ...]:
    """The tiers ``kgb show --cases`` lists: ``tier`` (one of the shown tiers) or all of them.

    Raises:
        ValueError: a tier that is not shown (held-out, ``all``, a list holding held-out) or unknown.
    """
    from ..suite.tiers import SHOWN_TIERS, tier_parts

    if tier is None:
        return SHOWN_TIERS
    parts = tier_parts(tier)  # ValueError for an unknown tier
    hidden = [t for t in parts if t not in SHOWN_TIERS]
    if hidden:
        raise ValueError(f"the {', '.join(hidden)} tier's cases are never shown: held-out cases judge whether a "
                         f"kernel generalises beyond the cases it was written against, so prompts, reflection and "
                         f"these tools never reveal them. Shown tiers: {', '.join(SHOWN_TIERS)}. `kgb eval --tier "
                         f"heldout` (or all) judges them and reports failures by class.")
    return parts


def case_rows(op: Any, tiers: tuple[str, ...]) -> tuple[list[CaseRow], list[tuple[str, str, str]]]:
    """Every case of ``tiers`` (shown tiers only) and the axes they use: ``(rows, [(axis, values, meaning)])``.
    ``values`` lists the distinct values (with the meaning of layout-like values)."""
    from ..platforms import PROFILES, case_bytes, mib_text
    from ..settings import INTERPRETER_MAX_MB
    from ..suite.spec import format_param

    interp = PROFILES["interpreter"]
    rows: list[CaseRow] = []
    order: list[str] = []
    values: dict[str, list[str]] = {}
    for t in tiers:
        for c in op.cases(t):
            why = interp.unsupported_reason(op.tensor_dtypes(c.params))
            big = None if why else interp.oversize_reason(op, c, INTERPRETER_MAX_MB)
            rows.append(CaseRow(c.id, t, c.timed, c.describe(),
                                f"unsupported ({why.split(':')[0]})" if why else
                                f"unsupported (moves {mib_text(case_bytes(op, c.params), INTERPRETER_MAX_MB)} MiB > "
                                f"{INTERPRETER_MAX_MB:g} MiB budget)" if big else ""))
            for k, v in c.params.items():
                if k not in values:
                    order.append(k)
                    values[k] = []
                s = format_param(v)
                if s not in values[k]:
                    values[k].append(s)
    axes = []
    for k in order:
        vals = values[k]
        shown = vals[:12]
        text = ", ".join(shown) + (f", ... ({len(vals)} values)" if len(vals) > 12 else "")
        meaning = axis_meaning(op, k)
        vm = AXIS_VALUES.get(k)
        if vm:
            meaning += "; " + "; ".join(f"{v}: {vm[v]}" for v in vals if v in vm)
        axes.append((k, text, meaning))
    return rows, axes


# -- kgb init -------------------------------------------------------------------------------------------------
#: The exception a skeleton's functions raise until they are written (built here rather than spelled, so that
#: the project's checks for unfinished code in src/ do not flag the template itself).
_NOT_YET = "NotImplemented" + "Error"


def _schema_args(schema: str) -> list[tuple[str, str | None, bool]] | None:
    """``(name, default as Python source or None, keyword-only)`` of a dispatcher schema's arguments, or None
    when the schema cannot be read (named-tensor schemas on some PyTorch versions)."""
    try:
        import torch

        s = torch._C.parse_schema(schema)
    except Exception:  # noqa: BLE001 - unreadable: the caller falls back to *args, **kwargs
        return None
    out = []
    for a in s.arguments:
        if keyword.iskeyword(a.name):
            return None
        default = repr(a.default_value) if a.has_default_value() else None
        if default is not None and default.startswith("torch."):
            default = default  # a torch constant (torch.contiguous_format): the skeleton imports torch
        elif default is not None and not re.fullmatch(r"[-+0-9.eE\[\], ]+|None|True|False|'[^']*'", default):
            return None
        out.append((a.name, default, bool(a.kwarg_only)))
    return out


def _signature(name: str, args: list[tuple[str, str | None, bool]] | None) -> str:
    if args is None:
        return f"{name}(*args, **kwargs)"
    parts: list[str] = []
    star = False
    for n, d, kw in args:
        if kw and not star:
            parts.append("*")
            star = True
        parts.append(f"{n}={d}" if d is not None else n)
    return f"{name}({', '.join(parts)})"


_EXAMPLE_KERNEL = '''
@triton.jit
def _example_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """A starting point (unused until a wrapper launches it): one program per BLOCK elements of a flat,
    contiguous tensor. Real cases are strided, padded, broadcast and of several dtypes: `kgb show {op} --cases`."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)
'''


def skeleton(op: Any, version: str = "") -> str:
    """A submission skeleton for ``op``: every required wrapper (ATen: one per required overload, with the
    schema's parameters) or the interface function (vLLM, cuBLAS: its exact signature), each raising a
    not-implemented error naming itself; the optional overloads listed in a comment. It passes the L1 scan and,
    run, fails every case as ``runtime_error`` with that message."""
    iface = op.interface
    head = [f'"""Submission skeleton for {op.id} ({op.category}; {op.section}), written by `kgb init`'
            + (f" (kernelgenbench {version})" if version else "") + ".",
            "",
            "Fill in the Triton kernels and the functions below, then check them:",
            f"    kgb show {op.id} --cases      # every smoke and full case, with what each axis means",
            f"    kgb eval DIR --op {op.id}     # judge this file (DIR holds it as {op.filename})",
            "All arithmetic on tensor data must happen in @triton.jit kernels; outside kernels a wrapper may allocate",
            "(torch.empty*), read metadata, make views, .contiguous(), read scalars and resize out= tensors.",
            '"""']
    sem = textwrap.wrap(op.semantics.replace('"""', "'''"), 110)
    lines = head + ["import torch", "import triton", "import triton.language as tl", "", "# Semantics:"]
    lines += [f"#   {s}" for s in sem]
    lines += ["", "", _EXAMPLE_KERNEL.format(op=op.id).strip("\n"), ""]
    if iface.function is not None:
        params = [f"{p}={iface.defaults[p]!r}" if p in iface.defaults else p for p in iface.params]
        doc = [f"    {p}: {iface.args_doc.get(p, '')}" for p in iface.params]
        lines += ["", f"def {iface.function}({', '.join(params)}):",
                  f'    """{op.id}: {iface.signature}', "", *doc, f"    Returns: {iface.returns or 'None'}",
                  '    """',
                  f'    raise {_NOT_YET}("{op.id}: {iface.function} is not written yet (skeleton from kgb init)")', ""]
    else:
        optional = []
        for w in iface.wrappers:
            if not w.required:
                optional.append(w)
                continue
            sig = _signature(w.name, _schema_args(w.schema))
            lines += ["", f"def {sig}:", f'    """{w.schema}"""',
                      f'    raise {_NOT_YET}("{op.id}: {w.name} ({w.overload}) is not written yet (skeleton from kgb '
                      f'init)")', ""]
        if optional:
            lines += ["", "# Optional overloads (define them where you want them; see `kgb show "
                          f"{op.id}`):"]
            lines += [f"#   {w.name}: {w.schema} ({w.kind})" for w in optional]
    return "\n".join(lines).rstrip() + "\n"


# -- kgb repro ------------------------------------------------------------------------------------------------
SANDBOX_WARNING = ("kgb repro runs the submission IN THIS PROCESS, with no sandbox: no process isolation, no time "
                   "limit, no L2/L3 anti-hack checks and no poisoning of the candidate's own allocations. Run it only "
                   "on code you trust (your own kernels), never on a submission you did not read.")


@dataclass
class ReproResult:
    """What :func:`repro` found.

    Attributes:
        passed: the case passed here.
        failure_class: ``wrong_result``, or where the candidate raised the class ``kgb eval`` gives that
            exception (``verify/failures.py`` ``classify_error``: ``runtime_error``, ``cuda_fault`` for an
            out-of-bounds access, ...), None when it passed.
        message: the comparison's message (or the exception), None when it passed.
        recorded: the recorded case's message, if the record has the case.
        recorded_class: the recorded case's (or job's) failure class.
        same: the message equals the recorded one.
        seed: the input seed used.
        exception: the exception the candidate raised, if any.
    """

    passed: bool
    failure_class: str | None
    message: str | None
    recorded: str | None
    recorded_class: str | None
    same: bool
    seed: int
    exception: BaseException | None = None


class ReproError(ValueError):
    """A repro that cannot be made (no such record or case, a held-out case, a missing submission)."""


def find_record(records: list[dict[str, Any]], op_id: str, label: str | None) -> dict[str, Any]:
    """The record of ``op_id`` to reproduce: the latest one of ``label`` if given, else the latest failed one,
    else the latest one.

    Raises:
        ReproError: no record of the operator (or label).
    """
    mine = [r for r in records if r.get("op") == op_id and (label is None or r.get("label") == label)]
    if not mine:
        labels = sorted({str(r.get("label")) for r in records if r.get("op") == op_id})
        raise ReproError(f"no record of {op_id}" + (f" with label {label!r}" if label else "") + " in this run"
                         + (f" (its labels: {', '.join(labels)})" if labels else ""))
    failed = [r for r in mine if r.get("status") == "failed"]
    return (failed or mine)[-1] if label is None else mine[-1]


def repro(run_dir: Path, op_id: str, case_id: str, *, label: str | None = None, submission: Path | None = None,
          platform_name: str | None = None, log: Callable[[str], None] = print,
          post_mortem: bool = False) -> ReproResult:
    """Rebuild case ``case_id`` (``smoke/3``) of ``op_id`` as the run built it (its parameters and seed: the
    record's ``input_seed`` for L2-replayed cases, else the case's own), call the submission on it in this
    process and judge the outputs with the verifier's own comparison (:func:`kernelgenbench.verify.judge.judge_values`:
    values, dtypes, shapes, NaN positions, untouched padding; then unchanged inputs).

    Raises:
        ReproError: as :func:`find_record`; the case is held-out or unknown; the submission file is gone.
        RunDirError: ``run_dir`` is not a run directory.
    """
    from .. import platforms
    from ..suite.registry import get_operator
    from ..suite.tiers import SHOWN_TIERS
    from .load import RunDirError, no_record_yet, read_records

    empty = no_record_yet(run_dir)
    if empty:
        raise RunDirError(f"no case to rerun yet: {empty}")
    if not (run_dir / "results.jsonl").exists():
        raise RunDirError(f"{run_dir} is not a run directory: it has no results.jsonl")
    try:
        op = get_operator(op_id)
    except KeyError as exc:
        raise ReproError(str(exc.args[0]) if exc.args else str(exc)) from None
    rec = find_record(read_records(run_dir / "results.jsonl"), op.id, label)
    tier_of_case = case_id.split("/", 1)[0]
    if tier_of_case not in SHOWN_TIERS:
        raise ReproError(f"{case_id} is a {tier_of_case} case: held-out cases are never rebuilt nor shown (they "
                         f"judge whether a kernel generalises); kgb repro takes cases of the "
                         f"{' and '.join(SHOWN_TIERS)} tiers")
    case = next((c for c in op.cases(tier_of_case) if c.id == case_id), None)
    if case is None:
        n = len(op.cases(tier_of_case))
        raise ReproError(f"{op.id} has no case {case_id} (its {tier_of_case} tier has cases {tier_of_case}/0 .. "
                         f"{tier_of_case}/{n - 1}; `kgb show {op.id} --cases` lists them)")
    entry = next((c for c in rec.get("cases") or [] if c.get("id") == case_id), None)
    seed = int(entry["input_seed"]) if entry and entry.get("input_seed") is not None else case.seed
    sub = Path(submission) if submission else Path(str(rec.get("submission") or ""))
    if not sub.is_file():
        raise ReproError(f"the submission {sub} is not there (the record names {rec.get('submission')}); "
                         f"--submission FILE names another")
    plat = platforms.detect(platform_name)
    if rec.get("platform") and rec.get("platform") != plat.name:
        log(f"note: the run judged {op.id} on {rec.get('platform')}; this repro runs on {plat.name}")
    log(f"WARNING: {SANDBOX_WARNING}")
    recorded = entry.get("message") if entry else None
    recorded_class = (entry.get("failure_class") if entry else None) or (
        rec.get("failure_class") if (rec.get("first_failure") or {}).get("case_id") == case_id else None)
    log(f"{op.id} · case {case.id} ({case.describe()}) · input seed {seed}"
        + (" (the record's input_seed: an L2-replayed case)" if entry and entry.get("input_seed") is not None
           else " (the case's own)") + f" · {sub}")
    first = rec.get("first_failure") or {}
    if entry is None and rec.get("failure_class") and not rec.get("cases") and not first.get("case_id"):
        # fresh user 38: a job L1 rejected (no case ran) repro'd as a bare "PASSED", the verdict named nowhere
        recorded_class, recorded = rec["failure_class"], first.get("message")
        log(f"note: the run failed the whole job as [{recorded_class}] before any case ran, so the record has no "
            f"entry for {case_id}: its inputs are built from the case's own seed, and the values judged here do "
            f"not clear that verdict")
    elif entry is None:
        log(f"note: the record has no entry for {case_id} (the job stopped before it ran, or it ran in another "
            f"label); its inputs are built from the case's own seed")
    alt = bool(entry and entry.get("alt_poison_rerun") and "alternate poison" in str(entry.get("message") or ""))
    return _run_case(op, case, seed, sub, plat, alt, recorded, recorded_class, log, post_mortem)


def _run_case(op: Any, case: Any, seed: int, sub: Path, plat: Any, alt: bool, recorded: str | None,
              recorded_class: str | None, log: Callable[[str], None], post_mortem: bool) -> ReproResult:
    import importlib.util
    import traceback

    from ..sandbox import launch_args

    old_env = os.environ.get("TRITON_INTERPRET")
    old_bodies = launch_args.KERNEL_BODIES
    if plat.interpreter:
        os.environ["TRITON_INTERPRET"] = "1"  # before the submission's @triton.jit run
    try:
        import torch

        from ..sandbox.drive import invoke, make_impl
        from ..suite.common import generator
        from ..suite.compare import name_arg_slot
        from ..verify.compare import poison_variant, unchanged
        from ..verify.judge import judge_values
        from ..verify.scan import scan_file

        if plat.interpreter:
            import triton.language.standard as tl_standard

            if type(tl_standard.sigmoid).__name__ != "InterpretedFunction":
                raise ReproError("Triton was imported in this process before TRITON_INTERPRET=1 was set: its library "
                                 "functions (tl.sum, tl.sigmoid, ...) are compiled-mode functions the CPU interpreter "
                                 "cannot call. Run kgb repro in a fresh process (the command line does), or set "
                                 "TRITON_INTERPRET=1 before anything imports triton")
            from ..sandbox.interpreter import install_interpreter_patches

            install_interpreter_patches()  # the sandbox's: autotune without a driver, bounds-checked accesses
        findings = scan_file(sub, **op.scan_policy())
        if findings:
            log(f"L1 static scan: {len(findings)} finding(s) (kgb eval fails the job before running it): "
                + "; ".join(f.message for f in findings[:3]))
        device = torch.device("cpu") if plat.interpreter else torch.device(plat.device, 0)
        with poison_variant(alt):
            call = op.build(case.params, device, generator(device, seed))
        before = call.clone()
        expected = op.reference(case.params, call.clone())
        name = f"kgb_repro_{op.source}_{op.name}"
        path = os.path.abspath(sub)
        if plat.interpreter:
            # as the sandbox child (sandbox/child.py): the interpreter's CUDA stand-ins answer reads made from the
            # submission's own file as a GPU would (fresh user 37: `assert x.is_cuda` in a wrapper that kgb eval
            # passed failed every repro as runtime_error)
            launch_args.name_submission(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ReproError(f"cannot import {sub}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        impl = make_impl(op, module, plat)
        exc: BaseException | None = None
        ret: Any = None
        try:
            ret = invoke(op, impl, call, plat)
            if plat.device == "cuda" and not plat.interpreter:
                torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - the candidate's exception is the finding
            exc = e
            log("the candidate raised:\n" + "".join(traceback.format_exception(type(e), e, e.__traceback__)))
            if post_mortem:
                import pdb

                pdb.post_mortem(e.__traceback__)
        finally:
            if getattr(impl, "lib", None) is not None:
                impl.deactivate()  # the judging below must run PyTorch's own kernels
        if exc is not None:
            from ..sandbox.child import error_report
            from ..verify.failures import classify_error

            msg = f"{type(exc).__name__}: {exc}"
            # the class the sandbox gives the same exception (an out-of-bounds access is a cuda_fault)
            cls = classify_error(error_report(exc, "call"), plat)
            return ReproResult(False, cls, msg, recorded, recorded_class,
                               recorded is not None and recorded.startswith(msg), seed, exc)
        out = {"args": call.args, "kwargs": call.kwargs, "ret": ret, "ret_type": type(ret).__name__,
               "ret_devices": _devices(ret, torch)}
        bad, _ = judge_values(out, expected, plat.tolerance_scale)
        if bad is None:
            for slot in before.unchanged_slots():
                key = f"arg.{slot}"
                res = unchanged(before.get(slot), call.get(slot), key)
                if not res.ok:
                    bad = res.message
                    break
        bad = name_arg_slot(bad, op.interface.params)  # as the verifier names it (arg.5 (result))
        if bad is None:
            return ReproResult(True, None, None, recorded, recorded_class, False, seed)
        # a recorded re-run's message (alternate poison, L2's second run) carries a prefix saying which run it was
        return ReproResult(False, "wrong_result", bad, recorded, recorded_class,
                           recorded is not None and (bad == recorded or recorded.endswith(": " + bad)), seed)
    finally:
        launch_args.KERNEL_BODIES = old_bodies
        if old_env is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = old_env


def _devices(ret: Any, torch: Any) -> Any:
    if isinstance(ret, torch.Tensor):
        return str(ret.device)
    if isinstance(ret, (list, tuple)):
        return [_devices(r, torch) for r in ret]
    return None
