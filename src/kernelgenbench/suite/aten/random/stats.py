"""Statistics of the random family, reusable by any sampler's judge: the laws of the samples
(support, CDF cells for the randomised probability-integral transform, mean test), Bernstein, DKW and
Chernoff bounds, the distribution test and the pair-product test (tests 1-5 of the package docstring)."""
from __future__ import annotations

import abc
import math
from typing import Callable

import torch

#: Allowance of the distribution test beyond the DKW bound (fp32 arithmetic of a correct sampler).
CDF_SLACK = 1e-3


# ------------------------------------------------------------------------------------------ statistics
def bernstein(var: float, b: float, alpha: float) -> float:
    """The ``t`` with ``2 exp(-t^2 / (2 (var + b t / 3))) = alpha``: a two-sided bound on a sum of
    independent zero-mean terms ``|X_i| <= b`` with total variance ``var`` (Bernstein's inequality)."""
    L = math.log(2.0 / alpha)
    c = b * L / 3.0
    return c + math.sqrt(c * c + 2.0 * var * L)


def dkw(n: int, alpha: float) -> float:
    """The DKW-Massart bound ``e`` with ``P(sup |F_n - F| > e) <= alpha`` for ``n`` samples."""
    return math.sqrt(math.log(2.0 / alpha) / (2.0 * max(n, 1)))


def gamma_mean_bounds(n: int, alpha: float) -> tuple[float, float]:
    """``(lo, hi)`` with ``P(mean of n Exp(1) < lo) <= alpha/2`` and ``P(> hi) <= alpha/2`` (Chernoff)."""
    L = math.log(2.0 / alpha) / max(n, 1)

    def solve(f: Callable[[float], float], lo: float, hi: float) -> float:
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if f(mid) < L:
                lo = mid
            else:
                hi = mid
        return hi

    up = solve(lambda d: d - math.log1p(d), 0.0, 1e6)
    down = solve(lambda d: -d - math.log1p(-d), 0.0, 1.0 - 1e-15)
    return 1.0 - down, 1.0 + up


