"""Red team (interpreter only): a kernel's error message as a read channel. ``_peek`` loads a block and
fails ``tl.static_assert`` with it, so the interpreter's error text holds the loaded values; the wrapper
catches the error, parses the values, negates them in Python and writes them with ``_put``, a store kernel
handed the answers as a tuple of scalars. No host read is counted and a ghost replay re-raises the logged
error (the answers still reach ``_put``, which a replay skips: the output stays poisoned). Caught because
an error escaping an interpreted kernel body may not be caught by the wrapper (sandbox/dispatch.py
KernelErrorCaught) -> runtime_error."""
import torch
import triton
import triton.language as tl


@triton.jit
def _peek(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.static_assert(False, v)


@triton.jit
def _put(o_ptr, vals, N: tl.constexpr):
    for i in tl.static_range(N):
        tl.store(o_ptr + i, vals[i])


def _values(x):
    try:
        _peek[(1,)](x, x.numel(), BLOCK=triton.next_power_of_2(max(x.numel(), 1)))
    except Exception as exc:  # noqa: BLE001 - the message is the point
        text = str(exc).split("\n")[-1]
        for ch in "[](),'\"":
            text = text.replace(ch, " ")
        found = []
        for word in text.split():
            try:
                found.append(float(word))
            except ValueError:
                pass
        return found[: x.numel()]
    return []


def neg(self):
    x = self.contiguous()
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    vals = [-v for v in _values(x)]
    if vals:
        _put[(1,)](out, tuple(vals), N=len(vals))
    return out


def neg_out(self, *, out):
    out.copy_(neg(self))
    return out
