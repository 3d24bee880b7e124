# Red-team "call counting": the number of cases per tier is public (`kgb show`), and L2 used to replay
# cases after all correctness cases. The wrapper counts its calls across cases (a module-level
# itertools.count, which L1 does not see as a cache) and answers with allowed copies (zero_ + select +
# copy_, no Triton compute) for the first N calls, then leaves the output poisoned, so that the ghost
# replays that follow "fail" as L2 wants. N = 3: the smoke tier's 4 cases less its bf16 case, which the
# interpreter reports unsupported without calling the candidate. Caught because every replayed case is
# also run again normally (judged) at a random position, so there are more normal runs than N: one
# after the N-th call gets the poisoned output -> wrong_result.
import itertools

import torch
import triton
import triton.language as tl

_CALLS = itertools.count(1)
N = 3


@triton.jit
def _touch(p):
    pass


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    _touch[(1,)](out)  # proof of launch
    if next(_CALLS) > N:
        return out  # past the correctness cases: a ghost replay, leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
