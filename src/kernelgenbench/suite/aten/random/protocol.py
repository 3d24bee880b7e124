"""The four-run protocol of a stochastic case (package docstring), run in the sandbox child (each call made
by ``sandbox/drive.py``): :class:`RandomOperator`, the row class of the random family."""
from __future__ import annotations

from typing import Any, Callable

import torch

from ...spec import Call, Candidate, GeneratorSeed, bind_generators
from ..family import AtenOperator, resolve_api

RUNS = ("run A (new generator, seed s)", "run B (the same generator, second call)",
        "run C (new generator, seed s again)", "run D (new generator, another seed)")


def other_seed(seed: int) -> int:
    """The second seed of a case (run D): a fixed bijective scramble of ``seed``, never equal to it."""
    s = (seed * 0x5851F42D4C957F2D + 0x14057B7EF767814F) % (1 << 62)
    return s + 1 if s == seed else s


# ------------------------------------------------------------------------------------------- operator
def _device_of(call: Call) -> torch.device:
    for a in [*call.args, *call.kwargs.values()]:
        if isinstance(a, torch.Tensor):
            return a.device
    return torch.device("cpu")


class RandomOperator(AtenOperator):
    """A row of the random family: an :class:`AtenOperator` whose stochastic cases run the four-run
    protocol of the package docstring and are judged by a :class:`.judge.RandomJudge`.

    Args (beyond :class:`AtenOperator`'s):
        stochastic: ``stochastic(call) -> bool``: whether the call samples (rrelu: ``training``);
            deterministic calls run once and are compared by value.
        tolerance_text: the row's judgement in words (``kgb show``, prompts).
    """

    def __init__(self, name: str, *, stochastic: Callable[[Call], bool] = lambda c: True,
                 tolerance_text: str = "", **kw: Any) -> None:
        super().__init__(name, **kw)
        self.stochastic = stochastic
        self.tolerance_text = tolerance_text
        self._timing_generators: dict[GeneratorSeed, Any] = {}

    @property
    def allow_methods(self) -> frozenset[str]:
        """A one-element ``torch.randint(..., generator=g)`` may draw a seed (package docstring)."""
        return super().allow_methods | {"torch.randint"}

    @property
    def allow_trace(self) -> frozenset[str]:
        """``randint`` (its drawn values budgeted by ``verify.profile.RANDOM_DRAW_BUDGET``)."""
        return super().allow_trace | {"randint", "random_draw"}

    def _bound(self, call: Call, bind: Callable[[GeneratorSeed], Any]) -> Call:
        return Call(bind_generators(call.args, bind), bind_generators(call.kwargs, bind), call.written,
                    api=call.api, needs_launch=call.needs_launch)

    def _one(self, candidate: Candidate, call: Call, bind: Callable[[GeneratorSeed], Any]) -> tuple:
        ret = candidate(self._bound(call, bind))
        return (ret, *(call.get(s) for s in call.written))

    def drive(self, call: Call, candidate: Candidate) -> Any:
        """Deterministic calls: one call with fresh generators. Stochastic calls: runs A-D (package
        docstring), returned as a tuple of four runs ``(ret, *written)``."""
        dev = _device_of(call)
        if not self.stochastic(call):
            return candidate(self._bound(call, lambda m: m.materialize(dev)))
        spares = [call.clone() for _ in range(3)]
        made: dict[GeneratorSeed, Any] = {}

        def fresh(m: GeneratorSeed) -> Any:
            made[m] = m.materialize(dev)
            return made[m]

        runs = [self._one(candidate, call, fresh)]
        runs.append(self._one(candidate, spares[0], lambda m: made[m]))
        runs.append(self._one(candidate, spares[1], lambda m: m.materialize(dev)))
        runs.append(self._one(candidate, spares[2], lambda m: m.materialize(dev, other_seed(m.seed))))
        return tuple(runs)

    def _cached(self, dev: torch.device) -> Callable[[GeneratorSeed], Any]:
        def bind(m: GeneratorSeed) -> Any:
            if m not in self._timing_generators:
                self._timing_generators[m] = m.materialize(dev)
            return self._timing_generators[m]
        return bind

    def drive_timed(self, call: Call, candidate: Candidate) -> Any:
        """One call; the generator of each input set is made once and reused (it advances)."""
        bind = self._cached(_device_of(call))
        if not self.stochastic(call):
            return candidate(self._bound(call, bind))
        return (self._one(candidate, call, bind),)

    def baseline(self, call: Call, platform: Any) -> tuple[Callable[[Call], Any], str]:
        api = resolve_api(str(call.api))

        def run(c: Call) -> Any:
            b = self._bound(c, self._cached(_device_of(c)))
            return api(*b.args, **b.kwargs)

        return run, f"ATen {call.api} (native, same device)"
