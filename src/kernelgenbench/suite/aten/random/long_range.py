"""The long-range (copy) test of the random family (test 6 of the package docstring): is any part of
the samples a copy of another part, at any distance, within a run or across runs (:func:`copy_test`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from .stats import CDF_SLACK, Law, _bits

# ---------------------------------------------------------------------------- long-range (copy) test
#: Inside a copy segment an element is drawn by the copy rule with probability 1 - LR_EPS and fresh with
#: LR_EPS, so one element that breaks a copy costs at most log2(1/LR_EPS) = 10 bits instead of the segment.
LR_EPS = 2.0 ** -10
#: Candidates kept from each finder of :func:`copy_test` (lags or mirror centres).
LR_CANDIDATES = 4
#: How much more probability than the law a correct sampler may give one cell: a Kolmogorov distance of
#: at most CDF_SLACK (the allowance of the distribution test) moves at most 2 * CDF_SLACK into an interval
#: (+1e-9 for the float64 error of the computed cell bounds).
LR_ATOM_SLACK = 2 * CDF_SLACK + 1e-9
#: The copy rules (:func:`copy_test`).
LR_MODES = ("equal values", "same uniform", "mirrored uniform")
_R_HASH = 0x9E3779B97F4A7C15
_R_HASH_INV = pow(_R_HASH, -1, 1 << 64)


@dataclass
class Cells:
    """Samples as the long-range test sees them: flat, in logical order, runs concatenated.

    Attributes:
        lo, hi: each element's cell ``[F(x-), F(x))`` under its law (float64); rrelu's x > 0: [0, 1).
        key: the value's bits (int64); det: deterministic elements (:meth:`Law.deterministic`, and rrelu's
            x > 0: a property of the case, never of the sample); rep: the element is its cell's
            representative (:meth:`Law.representative`).
    """

    lo: np.ndarray
    hi: np.ndarray
    key: np.ndarray
    det: np.ndarray
    rep: np.ndarray

    @staticmethod
    def of(law: Law, x: torch.Tensor, select: torch.Tensor | None = None) -> "Cells":
        """The cells of one run's samples ``x`` (flat, in the law's order); ``select``: the flat mask of
        the elements that ``x`` holds (the others are deterministic, e.g. rrelu's x > 0)."""
        lo, hi = law.cdf_bounds(x)
        key, rep = _bits(x).long(), law.representative(x).reshape(-1)
        det = law.deterministic()
        det = torch.zeros(x.numel(), dtype=torch.bool) if det is None else det.reshape(-1).cpu()
        if select is not None:
            m = select.reshape(-1).cpu()

            def full(v: torch.Tensor, fill: Any) -> torch.Tensor:
                return torch.full((m.numel(),), fill, dtype=v.dtype).masked_scatter_(m, v)

            lo, hi, key, rep, det = full(lo, 0.0), full(hi, 1.0), full(key, 0), full(rep, True), full(det, True)
        return Cells(lo.numpy(), hi.numpy(), key.numpy(), det.numpy(), rep.numpy())

    @staticmethod
    def cat(parts: Sequence["Cells"]) -> "Cells":
        return Cells(*(np.concatenate([getattr(c, f) for c in parts]) for f in ("lo", "hi", "key", "det", "rep")))

    def __len__(self) -> int:
        return len(self.lo)


def copy_threshold(n: int, alpha: float) -> float:
    """Bits of likelihood ratio at which :func:`copy_test` fails ``n`` concatenated elements at level
    ``alpha``: ``log2(1/alpha) + log2(9 n) + 2 log2(n) + log2(e)`` (the test level, the weight of one
    (rule, direction, lag) of fewer than 9 n, and the path of one copy segment)."""
    return math.log2(1.0 / alpha) + math.log2(9.0 * n) + 2.0 * math.log2(n) + math.log2(math.e)


def _splitmix(a: np.ndarray) -> np.ndarray:
    x = a.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _powers(r: int, n: int) -> np.ndarray:
    p = np.full(n, r, dtype=np.uint64)
    p[0] = 1
    return np.cumprod(p, dtype=np.uint64)


def _kgram_hashes(a: np.ndarray, k: int) -> np.ndarray:
    """Hash of every window ``a[i:i+k]`` (polynomial, mod 2^64, position-free)."""
    n, m = len(a), len(a) - k + 1
    c = np.zeros(n + 1, dtype=np.uint64)
    np.cumsum(a * _powers(_R_HASH, n), out=c[1:])
    return (c[k:] - c[:m]) * _powers(_R_HASH_INV, m)


def _top(score: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest entries of ``score``."""
    if len(score) <= k:
        return np.arange(len(score))
    return np.argpartition(-score, k)[:k]


def _most_common(v: np.ndarray, k: int) -> list[int]:
    if len(v) == 0:
        return []
    vals, counts = np.unique(v, return_counts=True)
    return [int(x) for x in vals[_top(counts.astype(np.float64), k)]]


def _copy_candidates(c: Cells, K: int, extra: Sequence[int] = ()) -> dict[tuple[str, int], set[str]]:
    """Shift lags ``("shift", p)`` (element i copies i - p) and mirror centres ``("mirror", s)`` (element i
    copies s - i) worth evaluating, each with the copy rules to try: the ``K`` strongest positive
    correlations of the cells' midpoints at any lag or centre (FFT; rules "equal values" and "same
    uniform") and the ``K`` strongest negative ones ("mirrored uniform"), the ``K`` commonest offsets
    between repeated k-grams of values (hashing; "equal values"), and the ``extra`` lags (all rules).
    The choice may depend on the data: :func:`copy_test`'s bound holds for any choice."""
    n = len(c)
    out: dict[tuple[str, int], set[str]] = {}

    def add(cands: Any, modes: Sequence[str]) -> None:
        for cand in cands:
            out.setdefault(cand, set()).update(modes)

    add((("shift", int(p)) for p in extra if 1 <= p < n), LR_MODES)
    z = np.where(c.det, 0.0, 0.5 * (c.lo + c.hi) - 0.5)
    if np.any(z != 0):
        m = 1 << (2 * n - 1).bit_length()
        f = np.fft.rfft(z, m)
        auto = np.fft.irfft(f * np.conj(f), m)[1:n]  # lag p = index + 1
        conv = np.fft.irfft(f * f, m)[1:2 * n - 2]  # centre s = index + 1
        for score, kind in ((auto, "shift"), (conv, "mirror")):
            add(((kind, int(i) + 1) for i in _top(score, K)), LR_MODES[:2])
            add(((kind, int(i) + 1) for i in _top(-score, K)), LR_MODES[2:])
    r = np.minimum(1.0, c.hi - c.lo + LR_ATOM_SLACK)
    live = ~c.det
    bits = float(-np.log2(r[live]).mean()) if live.any() else 0.0
    if bits > 0:
        k = int(min(512, max(4, math.ceil(48.0 / bits))))
        m = n - k + 1
        if m >= 2:
            b = m.bit_length()
            high = ~np.uint64((1 << (b + 1)) - 1)  # hash bits above (tag, position): sorting sorts by
            a = _splitmix(c.key)                     # (hash, tag, position) in one unstable sort
            h = _kgram_hashes(a, k) & high
            pos = np.arange(m, dtype=np.uint64)
            hs = np.sort(h | pos)
            same = (hs[1:] & high) == (hs[:-1] & high)
            pmask = np.uint64((1 << b) - 1)
            ps = (hs & pmask).astype(np.int64)
            add((("shift", p) for p in _most_common((ps[1:] - ps[:-1])[same], K)), LR_MODES[:1])
            hr = _kgram_hashes(a[::-1].copy(), k) & high
            hh = np.sort(np.concatenate([h | pos, hr | np.uint64(1 << b) | pos]))
            tag = (hh >> np.uint64(b)) & np.uint64(1)
            pp = (hh & pmask).astype(np.int64)
            pair = ((hh[1:] & high) == (hh[:-1] & high)) & (tag[:-1] == 0) & (tag[1:] == 1)
            centres = (pp[:-1] + n - 1 - pp[1:])[pair]
            add((("mirror", s) for s in _most_common(centres[(centres >= 1) & (centres <= 2 * n - 3)], K)),
                LR_MODES[:1])
    return out


def _copy_kernel(t: Cells, tgt: Any, s: Cells, src: Any, ws: np.ndarray, mode: str) -> np.ndarray:
    """``K(x_i | x_j)`` of one copy rule for the targets ``t[tgt]`` and their sources ``s[src]`` (``ws``: the
    sources' cell widths): *equal values* 1 where the bits agree; *same uniform* (*mirrored uniform*) the
    overlap of the target's cell with the source's cell (its mirror image ``1 - cell``) over the source
    cell's width, given only to a cell's representative. Over the values of ``x_i`` it sums to at most 1."""
    if mode == "equal values":
        return (t.key[tgt] == s.key[src]).astype(np.float64)
    lo_s, hi_s = s.lo[src], s.hi[src]
    if mode == "mirrored uniform":
        lo_s, hi_s = 1.0 - hi_s, 1.0 - lo_s
    kappa = np.minimum(t.hi[tgt], hi_s)
    kappa -= np.maximum(t.lo[tgt], lo_s)
    np.maximum(kappa, 0.0, out=kappa)
    kappa /= np.where(ws > 0, ws, np.inf)
    kappa[~t.rep[tgt]] = 0.0
    return kappa


def _copy_gains(c: Cells, r: np.ndarray, width: np.ndarray, kind: str, v: int,
                mode: str) -> tuple[int, np.ndarray, np.ndarray]:
    """Per target of one shift lag or mirror centre and one copy rule: ``(first target, g, live)`` with
    ``g_i = log2((1 - LR_EPS) K(x_i | x_j) / r_i + LR_EPS)`` (0 where ``i`` or ``j`` is deterministic) and
    ``live`` the targets where neither is. ``E[2^g_i | x_<i] <= 1`` whenever ``r_i`` bounds ``x_i``'s cell
    probability: ``K(. | x_j)`` sums to at most 1 over the values of ``x_i``."""
    n = len(c)
    if kind == "shift":  # targets v..n-1, sources 0..n-1-v
        i0, i1 = v, n - 1
        tgt, src = slice(v, n), slice(0, n - v)
    else:  # targets v//2+1..min(v, n-1), sources v-i0 down to v-i1
        i0, i1 = v // 2 + 1, min(v, n - 1)
        tgt, src = slice(i0, i1 + 1), slice(v - i0, (v - i1 - 1) if v - i1 - 1 >= 0 else None, -1)
    if i1 < i0:
        return i0, np.zeros(0), np.zeros(0, dtype=bool)
    off = c.det[tgt] | c.det[src]
    kappa = _copy_kernel(c, tgt, c, src, width[src], mode)
    g = kappa / (r[tgt] / (1.0 - LR_EPS))
    g += LR_EPS
    np.log2(g, out=g)
    g[off] = 0.0
    return i0, g, ~off


def _best_copy(c: Cells, r: np.ndarray, width: np.ndarray, kind: str, v: int,
               modes: Sequence[str] = LR_MODES) -> tuple[float, str, int, int, int, int]:
    """The best single copy segment (maximum subarray of :func:`_copy_gains`) for one shift lag or mirror
    centre, over the copy rules ``modes``: ``(bits, rule, first target, end target, live targets in it where
    the rule holds, live targets in it)``."""
    best = (-math.inf, LR_MODES[0], 0, 0, 0, 0)
    for mode in modes:
        i0, g, live = _copy_gains(c, r, width, kind, v, mode)
        if len(g) == 0:
            return best
        acc = np.empty(len(g) + 1)
        acc[0] = 0.0
        np.cumsum(g, out=acc[1:])
        gain = acc - np.minimum.accumulate(acc)
        b = int(np.argmax(gain))
        if gain[b] > best[0]:
            a = int(np.argmin(acc[: b + 1]))
            seg = slice(a, b)
            held = int(((g[seg] > math.log2(LR_EPS) + 1e-9) & live[seg]).sum())
            best = (float(gain[b]), mode, i0 + a, i0 + b, held, int(live[seg].sum()))
    return best


def copy_test(c: Cells, alpha: float, runs: Sequence[tuple[int, str]] = ((0, "the sample"),),
              extra_lags: Sequence[int] = ()) -> str | None:
    """The long-range test: is any part of the sample a copy of another part (at any distance, within a run
    or across runs, shifted or mirrored), beyond what independent draws from the law allow?

    Null hypothesis: the ``n`` elements of ``c`` are independent, and the law ``P'_i`` of element ``i`` gives
    every cell at most ``LR_ATOM_SLACK`` more probability than the nominal law: ``P'_i(cell) <= R_i(cell) =
    min(1, hi - lo + LR_ATOM_SLACK)`` (true for every sampler within Kolmogorov distance CDF_SLACK of the
    law, the distribution test's allowance). Deterministic elements take their fixed value.

    Alternative (a code, in the sense of the no-hypercompression inequality): a mixture ``Q`` over
    ``w = (rule, direction, lag)`` with weight ``1/W`` each (``W < 9 n``: 3 rules, ``n - 1`` shift lags
    ``p``, source ``j = i - p``; ``2n - 3`` mirror centres ``s``, source ``j = s - i``; always ``j < i``), and,
    per ``w``, over the paths of a two-state Markov chain (fresh, copy) that starts fresh and switches with
    probability ``1/n`` each way. A fresh element is drawn from ``P'_i`` itself; a copying one from
    ``(1 - LR_EPS) K(x_i | x_j) + LR_EPS P'_i`` (and from ``P'_i`` where ``i`` or ``j`` is deterministic),
    with ``K`` the rule: *equal values* (``x_i = x_j``, bits), *same uniform* (the cell of ``x_i`` drawn in
    proportion to its overlap with ``x_j``'s cell: two inversions of one uniform), *mirrored uniform* (with
    the mirror image ``1 - cell`` of ``x_j``'s cell). Each component is a probability on samples, so
    ``E_P'[Q(X) / P'(X)] <= 1`` and Markov's inequality gives ``P'(log2 Q(X)/P'(X) >= t) <= 2^-t``.

    Statistic: for candidate ``w`` (:func:`_copy_candidates`, chosen from the data) and the best single
    copy segment (maximum subarray), ``G = sum over the segment of log2((1 - LR_EPS) K / R_i + LR_EPS)``
    (0 at deterministic elements). Since ``P'_i <= R_i``, ``log2 Q(x)/P'(x) >= G - log2 W - 2 log2 n -
    log2 e`` (one component, one path, whose probability is ``>= n^-2 (1 - 1/n)^(n-1) >= n^-2 / e``).
    The test fails when ``G >= copy_threshold(n, alpha)``, so a sampler under the null fails it with
    probability at most ``alpha``, whatever the candidates were. Fresh elements add exactly 0: the
    sampler's rounding matters only inside a claimed copy, where ``R_i`` bounds it.

    It catches, e.g., a period ``p`` (any ``p``), a block copied from anywhere in the sample or another run,
    a run equal (in part) to another run shifted or reversed, and uniforms reused across elements with
    different parameters (a weak generator whose streams overlap); a copy is found once it carries
    ``copy_threshold`` bits (69-87 bits for 3 x 4096 to 3 x 512 x 512 elements: ~90 Bernoulli(1/2)
    elements, ~10 fp32 exponentials) and a candidate finder proposes its lag. An arbitrary fixed
    permutation of another run is not a copy in this sense.

    Args:
        c: the cells of the concatenated runs; runs: ``(first index, name)`` of each run, for messages;
        alpha: the level; extra_lags: further shift lags to evaluate (e.g. the run length).
    """
    n = len(c)
    if n < 2:
        return None
    r = np.minimum(1.0, c.hi - c.lo + LR_ATOM_SLACK)
    width = c.hi - c.lo
    best = (-math.inf, "", 0, 0, 0, 0, "", 0)
    for (kind, v), modes in sorted(_copy_candidates(c, LR_CANDIDATES, extra_lags).items()):
        found = _best_copy(c, r, width, kind, v, [m for m in LR_MODES if m in modes])
        if found[0] > best[0]:
            best = (*found, kind, v)
    thr = copy_threshold(n, alpha)
    g, mode, a, b, held, live, kind, v = best
    if g < thr:
        return None

    def where(i: int) -> str:
        start, name = max((s for s in runs if s[0] <= i), key=lambda s: s[0])
        return f"{name}, flat index {i - start}"

    src = (a - v, b - 1 - v) if kind == "shift" else (v - a, v - (b - 1))
    return (f"long-range test: {b - a} elements from ({where(a)}) on copy ({mode}; it holds for {held} of the "
            f"{live} random ones) the elements from ({where(src[0])}) {'on' if kind == 'shift' else 'backwards'}: a "
            f"log-likelihood ratio of {g:.0f} bits against independent draws, allowed < {thr:.0f} (copy mixture "
            f"at {alpha:.2g})")