def _eps(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps


def _neighbour_mids(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For values ``w >= 0`` of a floating dtype: the float64 midpoints to the next lower and next
    higher representable value (the interval that rounds to ``w``)."""
    idt = {2: torch.int16, 4: torch.int32, 8: torch.int64}[w.element_size()]
    a = w.abs()
    bits = a.contiguous().view(idt)
    up = (bits + 1).view(w.dtype).double()
    down = torch.where(bits > 0, bits - 1, bits).view(w.dtype).double()
    a64 = a.double()
    down = torch.where(bits > 0, down, -up)  # below +0: the negative side, mirrored
    return 0.5 * (down + a64), 0.5 * (a64 + up)


def _bits(t: torch.Tensor) -> torch.Tensor:
    t = t.detach().contiguous().reshape(-1)
    if t.is_floating_point():
        return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])
    return t


# ----------------------------------------------------------------------------------------------- laws
class Law(abc.ABC):
    """The law of the samples of one case (verifier side). ``x`` are the candidate's samples, flat, in
    the output dtype and logical order; every method sees values already shape- and dtype-checked."""

    #: short text for messages
    name = "law"

    @abc.abstractmethod
    def support(self, x: torch.Tensor) -> str | None:
        """Why some value cannot come from the law (exact check), or None."""

    @abc.abstractmethod
    def cdf_bounds(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(F(x-), F(x))`` per element (float64): the randomised PIT is ``F(x-) + V (F(x) - F(x-))``."""

    @abc.abstractmethod
    def mean_test(self, x: torch.Tensor, alpha: float) -> str | None:
        """The law's mean test at level ``alpha`` (see the package docstring), or None when it passes."""

    @abc.abstractmethod
    def log_p_identical(self) -> float:
        """An upper bound of the log-probability that two independent draws of all samples coincide."""

    def deterministic(self) -> torch.Tensor | None:
        """Flat bool mask of the elements whose law is a single value (probability 0 or 1, rate 0), from the
        law's parameters alone (never from a sample); None: none is."""
        return None

    def representative(self, x: torch.Tensor) -> torch.Tensor:
        """Where ``x`` is the one value that stands for its cell ``[F(x-), F(x))`` (bool, per element).

        Cells are disjoint and partition [0, 1] except where several values share one cell: -0.0 and
        +0.0, and values a law merges into one atom (exponential: every value ``<= eps/lambda``); only the
        representative of such a cell (here +0.0) may be given the cell's mass by the long-range test's
        uniform rules (:func:`copy_test`)."""
        return ~((x == 0) & torch.signbit(x)) if x.is_floating_point() else torch.ones(x.shape, dtype=torch.bool)


class BernoulliLaw(Law):
    """Independent Bernoulli(q_i); ``q`` flat float64 in [0, 1] (the probabilities as the kernel reads them)."""

    name = "Bernoulli"

    def __init__(self, q: torch.Tensor) -> None:
        self.q = q.double().reshape(-1).cpu()

    def support(self, x):
        x = x.double()
        bad = ~((x == 0) | (x == 1))
        if bool(bad.any()):
            i = int(torch.nonzero(bad)[0])
            return f"{int(bad.sum())} samples are not 0 or 1 (first at flat index {i}: {x[i].item()!r})"
        det = ((self.q == 0) & (x != 0)) | ((self.q == 1) & (x != 1))
        if bool(det.any()):
            i = int(torch.nonzero(det)[0])
            return f"{int(det.sum())} samples differ from a probability of exactly 0 or 1 (first at flat index {i})"
        return None

    def cdf_bounds(self, x):
        x = x.double()
        lo = torch.where(x == 1, 1 - self.q, torch.zeros_like(x))
        hi = torch.where(x == 1, torch.ones_like(x), 1 - self.q)
        return lo, hi

    def mean_test(self, x, alpha):
        n = x.numel()
        s = float((x.double() - self.q).sum())
        var = float((self.q * (1 - self.q)).sum())
        bound = bernstein(var, 1.0, alpha) + n * 2.0 ** -22
        if abs(s) > bound:
            return (f"mean test: sum(x - q) = {s:.1f} over {n} samples, expected |.| <= {bound:.1f} "
                    f"(mean {s / n:+.3g}, sum q(1-q) = {var:.1f}; Bernstein at {alpha:.2g})")
        return None

    def log_p_identical(self):
        return float(torch.log(self.q ** 2 + (1 - self.q) ** 2).sum())

    def deterministic(self):
        return (self.q == 0) | (self.q == 1)


class PoissonLaw(Law):
    """Independent Poisson(lambda_i); ``lam`` flat float64 >= 0."""

    name = "Poisson"

    def __init__(self, lam: torch.Tensor) -> None:
        self.lam = lam.double().reshape(-1).cpu()

    def support(self, x):
        x = x.double()
        bad = ~(torch.isfinite(x) & (x >= 0) & (x == torch.floor(x)))
        if bool(bad.any()):
            i = int(torch.nonzero(bad)[0])
            return f"{int(bad.sum())} samples are not non-negative integers (first at flat index {i}: {x[i].item()!r})"
        zero = (self.lam == 0) & (x != 0)
        if bool(zero.any()):
            i = int(torch.nonzero(zero)[0])
            return f"{int(zero.sum())} samples are not 0 where the rate is 0 (first at flat index {i})"
        return None

    def cdf_bounds(self, x):
        x = x.double()
        lam = self.lam
        hi = torch.where(lam > 0, torch.special.gammaincc(x + 1, lam), torch.ones_like(x))
        lo = torch.where((x >= 1) & (lam > 0), torch.special.gammaincc(x.clamp_min(1), lam), torch.zeros_like(x))
        return lo, hi

    def mean_test(self, x, alpha):
        n = x.numel()
        s = float((x.double() - self.lam).sum())
        total = float(self.lam.sum())
        bound = bernstein(total, 1.0, alpha) + 1e-4 * n
        if abs(s) > bound:
            return (f"mean test: sum(x - lambda) = {s:.1f} over {n} samples, expected |.| <= {bound:.1f} "
                    f"(sum lambda = {total:.1f}; Bernstein at {alpha:.2g})")
        return None

    def log_p_identical(self):
        # P(X = X') for independent Poisson(l) draws = exp(-2l) I0(2l) = i0e(2l)
        return float(torch.log(torch.special.i0e(2 * self.lam)).sum())

    def deterministic(self):
        return self.lam == 0


class ExponentialLaw(Law):
    """I.i.d. Exp(lambda) rounded to ``dtype``; values ``<= eps(dtype)/lambda`` form one atom (package
    docstring: PyTorch's CUDA guard against rounding to 0 moves mass only below that point)."""

    name = "exponential"

    def __init__(self, lam: float, dtype: torch.dtype, n: int) -> None:
        self.lam, self.dtype, self.n = float(lam), dtype, n
        c = torch.tensor(_eps(dtype) / self.lam, dtype=torch.float64).to(dtype)
        self.c = float(c)
        self.c_hi = float(self.F(_neighbour_mids(c.reshape(1))[1])[0])

    def F(self, t: torch.Tensor) -> torch.Tensor:
        return torch.where(t > 0, -torch.expm1(-self.lam * t.clamp_min(0)), torch.zeros_like(t))

    def support(self, x):
        x64 = x.double()
        bad = ~(torch.isfinite(x64) & (x64 > 0))
        if bool(bad.any()):
            i = int(torch.nonzero(bad)[0])
            return (f"{int(bad.sum())} samples are not finite and strictly positive (first at flat index {i}: "
                    f"{x64[i].item()!r})")
        return None

    def cdf_bounds(self, x):
        lm, um = _neighbour_mids(x)
        low = x.double() <= self.c
        lo = torch.where(low, torch.zeros_like(lm), self.F(lm))
        hi = torch.where(low, torch.full_like(um, self.c_hi), self.F(um))
        return lo, hi

    def representative(self, x):
        x64 = x.double()  # (the support has no -0.0)
        return ~((x64 <= self.c) & (x64 != self.c))

    def mean_test(self, x, alpha):
        n = x.numel()
        s = float((x.double() * self.lam).sum())
        lo, hi = gamma_mean_bounds(n, alpha)
        slack = n * (_eps(self.dtype) / 2 + 1e-4)
        if not (n * lo - slack <= s <= n * hi + slack):
            return (f"mean test: mean(lambda x) = {s / n:.5f} over {n} samples, expected within "
                    f"[{lo - slack / n:.5f}, {hi + slack / n:.5f}] (Gamma(n,1) Chernoff bounds at {alpha:.2g})")
        return None

    def log_p_identical(self):
        return self.n * math.log(min(1.0, 2 * _eps(self.dtype)))


class UniformLaw(Law):
    """I.i.d. U(lower, upper) rounded to ``dtype`` (rrelu's noise where x <= 0); ``0 <= lower < upper``."""

    name = "uniform"

    def __init__(self, lower: float, upper: float, dtype: torch.dtype, n: int) -> None:
        self.l, self.u, self.dtype, self.n = float(lower), float(upper), dtype, n

    def F(self, t: torch.Tensor) -> torch.Tensor:
        return ((t - self.l) / (self.u - self.l)).clamp(0.0, 1.0)

    def support(self, x):
        x64 = x.double()
        e = 2 * _eps(self.dtype)
        lo, hi = self.l - e * abs(self.l) - 1e-30, self.u + e * abs(self.u) + 1e-30
        bad = ~(torch.isfinite(x64) & (x64 >= lo) & (x64 <= hi))
        if bool(bad.any()):
            i = int(torch.nonzero(bad)[0])
            return (f"{int(bad.sum())} noise values where x <= 0 lie outside [lower, upper] = [{self.l:g}, {self.u:g}] "
                    f"(first: {x64[i].item()!r})")
        return None

    def cdf_bounds(self, x):
        lm, um = _neighbour_mids(x)
        return self.F(lm), self.F(um)

    def mean_test(self, x, alpha):
        n = x.numel()
        mid = 0.5 * (self.l + self.u)
        s = float((x.double() - mid).sum())
        half = 0.5 * (self.u - self.l)
        slack = n * _eps(self.dtype) * abs(self.u)
        bound = bernstein(n * (self.u - self.l) ** 2 / 12, half + _eps(self.dtype) * abs(self.u), alpha) + slack
        if abs(s) > bound:
            return (f"mean test: mean(noise) = {mid + s / max(n, 1):.5f} over {n} samples where x <= 0, expected "
                    f"{mid:.5f} +- {bound / max(n, 1):.5f} (Bernstein at {alpha:.2g})")
        return None

    def log_p_identical(self):
        atom = 2 * _eps(self.dtype) * max(abs(self.l), abs(self.u)) / (self.u - self.l)
        return self.n * math.log(min(1.0, atom))


def randomized_pit(law: Law, x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """``F(x-) + V (F(x) - F(x-))`` with ``V`` uniform draws from ``gen``: i.i.d. U(0,1) for a correct sampler."""
    lo, hi = law.cdf_bounds(x)
    v = torch.rand(x.numel(), generator=gen, dtype=torch.float64)
    return (lo + v * (hi - lo)).clamp(0.0, 1.0)


def distribution_test(u: torch.Tensor, alpha: float) -> str | None:
    """DKW on the randomised PIT (plus :data:`CDF_SLACK`)."""
    n = u.numel()
    if n == 0:
        return None
    s = torch.sort(u).values
    i = torch.arange(1, n + 1, dtype=torch.float64)
    d = float(torch.maximum(i / n - s, s - (i - 1) / n).max())
    bound = dkw(n, alpha) + CDF_SLACK
    if d > bound:
        return (f"distribution test: the samples' CDF deviates from the law's by {d:.4f} (KS distance of the "
                f"randomised PIT over {n} samples), allowed {bound:.4f} (DKW at {alpha:.2g} + {CDF_SLACK:g})")
    return None


def product_test(u: torch.Tensor, w: torch.Tensor, alpha: float, what: str) -> str | None:
    """``sum (u_i - 1/2)(w_i - 1/2)`` for independent uniform pairs: Bernstein with b = 1/4, variance 1/144."""
    n = u.numel()
    if n == 0:
        return None
    s = float(((u - 0.5) * (w - 0.5)).sum())
    bound = bernstein(n / 144.0, 0.25, alpha) + 1e-6 * n
    if abs(s) > bound:
        return (f"{what}: correlation {12 * s / n:+.4f} over {n} pairs, allowed |.| <= {12 * bound / n:.4f} "
                f"(Bernstein at {alpha:.2g})")
    return None
