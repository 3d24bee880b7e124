"""GPU timing of one case, what the verifier and the sandbox share (DESIGN.md "Timing").

The timing protocol has two halves, split by the trust boundary rather than kept in one module: the
timed loop runs inside the untrusted sandbox child, beside the candidate (it must: the candidate runs
there): ``sandbox/timed_loop.py`` (its docstring gives the method); the verifier's half (the command,
the checks of what the loop reports, the speedups) is ``run/job.py`` (``Verifier._timing``, ``_time_one``,
``_sol``).

This module holds what both halves share: :data:`BLOCK`, :func:`timed_repetitions` and
:func:`timed_set_seed` (the child builds repetition ``k``'s inputs from that seed, the verifier rebuilds
the judged ones from it).
"""
from __future__ import annotations


#: Repetitions per block before the sides switch (time_case's default).
BLOCK = 10


def timed_repetitions(reps: int, block: int = BLOCK) -> int:
    """How many timed repetitions each side runs for ``reps`` requested: whole blocks, at least one."""
    return max(1, -(-reps // block)) * block


def timed_set_seed(base: int, k: int) -> int:
    """The generator seed of timed input set ``k`` of a case whose timing seed is ``base`` (a secret
    the verifier draws per case; it rebuilds the judged repetitions' inputs from the same seeds)."""
    return (int(base) + (k + 1) * 0x9E3779B97F4A7C15) % (1 << 63)
