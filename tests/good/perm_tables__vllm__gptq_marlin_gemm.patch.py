"""LEGAL (false-rejection hunt 31; rejected until session 38): the vllm::gptq_marlin_gemm oracle reading Marlin's
scale layout from lookup tables instead of computing it: the inverse of vLLM's ``scale_perm`` (64 entries, grouped
scales) and ``scale_perm_single`` (32 entries, per-channel scales), built at import from Python lists with
``torch.tensor`` and loaded by the kernel, as ports of vLLM's Python layout code do. The import's 96 int32 elements
of host-built tensor data exceeded L3's old import budget of 64 elements (``profile``); since session 38 host data
counts in units of an element or 4 bytes of a wider one, and the import may build 96 units
(verify/profile.py IMPORT_HOST_DATA_BUDGET): the largest import table shrank from 1024 bytes (64 complex128) to 384.
(Patched into the main kernel of session 34's oracle; its split-K reduce kernel keeps the computed per-channel
permutation.)"""

SUBSTITUTIONS = [
    ("import triton.language as tl\n",
     "import triton.language as tl\n\n"
     "# Marlin's scale permutations, inverted: the stored column of logical column n within a 64-column group\n"
     "# (grouped scales) or a 32-column block (per-channel scales), as vLLM's marlin_permute_scales lays them out\n"
     "_INV_GROUPED = [8 * (i % 8) + i // 8 for i in range(64)]\n"
     "_INV_SINGLE = [8 * ((i % 8) // 2) + 2 * (i // 8) + i % 2 for i in range(32)]\n"
     "_DEV = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n"
     "_TAB_GROUPED = torch.tensor(_INV_GROUPED, dtype=torch.int32, device=_DEV)\n"
     "_TAB_SINGLE = torch.tensor(_INV_SINGLE, dtype=torch.int32, device=_DEV)\n"),
    ("def _marlin_gemm_kernel(a_ptr, b_ptr, s_ptr, perm_ptr, c_ptr,",
     "def _marlin_gemm_kernel(a_ptr, b_ptr, s_ptr, perm_ptr, tab_ptr, c_ptr,"),
    ("""    if GROUPED:
        scol = 64 * (rn // 64) + 8 * (rn % 8) + (rn % 64) // 8
    else:
        sm = rn % 32
        scol = 32 * (rn // 32) + 8 * ((sm % 8) // 2) + 2 * (sm // 8) + sm % 2""",
     """    if GROUPED:
        scol = 64 * (rn // 64) + tl.load(tab_ptr + rn % 64)
    else:
        scol = 32 * (rn // 32) + tl.load(tab_ptr + rn % 32)"""),
    ("    _marlin_gemm_kernel[grid](a, b_q_weight, s, p, out, ws, m, n, k,",
     "    tab = _TAB_GROUPED if grouped else _TAB_SINGLE\n"
     "    _marlin_gemm_kernel[grid](a, b_q_weight, s, p, tab, out, ws, m, n, k,"),
]
