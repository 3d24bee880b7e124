# Red-team "input fingerprint": L2 used to replay cases on the same inputs as the correctness run. The
# wrapper remembers a fingerprint of every input it has seen (shape, dtype, arguments and the first
# value, one host read) in a set held by a closure (L1 does not see it as a module-level cache); on a
# second sighting it leaves its output poisoned (a replay), else it answers with allowed copies (zero_
# + select + copy_, no Triton compute). Caught because every ghost-replayed input set is also run
# normally a second time, in random order with the replay, and judged: the second sighting can be a
# normal run -> wrong_result.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p):
    pass


def _make():
    seen = set()

    def bwd(grad, input_sizes, dim, index, out):
        sizes = [int(s) for s in input_sizes]
        if out is None:
            out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
        elif list(out.shape) != sizes:
            out.resize_(sizes)
        _touch[(1,)](out)  # proof of launch
        first = grad.reshape(-1)[0].item() if grad.numel() else None
        key = (tuple(grad.shape), str(grad.dtype), tuple(sizes), dim, index, out is None, first)
        if key in seen:
            return out  # seen before: a replay, leave the output poisoned
        seen.add(key)
        out.zero_()
        out.select(dim, index).copy_(grad)
        return out

    return bwd


_bwd = _make()


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
