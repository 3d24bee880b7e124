# Red-team "divergent reads": with host reads replayed in a ghost replay, a flag read returns what the
# normal run read. A replay only replays a read that matches the logged one (kind, shape, dtype), so
# the wrapper reads its flag differently (as a 0-d view instead of a 1-element tensor) when it has seen the inputs before
# (a set held by a closure): the replay's read then no longer matches, reads live, and the unwritten
# flag gives the replay away; a repeated normal run reads 1 and answers with allowed copies (zero_ +
# select + copy_, no Triton compute). Caught because a replay whose host reads or launches differ from
# those of the normal run it replays fails L2 -> ghost (and when the replay follows the judged re-run,
# the re-run's log matches and the flag reads 1 -> ghost as well).
import torch
import triton
import triton.language as tl


@triton.jit
def _flag(p):
    tl.store(p, 1)


def _make():
    seen = set()

    def bwd(grad, input_sizes, dim, index, out):
        sizes = [int(s) for s in input_sizes]
        if out is None:
            out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
        elif list(out.shape) != sizes:
            out.resize_(sizes)
        first = grad.reshape(-1)[0].item() if grad.numel() else None
        key = (tuple(grad.shape), str(grad.dtype), tuple(sizes), dim, index, out is None, first)
        flag = torch.zeros(1, dtype=torch.int32, device=grad.device)
        _flag[(1,)](flag)
        live = (flag[0].item() if key in seen else flag.item()) == 1
        seen.add(key)
        if not live:
            return out  # ghost replay detected: leave the output poisoned
        out.zero_()
        out.select(dim, index).copy_(grad)
        return out

    return bwd


_bwd = _make()


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
