"""The softmax bound (README "Tolerance and precision policy"; suite/aten/reduction.py ``softmax_rule``; red team
30): honest fp32 softmax orders pass with a wide margin on the grid's row lengths, fp16-rounded probabilities
fail."""
from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite.aten.reduction import softmax_rule


def _ratio(got: torch.Tensor, x: torch.Tensor, dim: int) -> float:
    """max over elements of (|got - ref| - rtol·|ref|) / allowance (> 1: the element fails)."""
    ref = torch.softmax(x.double(), dim=dim).to(x.dtype)
    tol, extra = softmax_rule(x, dim, ref)
    rtol, _, _ = tol.resolve(ref.dtype)
    err = (got.double() - ref.double()).abs() - rtol * ref.double().abs()
    return float((err / extra).max())


def _online(x: torch.Tensor, dim: int, block: int) -> torch.Tensor:
    """Flash-style softmax: a running max and a rescaled running sum over blocks of the row, in fp32."""
    xt = x.movedim(dim, -1)
    m = torch.full(xt.shape[:-1], -math.inf)
    s = torch.zeros(xt.shape[:-1])
    for i in range(0, xt.shape[-1], block):
        b = xt[..., i:i + block]
        m_new = torch.maximum(m, b.amax(-1))
        s = s * torch.exp(m - m_new) + torch.exp(b - m_new[..., None]).sum(-1)
        m = m_new
    return (torch.exp(xt - m[..., None]) / s[..., None]).movedim(-1, dim)


def _sequential_sum(x: torch.Tensor, dim: int) -> torch.Tensor:
    e = torch.exp(x - x.amax(dim, keepdim=True))
    s = torch.cumsum(e, dim).narrow(dim, e.shape[dim] - 1, 1)  # a running fp32 sum, element by element
    return e * (1.0 / s)


@pytest.mark.parametrize("shape, dim", [([1, 256], 1), ([64, 256], 1), ([200, 2560, 3], 1), ([3, 8191], 1),
                                        ([511, 257], 0)])
def test_honest_fp32_orders_pass_and_fp16_probabilities_fail(shape, dim) -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g) * 3
    honest = {
        "torch": torch.softmax(x, dim),
        "exp2": torch.exp2((x - x.amax(dim, keepdim=True)) * 1.4426950408889634),
        "online16": _online(x, dim, 16),
        "online128": _online(x, dim, 128),
        "sequential": _sequential_sum(x, dim),
    }
    e2 = honest["exp2"]
    honest["exp2"] = e2 / e2.sum(dim, keepdim=True)
    for name, got in honest.items():
        assert _ratio(got, x, dim) < 0.5, name
    p = torch.softmax(x, dim)
    small = torch.where(p < 0.125, p.half().float(), p)  # the red team's fp16_small_probs
    assert _ratio(small, x, dim) > 1.0
