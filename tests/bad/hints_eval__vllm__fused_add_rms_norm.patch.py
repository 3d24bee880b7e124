"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): ``typing.get_type_hints`` is ``eval``. A string
annotation is Python source that L1 never parses; ``typing`` is an allowed import and ``get_type_hints`` no finding;
evaluating ``_probe``'s annotation imports the sandbox's ``kernelgenbench.sandbox.state`` and returns ``STATE`` (any
other module, numpy included, likewise: L1's import, exec/eval and introspection rules are bypassed as a whole).
fused_add_rms_norm is then computed by ATen (the add, ``@`` for the sum of squares, ``** -0.5``, conversions, the
copies into ``residual`` and ``input``) with ``STATE.inside_launch`` raised, so ``CandidateMode`` passes every op
through untraced, and skipped when ``STATE.ghost`` says the call is an L2 replay (the written arguments keep their
input values there: the replay fails and L2 credits Triton). The only Triton launch loads one element of ``weight``.
L3 trace: empty. The rest is the oracle (solutions/vllm__fused_add_rms_norm.py), never launched."""

SUBSTITUTIONS = [
    ("import torch\n", '''import typing

import torch
'''),
    ("def _outer(t):\n", '''def _probe(a: "__import__('kernelgenbench.sandbox.state', fromlist=['STATE']).STATE"):
    pass


_ST = typing.get_type_hints(_probe)["a"]


@triton.jit
def _touch(p, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.load(p + offs, mask=offs < 1)


def _outer(t):
'''),
    ("    num_warps = max(1, min(8, BLOCK // 512))\n", '''    _touch[(1,)](weight, BLOCK=16)
    if _ST.ghost:
        return None
    _ST.inside_launch += 1
    try:
        z = input + residual
        zf = z.float()
        ss = (zf * zf) @ torch.ones((H, 1), dtype=torch.float32, device=z.device)
        y = (zf * (ss / H + float(epsilon)) ** -0.5).to(z.dtype) * weight
        residual.copy_(z)
        input.copy_(y)
    finally:
        _ST.inside_launch -= 1
    return None
    num_warps = max(1, min(8, BLOCK // 512))
'''),
]
