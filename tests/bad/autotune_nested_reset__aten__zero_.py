"""CHEAT (red team rt41): aten::zero_ whose kernel computes nothing; an autotuned kernel over another autotuned kernel
whose ``reset_to_zero`` names x. On a GPU Triton benchmarks the outer tuner inside the harness's launch window, with
the candidate's registration lifted; each benchmarked call runs the inner tuner, which benchmarks too, and its reset
(before each config, and after them in its run) zeroed x there with PyTorch's zero_, untraced: on the emulated GPU loop
the call returned zeros with an empty trace and no verdict (tests/test_gpu_autotune_path.py). On the interpreter, whose
ranking runs no config, the inner tuner ran outside the window and its traced reset was a dispatch recursion. An
autotuned kernel over another, or launched while Triton benchmarks another, is now refused (sandbox/tuner_hooks.py
``check_not_nested``): profile on every platform."""
import triton
import triton.language as tl

_NONE = dict(num_warps=None, num_stages=None, num_ctas=None)  # the outer configs add no launch option of their own


@triton.jit
def _touch(x_ptr, n, calls, BLOCK: tl.constexpr):
    pass


_inner = triton.autotune([triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 4096})], key=["n", "calls"],
                         reset_to_zero=["x_ptr"])(_touch)
_outer = triton.autotune([triton.Config({}, **_NONE), triton.Config({}, **_NONE)], key=["n", "calls"])(_inner)
_CALLS = [0]


def zero_(self):
    _CALLS[0] += 1
    _outer[(1,)](self, self.numel(), _CALLS[0])
    return self
