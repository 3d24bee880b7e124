"""BAD (baseline side of timing, GPU only; red team 33): vllm::rms_norm that buys itself the weaker bar
(``native-eager``) by changing PyTorch's grad mode between the compiled baseline's compilation and its timed blocks.

The ``native-compiled`` baseline is compiled in the case's ``prepare`` command; dynamo guards the compiled graph on
PyTorch's global state (``GlobalStateGuard``: grad mode among others). The wrapper reads one input value per call and
remembers the last two: the timed loop's warm-up cycles through two warm-up sets, so a value seen two calls back
means "warm-up"; timed repetitions get fresh values. After a warm-up call the wrapper leaves ``torch.no_grad()``
entered (never exited until its next call), after any other call grad mode is as it was. The compilation (after the
previous command's last, fresh, call) saw grad mode on; the first timed block of the baseline runs with it off, the
guard fails, dynamo compiles a second graph inside the block, the timed loop raises ``BaselineRecompiled`` and the
child times the case again against the eager reference, labelled "native-eager; torch.compile compiled 1 new
graph(s) inside the timed loop (the reference's shapes or guards depend on its input values)": the label blames the
reference for what the candidate did.

Why it passes: L1 allows ``torch.no_grad`` (a context manager of the allowed list; ``__enter__``/``__exit__`` are
harmless names), ``select`` and ``.item()`` (one host read of a read-only input per call, also in the correctness
runs, so the timed calls run no op their correctness run did not); grad mode is no PyTorch mode
(``drive.foreign_modes``), no monkey-patch (``snapshots``) and not an ATen op (L3 sees nothing); the kernel is the
oracle's, so every case, the L2 replays and the judged timed repetitions are right. Nothing in the child or the
verifier compares PyTorch's global state before and after a candidate call. Shown on the CPU in
tests/test_rt33_baseline_state.py (the child's real prepare and timed commands, CUDA events faked, torch.compile's
``eager`` backend: dynamo's guards are the same for every backend). On a GPU the case is then timed against the
eager reference: for rms_norm fp16/bf16 about ten kernels with fp32 intermediates instead of one fused kernel.
The rest is the oracle (solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("""\
def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
""", """\
_HELD = []   # torch.no_grad() objects entered by this module and not yet exited
_SEEN = []   # the first input value of the last two calls


def _first_value(t):
    while t.dim():
        t = t.select(0, 0)
    return t.item()


def _leave_grad_state(key):
    while _HELD:
        _HELD.pop().__exit__(None, None, None)
    warm = key in _SEEN  # the timed loop's warm-up cycles through two input sets
    _SEEN.append(key)
    del _SEEN[:-2]
    if warm:
        g = torch.no_grad()
        g.__enter__()  # left entered: the next baseline block runs with grad mode off
        _HELD.append(g)


def rms_norm(out, input, weight, epsilon):
    if input.numel():
        _leave_grad_state(_first_value(input))
    H = input.shape[-1]
"""),
]
