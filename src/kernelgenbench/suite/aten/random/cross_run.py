"""The cross-run (function-of) test of the random family (test 7 of the package docstring): is one run
a rearrangement of another's values, or a local copy of them (:func:`cross_run_test`)."""
from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np
import torch

from .long_range import LR_ATOM_SLACK, LR_MODES, Cells, _copy_kernel

# ------------------------------------------------------------------------ cross-run (function-of) test
#: The pairs of runs compared by :func:`cross_run_test` (indices into runs A, B, D): B on A, D on A, D on B.
XR_PAIRS = ((0, 1), (0, 2), (1, 2))
#: Half-widths ``w`` of the windows of :func:`local_copy_bits` (an element may copy any source within +-w).
XR_WINDOWS = (1, 4, 16)
#: Weights of "fresh" in :func:`local_copy_bits`'s per-element mixture.
XR_FRESH = (0.5, 15.0 / 16.0)
#: The components of the multiset test (:func:`multiset_bits`): (pooled values per label, scale of the
#: count differences allowed, root). Scale 0: exact permutations (few, sharply priced labels); 1/4: near ones.
XR_MULTISET = tuple((g, sc, root) for g, sc in ((8, 0.0), (32, 0.25)) for root in ("half", "mode"))
#: ``q_c(d + 1) / q_c(d)`` (d >= 0) of the exact-permutation component (:func:`multiset_bits`, scale 0).
XR_EXACT_STEP = 0.25
#: The alternatives "a shared value lies in both runs with probability theta" of :func:`shared_values_bits`.
XR_THETAS = (0.75, 0.97, 1.0 - 2.0 ** -10)
#: Sizes of the aligned position blocks of :func:`block_count_bits` (a permutation inside such blocks).
XR_BLOCKS = (64, 512, 4096)


