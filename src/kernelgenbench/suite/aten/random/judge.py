"""The judge of a stochastic case (verifier side): exact checks of every run, then the statistical
tests at their levels (package docstring) (:class:`RandomJudge`, :func:`random_expected`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from ...compare import SlotResult
from ...spec import Call, Expected, GeneratorSeed, Tolerance, region_mask, storage_view
from .cross_run import cross_run_test
from .long_range import Cells, copy_test
from .protocol import RUNS
from .stats import Law, _bits, distribution_test, product_test, randomized_pit

#: Probability that a correct sampler fails one judged stochastic case (all its tests together).
ALPHA = 1e-6
#: Statistical tests per case (Bonferroni): mean, distribution and neighbours of runs A and B; A-B and A-D;
#: the long-range (copy) test of runs A, B and D together; the cross-run (function-of) test.
N_TESTS = 10
#: Level of each test.
A_TEST = ALPHA / N_TESTS
#: Only where two independent draws coincide with a probability below this are "different" asserted.
P_IDENTICAL = 1e-9


def _same_object(a: Any, b: Any) -> bool:
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
            and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
            and a.storage_offset() == b.storage_offset() and a.shape == b.shape and a.stride() == b.stride())


@dataclass
class RandomJudge:
    """The custom judge (:attr:`Expected.check`) of one stochastic case (package docstring).

    A run is the tuple ``(ret, *written)`` of one call (``written`` in :attr:`Call.written` order), as
    :meth:`.protocol.RandomOperator.drive` returns four of them (runs A-D) and ``drive_timed`` one.

    Attributes:
        law: the law of the samples.
        dtype, shape: of every returned or written tensor.
        sample: the run position whose tensor holds the samples.
        alias: the run position that ``ret`` must be (out= and in-place forms), or None.
        before: per run position >= 1: (the written tensor's whole storage before the call, the mask of
            the elements the call addresses), for the untouched-memory check.
        select: a flat bool mask of the sample elements the law describes (rrelu: x <= 0), or None.
        extra: ``extra(run) -> message | None``: further exact checks of one run (rrelu: out and noise).
        seed: seeds the verifier's own randomisation (``V``).
    """

    law: Law
    dtype: torch.dtype
    shape: tuple[int, ...]
    sample: int
    alias: int | None
    before: dict[int, tuple[torch.Tensor, torch.Tensor]]
    select: torch.Tensor | None
    extra: Callable[[tuple], str | None] | None
    seed: int
    n_written: int

    def __call__(self, actual: Any, outputs: dict[str, Any]) -> SlotResult:
        rule = f"statistical ({self.law.name}; false-failure <= {ALPHA:g} per case)"
        if not isinstance(actual, tuple) or len(actual) not in (1, 4):
            return SlotResult(False, f"return: expected the runs of the random-operator protocol, got "
                                     f"{type(actual).__name__}", rule=rule)
        names = RUNS if len(actual) == 4 else ("timed repetition",)
        xs = []
        for name, run in zip(names, actual):
            msg, x = self._run(run)
            if msg:
                return SlotResult(False, f"{name}: {msg}", rule=rule)
            xs.append(x)
        gen = torch.Generator().manual_seed(self.seed & ((1 << 63) - 1))
        if len(actual) == 4:
            a, b, c, d = actual
            for i, (ta, tc) in enumerate(zip(a, c)):
                if not torch.equal(_bits(ta.cpu()), _bits(tc.cpu())):
                    what = "the result" if i == 0 else f"written argument {i}"
                    return SlotResult(False, f"the same seed did not reproduce the samples: {what} of {RUNS[2]} "
                                             f"differs from {RUNS[0]}", rule=rule)
            if self.law.log_p_identical() < math.log(P_IDENTICAL):
                for other, name in ((xs[1], RUNS[1]), (xs[3], RUNS[3])):
                    if torch.equal(_bits(xs[0]), _bits(other)):
                        why = ("the generator did not advance" if other is xs[1]
                               else "the seed of the generator was ignored")
                        return SlotResult(False, f"{name} gave exactly the samples of {RUNS[0]} ({why}; the chance of "
                                                 f"that for a correct sampler is below {P_IDENTICAL:g})", rule=rule)
            us = [randomized_pit(self.law, x, gen) for x in (xs[0], xs[1], xs[3])]
            stat = [(RUNS[0], xs[0], us[0]), (RUNS[1], xs[1], us[1])]
        else:
            us = [randomized_pit(self.law, xs[0], gen)]
            stat = [(names[0], xs[0], us[0])]
        for name, x, u in stat:
            for msg in (self.law.mean_test(x, A_TEST), distribution_test(u, A_TEST),
                        product_test(u[0:-1:2][: u.numel() // 2], u[1::2][: u.numel() // 2], A_TEST,
                                     "neighbour test (disjoint adjacent pairs)")):
                if msg:
                    return SlotResult(False, f"{name}: {msg}", rule=rule)
        if len(actual) == 4:
            for other, name, why in ((us[1], RUNS[1], "successive calls must be independent"),
                                     (us[2], RUNS[3], "another seed must give independent samples")):
                msg = product_test(us[0], other, A_TEST, f"{RUNS[0]} vs {name} ({why})")
                if msg:
                    return SlotResult(False, msg, rule=rule)
            msg = (self.long_range([xs[0], xs[1], xs[3]], [RUNS[0], RUNS[1], RUNS[3]])
                   or self.cross_run([xs[0], xs[1], xs[3]], [RUNS[0], RUNS[1], RUNS[3]]))
        else:
            msg = self.long_range(xs, names)
        if msg:
            return SlotResult(False, msg, rule=rule)
        return SlotResult(True, rule=rule)

    def long_range(self, xs: Sequence[torch.Tensor], names: Sequence[str]) -> str | None:
        """:func:`copy_test` at level :data:`A_TEST` on the samples ``xs`` of several runs (as ``_run`` returns
        them), concatenated in the given order (runs A, B, D; or the one timed repetition)."""
        parts = [Cells.of(self.law, x, self.select) for x in xs]
        starts, lags, at = [], [], 0
        for part, name in zip(parts, names):
            starts.append((at, name))
            at += len(part)
        lags = [len(parts[0]) * k for k in range(1, len(parts))]
        return copy_test(Cells.cat(parts), A_TEST, starts, extra_lags=lags)

    def cross_run(self, xs: Sequence[torch.Tensor], names: Sequence[str]) -> str | None:
        """:func:`cross_run_test` at level :data:`A_TEST` on the samples of runs A, B and D (as ``_run`` returns
        them)."""
        return cross_run_test([(x, Cells.of(self.law, x, self.select)) for x in xs], A_TEST, names)

    def _run(self, run: Any) -> tuple[str | None, torch.Tensor | None]:
        if not isinstance(run, tuple) or len(run) != 1 + self.n_written:
            return "malformed run", None
        for i, t in enumerate(run):
            what = "the result" if i == 0 else f"written argument {i}"
            if not isinstance(t, torch.Tensor):
                return f"{what} is {type(t).__name__}, not a tensor", None
            if t.dtype != self.dtype:
                return f"{what}: dtype {t.dtype} != expected {self.dtype}", None
            if tuple(t.shape) != self.shape:
                return f"{what}: shape {tuple(t.shape)} != expected {self.shape}", None
        if self.alias is not None and not _same_object(run[0], run[self.alias]):
            return "the call must return its output argument itself", None
        for i, (before, region) in self.before.items():
            got = storage_view(run[i]).cpu()
            if got.numel() != before.numel():
                return f"written argument {i}: its storage changed size; outputs must be written in place", None
            outside = ~region
            if bool(outside.any()) and not torch.equal(_bits(got[outside]), _bits(before[outside])):
                return (f"written argument {i}: elements outside the written region were modified (padding and "
                        f"gaps must stay untouched)"), None
        if self.extra is not None:
            msg = self.extra(run)
            if msg:
                return msg, None
        x = run[self.sample].detach().cpu().reshape(-1)
        if self.select is not None:
            x = x[self.select]
        msg = self.law.support(x)
        return msg, x


def random_expected(call: Call, law: Law, *, sample: int, alias: int | None, dtype: torch.dtype,
                    shape: Sequence[int], select: torch.Tensor | None = None,
                    extra: Callable[[tuple], str | None] | None = None) -> list[Expected]:
    """The one :class:`Expected` of a stochastic case: the return slot judged by a :class:`RandomJudge`.

    Args:
        call: the case's inputs as given to the candidate (a clone; its markers give the seed).
        law, sample, alias, dtype, shape, select, extra: see :class:`RandomJudge`.
    """
    before = {}
    for pos, slot in enumerate(call.written, start=1):
        t = call.get(slot)
        before[pos] = (storage_view(t).detach().cpu().clone(), region_mask(t).cpu())
    marker = next((m for m in [*call.args, *call.kwargs.values()] if isinstance(m, GeneratorSeed)), None)
    seed = (marker.seed if marker else 0) ^ 0x2545F4914F6CDD1D
    judge = RandomJudge(law, dtype, tuple(int(s) for s in shape), sample, alias, before, select, extra, seed,
                        len(call.written))
    return [Expected("return", None, Tolerance(), check=judge)]
