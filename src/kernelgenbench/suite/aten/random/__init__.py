"""The random family (aten.md §8: ``bernoulli``, ``exponential_``, ``poisson``, ``rrelu_with_noise``),
judged by statistics and invariants, never by matching PyTorch's random stream (aten.md §3, §6.4, §6b.6).

Upstream compares the candidate's samples with PyTorch's elementwise, which demands a bit-exact copy of
PyTorch's Philox/curand stream; no Triton kernel can pass that. Each row here replaces it with the
section's "Ours (statistical)" tolerance, made rigorous: every statistical test has a stated false-failure
probability, derived below, and every invariant is exact.

Generators
----------
A case passes ``generator=`` (or, where upstream reads the default generator, nothing) as a
:class:`~kernelgenbench.suite.spec.GeneratorSeed` marker: a ``torch.Generator`` cannot travel to the
sandbox child, the marker can. The child turns it into ``torch.Generator(device).manual_seed(seed)`` right
before the call (a ``default`` marker seeds the device's default generator and passes ``None``).

The four runs of a stochastic case (:meth:`RandomOperator.drive`, in the child)
-------------------------------------------------------------------------------
Each on a fresh copy of the inputs as the verifier built them:

* **A** a new generator seeded ``s`` (on the case's own arguments, so the verifier's usual checks of
  unchanged inputs apply to it);
* **B** the *same* generator object again (PyTorch's generators advance: a second call draws new numbers);
* **C** a new generator seeded ``s`` again;
* **D** a new generator seeded ``s' != s``.

A timed repetition (:meth:`RandomOperator.drive_timed`) is one call; its generator is made once per input
set and reused across repetitions (it advances, as upstream's timing loop does), and the judged timed
repetition gets the single-run checks below.

Judgement of one stochastic case (:class:`RandomJudge`)
-------------------------------------------------------
Exact checks (no false failures): every run returns tensors of the right dtype and shape (the out= and
in-place forms return their output argument itself); memory outside a written view is untouched; every
value lies in the law's support (Bernoulli: 0 or 1, and exactly q where q is 0 or 1; exponential: finite
and > 0; Poisson: a non-negative integer, 0 where the rate is 0; rrelu: noise 1 and out = x where x > 0,
noise within [lower, upper] and out = x * noise where x <= 0); C reproduces A bit for bit (same seed, same
samples); and A != B, A != D wherever the law makes identical samples less likely than 1e-9 (computed from
the case: the product over elements of the probability that two independent draws coincide).

Statistical tests, each at level ``a = ALPHA / 10`` (Bonferroni over the 10 tests of a case, so a correct
sampler fails a case with probability at most ``ALPHA = 1e-6``; a judged timed repetition runs 4 of them,
``<= 4e-7``; bernoulli's full tier, 90 cases all timed with two judged repetitions each, therefore has a
false-failure probability below 1.7e-4, the other rows less). ``x`` are the samples of a run, ``n`` their
count; ``U`` their *randomised probability-integral transform*: ``U = F(x-) + V * P(X = x)`` with ``F``
the law's CDF (of the value *rounded to the output dtype*, so rounding is part of the law) and ``V``
uniform draws of the verifier's own (seeded per case). For a correct sampler the ``U`` are exactly
i.i.d. uniform on (0, 1), whatever the law and however the elements' parameters vary.

1. mean (runs A and B): Bernstein's inequality for a sum of independent zero-mean terms bounded by
   ``b`` with total variance ``V``: ``P(|S| >= t) <= 2 exp(-t^2 / (2 (V + b t / 3)))``, solved for
   ``t`` at ``a``. Bernoulli: ``S = sum(x - q)``, ``b = 1``, ``V = sum q(1-q)``. Poisson:
   ``S = sum(x - lambda)``, Bennett/Bernstein with ``b = 1``, ``V = sum lambda`` (Poisson sums are
   sub-Poissonian). rrelu noise: ``S = sum(r - (l+u)/2)``, ``b = (u-l)/2``, ``V = n (u-l)^2 / 12``.
   Exponential: ``sum(lambda x)`` is Gamma(n, 1); Chernoff's bounds
   ``exp(-n (d - ln(1+d)))`` (upper) and ``exp(-n (-d - ln(1-d)))`` (lower), each solved at ``a/2``.
2. distribution (A and B): the Dvoretzky-Kiefer-Wolfowitz-Massart inequality
   ``P(sup_t |F_n(t) - t| > e) <= 2 exp(-2 n e^2)`` on ``U``, ``e = sqrt(ln(2/a) / (2n))``. This is
   the KS-type check of the spec (and subsumes its "fraction above 1/lambda" and variance checks).
3. independence of neighbours (A and B): ``sum_j (U_2j - 1/2)(U_2j+1 - 1/2)`` over disjoint pairs
   (terms bounded by 1/4, variance 1/144 each), Bernstein at ``a``: a kernel that reuses one random
   number for two adjacent elements fails.
4. successive calls are independent: ``sum_i (U^A_i - 1/2)(U^B_i - 1/2)``, Bernstein at ``a``: a
   generator that does not advance fails.
5. seeds matter: the same statistic for A and D: a kernel that ignores the seed fails. A kernel that
   ignores *part* of it fails only when its two runs collide: with ``b`` seed bits used, A and D share
   a stream with probability ``2^-b`` (red-team: ``b = 10`` passed). No test of one case's few runs can
   see low seed entropy; it is a known limit (the draws of one job are not compared across cases).
6. long-range dependence (A, B and D concatenated, one test): tests 3-5 pair only neighbours and equal
   positions, so a sampler repeating its first half (period ``n/2``), copying a block, reusing a weak
   generator's uniforms, or writing a run reversed would pass them. :func:`copy_test` is a likelihood-ratio
   test against a mixture ``Q`` of "copy" laws (a code, in the sense of the no-hypercompression
   inequality): element ``i`` copies element ``j < i`` (``j = i - p`` for any lag ``p``, or ``j = s - i``
   for any mirror centre ``s``) over one segment, by equal values, by inverting the same uniform, or by
   inverting its mirror image ``1 - u``. ``Q`` is a probability on samples, so ``E[Q(X)/P(X)] <= 1`` under
   the sampler's law ``P`` and ``P(log2 Q(X)/P(X) >= t) <= 2^-t`` (Markov). Fresh elements are drawn from
   ``P`` itself in ``Q``, so they add exactly 0 and only a claimed copy is priced, against
   ``R = P_law(cell) + 2 CDF_SLACK`` (an upper bound of the cell probability of any sampler within the
   distribution test's allowance). The level, the choice among ``< 9 n`` (rule, direction, lag) and the
   segment's two ends are charged in bits (:func:`copy_threshold`: 36 bits for 3 x 2 elements, 69 for
   3 x 4096, 87 for 3 x 512 x 512); the candidate lags may be chosen from the data (FFT correlation of the
   cells' midpoints, hashed repeats of values), since the bound holds for each of them. A copy is caught
   once it carries that many bits (~90 Bernoulli(1/2) elements, ~10 fp32 exponentials). Not caught here: a
   permutation of another run (a mixture over all of them costs ``log2 n!`` bits, more than such a copy
   carries; test 7 takes them) and a weak generator whose streams for the three runs do not overlap.
7. one run a function of another (:func:`cross_run_test`; pairs A-B, A-D, B-D; one test): tests 4-6 see
   equal positions and single-lag segments only, so run B = run A with neighbours swapped (or reversed in
   short blocks, or shuffled) passes them. An average of e-values, each with ``P(E >= 1/a') <= a'``:
   (i) the *multiset test* (:func:`multiset_bits`): a permutation keeps the counts of every value class;
   under the null (the runs independent, each position with one law in both, whatever that law, so no
   slack is needed) ``(x_i, y_i)`` is exchangeable, the orientations of the pairs are fair coins given the
   unordered pairs, and the count differences of the classes joined to one root class are independent
   sums of fair signs: a product of their point-probability ratios is an e-value; its block-count
   components (:func:`block_count_bits`) apply the same to the count of the most frequent value in each
   aligned block of 64, 512 or 4096 positions, which a permutation inside such blocks keeps. (ii) the *local copy
   test* (:func:`local_copy_bits`): a likelihood ratio, as in test 6, against "each element copies one of
   another run within +-w positions" (w = 1, 4, 16; by value, uniform or mirrored uniform; a per-element
   mixture with the fresh law). (iii) the *shared-values test* (:func:`shared_values_bits`): values seen
   exactly twice in the two runs together, at two positions, lie one in each run with probability 1/2
   under (i)'s null, independently over a forest of them (a product of fair-coin ratios); a run that holds
   a part of another's values (fp32: where a value seen twice is a coincidence) has them all split. 21
   multiset (12 value-class, 9 block-count), 9 shared-values and 54 local components, a third of the weight
   per family: a component fails the case at ``log2(63/a)``, ``log2(27/a)`` or ``log2(162/a)`` bits. Per
   law: exponential and uniform (rrelu): any permutation of another run (from ~500 samples), runs sharing a
   part of their fp32 values (rrelu's slopes moved between x <= 0 and x > 0) and any local copy; Poisson:
   local copies, permutations where the rates give many values (rate 4: yes; rate 0.5: only inside aligned
   blocks); Bernoulli: local copies (also ``1 - x``, by the mirrored rule) and permutations inside aligned
   blocks of up to 4096 positions (from about 40 blocks of 64: ``i ^ 32`` on 64 x 64 elements earns ~160
   bits); a permutation across the whole run keeps just its count, which an independent run matches with
   probability ~``1/sqrt(n)``, so pieces moved across block boundaries, farther than 16 positions and
   shorter than test 6 needs, are not caught.

Allowances for arithmetic: a correct fp32 sampler is not an ideal one. Stated slacks cover it: the
distribution test allows ``CDF_SLACK = 1e-3`` beyond ``e`` (an fp32 transform moves a fraction ~1e-4 of
fp16 samples across a rounding boundary; uniform quantisation is ~1e-7), and the long-range test lets a
sampler give each cell ``2 * CDF_SLACK`` more probability than the law; the mean tests allow
``n * 2^-22`` (Bernoulli: 24-bit uniforms), ``n * (eps(dtype)/2 + 1e-4)`` (exponential: rounding of each
sample to the dtype), ``1e-4 n`` (Poisson: fp32 inversion and rejection), ``n * eps(dtype) * upper``
(rrelu noise rounding); the pair tests ``1e-6 n``. PyTorch's own CUDA exponential maps ``u`` near 1 to
``eps(dtype)/2 / lambda`` (so that fp16/bf16 never round to 0): the exponential law merges every value
``<= eps(dtype)/lambda`` into one atom, so that guard (or any like it below that point) is not a fault.

A timed repetition is judged by the exact checks and tests 1-3 and 6 of its one run (at the same levels).
Deterministic calls (rrelu with ``training=False``) are ordinary cases: leaky ReLU with slope
``(lower+upper)/2``, compared with PyTorch on fp64 copies under aten.md §3's tolerance, ``noise``
untouched.

Seeds for the candidate (static scan and dispatch trace): an honest kernel takes its seed from the
generator: ``generator.initial_seed()`` with ``get_offset()``/``set_offset()`` (CUDA generators),
``get_state()``/``set_state()``, the default generator when ``generator`` is None
(``torch.cuda.default_generators[i]``, ``torch.default_generator``), or a one-element
``torch.randint(..., generator=generator)``. The rows allow ``torch.randint`` (L1) and up to
``verify.profile.RANDOM_DRAW_BUDGET`` values drawn with PyTorch per case (L3; like the host-read and copy
budgets it counts the whole case, i.e. the four calls of runs A-D); ``torch.bernoulli``,
``torch.poisson``, ``torch.rand*``, ``x.exponential_()`` and the like computing the samples are still
rejected (L1: not allowed or dispatch recursion; L3: a forbidden op or too many drawn values).

Layout
------
* :mod:`.stats`: the laws of the samples (support, CDF cells, mean test), the randomised PIT, Bernstein,
  DKW and Chernoff bounds, the distribution and pair-product tests (tests 1-5): reusable by any sampler;
* :mod:`.long_range`: the long-range (copy) test (test 6) and :class:`Cells`, the samples as it sees them;
* :mod:`.cross_run`: the cross-run (function-of) test (test 7);
* :mod:`.protocol`: :class:`RandomOperator`, the row class, which runs the four runs in the child;
* :mod:`.judge`: :class:`RandomJudge`, the verifier's judgement of a case, and the tests' levels;
* :mod:`.operators`: the four rows and their builders, and :data:`OPERATORS` (the family the registry reads).
"""
from __future__ import annotations