def _log2_binom_pmf(m: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``log2 P(S = y)`` for ``S`` a sum of ``m`` independent fair signs (+-1); ``y`` has m's parity."""
    m_t, k_t = torch.from_numpy(m.astype(np.float64)), torch.from_numpy((m + y) / 2.0)
    ln = torch.lgamma(m_t + 1) - torch.lgamma(k_t + 1) - torch.lgamma(m_t - k_t + 1) - m_t * math.log(2.0)
    return (ln / math.log(2.0)).numpy()


def multiset_bits(x: np.ndarray, y: np.ndarray, group: int, scale: float, root: str) -> tuple[float, int, int]:
    """Evidence (bits of an e-value) that run ``y`` holds the values of run ``x`` rearranged: the multiset
    test of :func:`cross_run_test`. ``x``, ``y``: the two runs' samples (float64, same positions, same law
    per position). Returns ``(bits, labels compared, largest |count difference| among them)``.

    Labels: a function of the value alone, built from the pooled values of both runs (a symmetric function,
    so it is fixed given the unordered pairs ``{x_i, y_i}``): the distinct values in order, label
    ``floor((pooled count of smaller values) / group)`` (a frequent value has a label of its own, rare ones
    share one per ``group`` pooled values). The root: with ``root="half"`` every label wholly in the lower
    half of the pooled sample, and the first (suits laws of many values); with ``root="mode"`` the label of
    the largest pooled count (suits laws of few values). ``D_c = #{x in c} - #{y in c}`` is 0 for every ``c``
    when ``y`` is any permutation of ``x``.

    Null hypothesis: the runs are independent and position ``i`` has the same law in both (whatever law:
    no slack for rounding is needed). Then ``(x_i, y_i)`` is exchangeable, and given the unordered pairs
    their orientations are independent fair coins. Let ``E_c`` be the pairs with one value in ``c`` and one
    in the root (``m_c`` of them) and ``Y_c`` = (those with ``x`` in ``c``) - (those with ``y`` in ``c``): a
    sum of ``m_c`` fair signs, the ``Y_c`` independent of each other and of every pair not touching the
    root, and ``D_c = Y_c + Z_c`` with ``Z_c`` fixed by the pairs outside the root's edges. For any
    probability ``q_c`` on the integers, ``E[q_c(D_c) / P(Y_c)] <= 1`` given those pairs, so
    ``prod_c q_c(D_c) / P_(m_c)(Y_c)`` (over the labels with ``m_c > 0``) is an e-value, a product of
    independent ones: ``P(bits >= t) <= 2^-t``. ``D_c``'s parity is fixed by the pairs (that of the number
    of pairs with exactly one value in ``c``), so ``q_c`` is a discrete Laplace law on the integers of that
    parity, ``q_c(d)`` proportional to ``r^|d|``, with ``r = XR_EXACT_STEP`` (``scale = 0``) or
    ``r = exp(-1 / max(1, scale sqrt(m_c)))``: an exact permutation (``D = 0``) earns
    ``-log2 P(Y_c) - log2(1/q_c(0))``, about ``0.5 log2(m_c) + 1.5`` bits less 0.18 (scale 0) or less
    ``log2(scale sqrt(m_c))`` per label; independent runs lose."""
    n = len(x)
    if n == 0:
        return 0.0, 0, 0
    _, inv, counts = np.unique(np.concatenate([x, y]), return_inverse=True, return_counts=True)
    before = np.cumsum(counts) - counts
    _, label = np.unique(before // max(1, group), return_inverse=True)
    L = int(label.max()) + 1
    if L < 2:
        return 0.0, 0, 0
    size = np.bincount(label, weights=counts, minlength=L)
    if root == "half":
        start = before[np.r_[0, np.nonzero(np.diff(label))[0] + 1]]  # labels are runs of the sorted values
        is_root = start + size <= n
        is_root[0] = True
    else:
        is_root = np.zeros(L, dtype=bool)
        is_root[int(np.argmax(size))] = True
    lab = np.where(is_root, 0, np.arange(1, L + 1))[label]
    lx, ly = lab[inv[:n]], lab[inv[n:]]
    K = L + 1
    d = np.bincount(lx, minlength=K) - np.bincount(ly, minlength=K)
    up = np.bincount(lx[(ly == 0) & (lx > 0)], minlength=K)  # x in c, y in the root: +1
    down = np.bincount(ly[(lx == 0) & (ly > 0)], minlength=K)
    yc, mc = up - down, up + down
    nodes = np.nonzero(mc[1:] > 0)[0] + 1
    if len(nodes) == 0:
        return 0.0, 0, 0
    odd = (np.bincount(lx[lx != ly], minlength=K) + np.bincount(ly[lx != ly], minlength=K))[nodes] % 2
    m, yv, dv = mc[nodes], yc[nodes], d[nodes]
    if scale == 0:
        rho = np.full(len(m), XR_EXACT_STEP)
    else:
        rho = np.exp(-1.0 / np.maximum(1.0, scale * np.sqrt(m)))
    r2 = rho * rho
    log2q = np.where(odd == 1, np.log2((1.0 - r2) / (2.0 * rho)), np.log2((1.0 - r2) / (1.0 + r2)))
    log2q += np.abs(dv) * np.log2(rho)
    bits = float((log2q - _log2_binom_pmf(m, yv)).sum())
    return bits, len(nodes), int(np.abs(dv).max())


def _signs_bits(m: np.ndarray, d: np.ndarray, rho: float) -> float:
    """``sum log2 q(d) - log2 P_m(d)`` over the entries with ``m > 0``: ``d`` a sum of ``m`` fair signs under
    the null, ``q`` the discrete Laplace law of step ``rho`` on the integers of ``m``'s parity."""
    live = m > 0
    m, d = m[live], d[live]
    if len(m) == 0:
        return 0.0
    r2 = rho * rho
    log2q = np.where(m % 2 == 1, math.log2((1.0 - r2) / (2.0 * rho)), math.log2((1.0 - r2) / (1.0 + r2)))
    log2q = log2q + np.abs(d) * math.log2(rho)
    return float((log2q - _log2_binom_pmf(m, d)).sum())


def block_count_bits(x: np.ndarray, y: np.ndarray, block: int) -> tuple[float, int, int]:
    """Evidence (bits of an e-value) that run ``y`` holds run ``x``'s values rearranged *inside aligned
    blocks of positions* (``[k block, (k+1) block)``): the block-count component of the multiset test of
    :func:`cross_run_test`. It is what sees a two-valued law (Bernoulli) or a law of few values (Poisson at
    small rates) permuted in pieces: the whole-run counts of :func:`multiset_bits` are one number there,
    while every block keeps its count (e.g. run B = run A with 32-element pieces swapped, ``i ^ 32``).
    Returns ``(bits, blocks compared, largest |count difference| among them)``.

    The indicator ``z_i`` of "``x_i`` is the pooled mode" (the most frequent value of both runs together:
    a symmetric function of the unordered pairs ``{x_i, y_i}``), ``w_i`` the same for ``y``. Under the
    null of :func:`multiset_bits` (the runs independent, position ``i`` with one law in both) the pairs'
    orientations are independent fair coins given the unordered pairs, so per block ``D = sum (z_i - w_i)``
    is a sum of ``m`` fair signs (``m`` the positions where exactly one of ``z_i, w_i`` is set), independent
    over blocks: ``prod q(D) / P_m(D)`` with ``q`` the exact-permutation law of :func:`multiset_bits`
    (step :data:`XR_EXACT_STEP`) is an e-value, ``P(bits >= t) <= 2^-t``. A block permutation has ``D = 0``
    in every block and earns about ``0.5 log2(m) - 0.9`` bits per block; independent runs lose."""
    n = len(x)
    if n < 2 * block:
        return 0.0, 0, 0
    vals, counts = np.unique(np.concatenate([x, y]), return_counts=True)
    mode = vals[int(np.argmax(counts))]
    nb = n // block
    z = (x[: nb * block] == mode).astype(np.int64).reshape(nb, block)
    w = (y[: nb * block] == mode).astype(np.int64).reshape(nb, block)
    d = (z - w).sum(axis=1)
    m = (z != w).sum(axis=1)
    return _signs_bits(m, d, XR_EXACT_STEP), int((m > 0).sum()), int(np.abs(d).max())


def shared_values_bits(x: np.ndarray, y: np.ndarray,
                       thetas: Sequence[float] = XR_THETAS) -> tuple[dict[float, float], int, int]:
    """Evidence (bits of an e-value per ``theta``) that runs ``x`` and ``y`` share values: the shared-values
    test of :func:`cross_run_test`, for laws of many values, where a value seen twice in the pooled sample
    is a coincidence. Unlike the multiset test it needs no complete permutation: it also sees a part of one
    run moved into the other (rrelu: slopes moved between positions where x <= 0 and x > 0). Returns
    ``(bits per theta, edges, edges split between the runs)``.

    Each value that occurs exactly twice in the pooled sample, at two different positions ``i < j``, is an
    edge ``(i, j)``, *split* when one occurrence is in ``x`` and the other in ``y``. Only the first edge
    (in value order) with upper end ``j`` is kept, for each ``j``: every kept edge's upper end has no other,
    so the kept edges form a forest. Edges, their order and the forest are functions of the unordered pairs
    ``{x_i, y_i}``. Null hypothesis (as the multiset test's): the runs independent, position ``i`` with the
    same law in both, so the pairs' orientations are independent fair coins given the unordered pairs; an
    edge is split iff the orientations of its ends differ, and on a forest these parities are independent
    fair coins. ``prod (2 theta)^split (2 (1 - theta))^(1 - split)`` over the forest is then an e-value
    for each ``theta``: ``P(bits >= t) <= 2^-t``. A copy of another run's values earns up to 1 bit per kept
    edge (2/3 of them in a long cycle of moved values)."""
    n = len(x)
    out = {float(t): 0.0 for t in thetas}
    if n == 0:
        return out, 0, 0
    v = np.concatenate([x, y])
    order = np.argsort(v, kind="stable")
    _, first, counts = np.unique(v[order], return_index=True, return_counts=True)
    two = first[counts == 2]
    i1, i2 = order[two], order[two + 1]
    p1, p2 = i1 % n, i2 % n
    keep = p1 != p2
    i1, i2, p1, p2 = i1[keep], i2[keep], p1[keep], p2[keep]
    _, kept = np.unique(np.maximum(p1, p2), return_index=True)
    split = (i1[kept] // n) != (i2[kept] // n)
    k, m = len(kept), int(split.sum())
    for t in thetas:
        out[float(t)] = m * math.log2(2.0 * t) + (k - m) * math.log2(2.0 * (1.0 - t))
    return out, k, m


def local_copy_bits(cx: Cells, cy: Cells, windows: Sequence[int] = XR_WINDOWS,
                    fresh: Sequence[float] = XR_FRESH) -> dict[tuple[str, int, float], float]:
    """Evidence (bits of a likelihood ratio) that run ``cy`` copies run ``cx`` locally, element by element
    from a nearby position (a local permutation, e.g. neighbours swapped, blocks reversed, XOR of the index
    with a small mask): the local test of :func:`cross_run_test`. Per (rule, window ``w``, fresh weight
    ``e``): ``sum_i log2(e + (1 - e) (1/(2w+1)) sum_{|d| <= w} K(y_i | x_(i+d)) / R_i)`` (0 where ``y_i`` is
    deterministic; ``K`` = 0 where the source is deterministic or outside the run), ``K`` and
    ``R_i = min(1, cell + LR_ATOM_SLACK)`` as in :func:`copy_test`.

    Null hypothesis (as :func:`copy_test`'s): ``y`` is independent of ``x``, its elements independent, each
    giving every cell at most ``R_i``. ``Q_i(y_i | x) = e P'_i(y_i) + (1 - e)/(2w+1) sum_d K(y_i | x_(i+d))``
    sums to at most 1 over ``y_i``, so ``prod_i Q_i / P'_i`` (``>= 2^bits``) has expectation ``<= 1``:
    ``P(bits >= t) <= 2^-t`` for each component."""
    n = len(cy)
    out: dict[tuple[str, int, float], float] = {}
    if n == 0:
        return out
    r = np.minimum(1.0, cy.hi - cy.lo + LR_ATOM_SLACK)
    width = cx.hi - cx.lo
    wmax = max(windows)
    live = ~cy.det
    for mode in LR_MODES:
        acc = {w: np.zeros(n) for w in windows}
        for dd in range(-wmax, wmax + 1):
            i0, i1 = max(0, -dd), n - max(0, dd)
            if i1 <= i0:
                continue
            tgt, src = slice(i0, i1), slice(i0 + dd, i1 + dd)
            kappa = _copy_kernel(cy, tgt, cx, src, width[src], mode)
            kappa[cx.det[src]] = 0.0
            for w in windows:
                if abs(dd) <= w:
                    acc[w][tgt] += kappa
        for w in windows:
            rho = acc[w][live] / ((2 * w + 1) * r[live])
            for e in fresh:
                out[(mode, w, e)] = float(np.log2(e + (1.0 - e) * rho).sum())
    return out


def cross_run_test(runs: Sequence[tuple[torch.Tensor, Cells]], alpha: float,
                   names: Sequence[str] = ("run A", "run B", "run D")) -> str | None:
    """Is one run a function of another: a rearrangement of its values (any permutation: swapped neighbours,
    reversal, rotation, shuffled blocks) or a local copy of them (by value, by uniform, or by mirrored
    uniform)? Tests 3-6 see only equal positions, neighbours and single-lag copy segments, so run B = run A
    with neighbours swapped passes them.

    ``runs``: per run (A, B, D) its samples (flat, as ``RandomJudge._run`` returns them) and its cells. One
    test at level ``alpha``: an average of e-values, a third of the weight on each family: the 3 x 4
    components of :func:`multiset_bits` (the pairs :data:`XR_PAIRS` x :data:`XR_MULTISET`) with the 3 x 3 of
    :func:`block_count_bits` (x :data:`XR_BLOCKS`), the 3 x 3 of
    :func:`shared_values_bits` (x :data:`XR_THETAS`) and the 3 x 18 of :func:`local_copy_bits` (3 rules x 3
    windows x 2 fresh weights). Under the null hypotheses of all three (the runs independent; each position
    with one law in every run, within the copy test's cell allowance) the average reaches ``1/alpha`` with
    probability ``<= alpha`` (Markov), so the test fails only when a component reaches ``log2(63/alpha)``
    bits (multiset), ``log2(27/alpha)`` (shared values) or ``log2(162/alpha)`` (local copies).

    Caught: any permutation of another run for laws with many values (exponential, uniform; Poisson with
    larger rates), from about 500 samples (exact permutations earn 1-2 bits per 8 pooled values), and for
    fp32 values also a part of a run moved into another (shared values); any copy within +-16 positions for
    every law (Bernoulli(1/2): about 0.2 bits per copied element with w = 1); for every law, a permutation
    inside aligned blocks of 64 to 4096 positions (block counts). Not caught: a two-valued law's
    (Bernoulli's) values moved across those blocks, farther than 16 positions, in pieces too short for the
    copy test (a permutation of a 0/1 run keeps only its count, which an independent run matches with
    probability ~1/sqrt(n)), the like for Poisson with small rates, and a run that is a permutation of a value map of
    another (other than the identity and, within +-16 positions, the mirror)."""
    k_pairs = len(XR_PAIRS)
    n_set = k_pairs * (len(XR_MULTISET) + len(XR_BLOCKS))
    n_shared = k_pairs * len(XR_THETAS)
    n_local = k_pairs * len(LR_MODES) * len(XR_WINDOWS) * len(XR_FRESH)
    t_set, t_shared, t_loc = (math.log2(3 * k / alpha) for k in (n_set, n_shared, n_local))
    vals = [r[0].double().numpy() for r in runs]
    for (a, b), (group, scale, root) in itertools.product(XR_PAIRS, XR_MULTISET):
        bits, labels, dmax = multiset_bits(vals[a], vals[b], group, scale, root)
        if bits >= t_set:
            return (f"cross-run test: {names[b]} holds the values of {names[a]} rearranged: the counts of "
                    f"{labels} value classes differ by at most {dmax} between the runs, an e-value of {bits:.0f} "
                    f"bits against independent runs, allowed < {t_set:.0f} (multiset test at {alpha:.2g})")
    for (a, b), block in itertools.product(XR_PAIRS, XR_BLOCKS):
        bits, blocks, dmax = block_count_bits(vals[a], vals[b], block)
        if bits >= t_set:
            return (f"cross-run test: {names[b]} holds the values of {names[a]} rearranged inside blocks of "
                    f"{block} positions: the counts of the most frequent value in {blocks} blocks differ by at "
                    f"most {dmax} between the runs, an e-value of {bits:.0f} bits against independent runs, "
                    f"allowed < {t_set:.0f} (multiset test at {alpha:.2g})")
    for a, b in XR_PAIRS:
        per, k, m = shared_values_bits(vals[a], vals[b])
        bits = max(per.values())
        if bits >= t_shared:
            return (f"cross-run test: {names[b]} shares values with {names[a]}: of {k} values seen twice (at two "
                    f"positions, a forest of them), {m} lie one in each run, an e-value of {bits:.0f} bits against "
                    f"independent runs (half expected), allowed < {t_shared:.0f} (shared-values test at {alpha:.2g})")
    for a, b in XR_PAIRS:
        for (mode, w, _name), bits in local_copy_bits(runs[a][1], runs[b][1]).items():
            if bits >= t_loc:
                return (f"cross-run test: {names[b]} copies {names[a]} locally ({mode}, each element from one "
                        f"within +-{w} positions): a log-likelihood ratio of {bits:.0f} bits against independent "
                        f"runs, allowed < {t_loc:.0f} (local copy mixture at {alpha:.2g})")
    return None
