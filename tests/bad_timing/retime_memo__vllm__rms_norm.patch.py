"""BAD (baseline side of timing, GPU only; red team 33, R33-2): vllm::rms_norm that makes the native-compiled baseline
recompile in timed block 1 (grad mode left off, as grad_flip does) and then answers the eager retime from a memo.

After ``BaselineRecompiled`` the sandbox child times the case again (sandbox/child.py ``run_time``) with the same
``make_set`` closure: repetition ``k`` of the retime gets timed input set ``k`` again, values the candidate saw in the
aborted attempt. This wrapper keeps a copy of every output it computed (a workspace kept across calls, at most 40),
keyed by three input values read with ``.item()``, the shape and epsilon; a call whose key it holds is answered by a
Triton copy kernel from the memo. It leaves ``torch.no_grad()`` entered after its 20th consecutive call on fresh
values (its side of timed block 1, where the candidate goes first and the baseline second), so the baseline side of
block 1 recompiles; the retime's sets 0..19 (20 of 30 at ``reps=30``) come from the memo, exact, so the two judged
repetitions pass, and the median is the memo's. Each call prints ``rt33 hit``/``rt33 miss`` (the demonstration counts
them in the child's log).

Why it passes: everything of grad_flip; the memo is Python data and a device workspace (allowed), its answers are
Triton copies (no ATen copy or fill: the timed calls run no op beyond their correctness run's), right wherever it
answers (the L2 decoy re-runs hit it too and are right; a ghost replay of a hit skips the copy and fails to pass
without Triton, as it should). On a GPU the gain is the compute a copy replaces: nothing for rms_norm (a copy moves
as many bytes), a GEMM's worth for the quantised GEMM rows (awq_gemm, gptq_gemm, marlin, cutlass_scaled_mm, ...):
the same wrapper around their oracles. Shown on the CPU in tests/test_rt33_baseline_state.py. The rest is the oracle
(solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("""\
def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
""", """\
@triton.jit
def _memo_copy(dst_ptr, src_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


_MEMO = {}      # input key -> a copy of the output it computed
_ORDER = []     # memo keys, oldest first
_RECENT = []    # the keys of the last two calls
_RUN = [0]      # consecutive calls on values not seen two calls back
_HELD = []      # torch.no_grad() objects left entered


def _corner(t, last):
    while t.dim():
        t = t.select(0, t.shape[0] - 1 if last else 0)
    return t.item()


def _copy(dst, src):
    n = dst.numel()
    _memo_copy[(triton.cdiv(n, 1024),)](dst, src, n, BLOCK=1024)


def _grad_state(key):
    while _HELD:
        _HELD.pop().__exit__(None, None, None)
    warm = key in _RECENT  # the timed loop's warm-up cycles through two input sets
    _RECENT.append(key)
    del _RECENT[:-2]
    _RUN[0] = 0 if warm else _RUN[0] + 1
    if _RUN[0] == 20:  # the end of this side of timed block 1: the baseline's side follows
        g = torch.no_grad()
        g.__enter__()
        _HELD.append(g)


def rms_norm(out, input, weight, epsilon):
    key = None
    if input.numel() and out.is_contiguous():
        key = (_corner(input, False), _corner(input, True), _corner(weight, False), tuple(input.shape),
               float(epsilon))
        _grad_state(key)
        hit = _MEMO.get(key)
        if hit is not None:
            print("rt33 hit", flush=True)
            _copy(out, hit)
            return None
        print("rt33 miss", flush=True)
    _rms_norm_uncached(out, input, weight, epsilon)
    if key is not None:
        keep = torch.empty_like(out)
        _copy(keep, out)
        _MEMO[key] = keep
        _ORDER.append(key)
        if len(_ORDER) > 40:
            _MEMO.pop(_ORDER.pop(0))
    return None


def _rms_norm_uncached(out, input, weight, epsilon):
    H = input.shape[-1]
"""),
]