from .cross_run import (
                        XR_BLOCKS,
                        XR_EXACT_STEP,
                        XR_FRESH,
                        XR_MULTISET,
                        XR_PAIRS,
                        XR_THETAS,
                        XR_WINDOWS,
                        block_count_bits,
                        cross_run_test,
                        local_copy_bits,
                        multiset_bits,
                        shared_values_bits,
)
from .judge import A_TEST, ALPHA, N_TESTS, P_IDENTICAL, RandomJudge, random_expected
from .long_range import LR_ATOM_SLACK, LR_CANDIDATES, LR_EPS, LR_MODES, Cells, copy_test, copy_threshold
from .operators import BERNOULLI, EXPONENTIAL_, OPERATORS, POISSON, RRELU_WITH_NOISE, SEED_NOTE
from .protocol import RUNS, RandomOperator, other_seed
from .stats import (
                        CDF_SLACK,
                        BernoulliLaw,
                        ExponentialLaw,
                        Law,
                        PoissonLaw,
                        UniformLaw,
                        bernstein,
                        distribution_test,
                        dkw,
                        gamma_mean_bounds,
                        product_test,
                        randomized_pit,
)

__all__ = [
    "OPERATORS", "BERNOULLI", "EXPONENTIAL_", "POISSON", "RRELU_WITH_NOISE", "SEED_NOTE", "RUNS", "RandomOperator",
    "other_seed", "ALPHA", "A_TEST", "N_TESTS", "P_IDENTICAL", "RandomJudge", "random_expected", "CDF_SLACK",
    "BernoulliLaw", "ExponentialLaw", "Law", "PoissonLaw", "UniformLaw", "bernstein", "distribution_test", "dkw",
    "gamma_mean_bounds", "product_test", "randomized_pit", "LR_ATOM_SLACK", "LR_CANDIDATES", "LR_EPS", "LR_MODES",
    "Cells", "copy_test", "copy_threshold", "XR_BLOCKS", "XR_EXACT_STEP", "XR_FRESH", "XR_MULTISET", "XR_PAIRS",
    "XR_THETAS", "XR_WINDOWS", "block_count_bits", "cross_run_test", "local_copy_bits", "multiset_bits",
    "shared_values_bits",
]
