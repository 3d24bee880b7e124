# Torch compute hidden in the launch-grid callable, plus a cross-call cache in a mutable default
# argument so that a repeated case -- the CUDA kernel-list profile run re-runs the first case -- is
# answered with a same-dtype copy_ (allowed) and a real Triton launch, and no ATen compute shows up.
# Fails as `profile` (L3): L1 passes it, since it judges no state across calls (the module-cache rule
# is gone: verify/scan/policy.py "State across calls"), but launch-grid callables are traced, so the
# call that fills the cache (case smoke/0's first run) shows aten::mm, mul, pow, add and div in the
# L3 dispatch trace: PyTorch compute outside Triton kernels.
import torch
import triton
import triton.language as tl


@triton.jit
def _flag(p):
    tl.store(p, 1)


def _key(t):
    return (tuple(t.shape), t.dtype, t.reshape(-1)[0].item(), t.reshape(-1)[-1].item())


def _memo_table(_memo={}):
    return _memo


def rms_norm(out, input, weight, epsilon):
    _memo = _memo_table()
    H = input.shape[-1]
    flag = torch.zeros(1, dtype=torch.int32, device=out.device)
    ran = torch.zeros(1, dtype=torch.int32, device=out.device)
    k = _key(input)
    if k in _memo:                       # a repeat (profile run): copy, and launch a real kernel
        _flag[(1,)](flag)
        if flag.item() == 1:             # not a ghost replay
            out.copy_(_memo[k])
        return None

    def grid(meta):
        x = input
        ones = torch.ones(H, 1, dtype=x.dtype, device=x.device)
        inv = ((x * x) @ ones / H + epsilon) ** -0.5
        out.copy_(x * inv * weight)
        ran.fill_(1)
        return (1,)
    _flag[grid](flag)
    if ran.item() == 1:                 # the grid ran, so this was not a ghost replay
        _memo[k] = out.clone()
    return None
