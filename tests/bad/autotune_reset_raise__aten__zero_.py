"""CHEAT (red team rb40): aten::zero_ whose kernel computes nothing; the result is Triton's own reset_to_zero hook.
Triton benchmarks the autotuned kernel inside the candidate's call (a new autotune key each call) with the candidate's
ATen registration lifted (b075737): its pre-hook zeroed x with PyTorch's zero_, untraced, then the launch grid raises
and the candidate catches the error, so ``Autotuner.run``'s traced reset after the benchmark (a dispatch recursion)
never runs. On a GPU this passed with an empty trace (tests/test_gpu_autotune_path.py emulates it). The interpreter
runs no config while ranking them, so there the grid never raises and run's traced reset fails it (before and after
the fix). Triton's reset now runs traced while it benchmarks (sandbox/tuner_hooks.py): dispatch_recursion everywhere."""
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 4096})], key=["n", "calls"],
                 reset_to_zero=["x_ptr"])
@triton.jit
def _touch(x_ptr, n, calls, BLOCK: tl.constexpr):
    pass


class _Stop(Exception):
    pass


def _grid(meta):
    raise _Stop()


_CALLS = [0]


def zero_(self):
    _CALLS[0] += 1
    try:
        _touch[_grid](self, self.numel(), _CALLS[0])
    except _Stop:
        pass
    return self
