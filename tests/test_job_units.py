"""Units of the verifier's case bookkeeping (run/job.py): when a no-op would pass a case."""
from __future__ import annotations

import torch

from kernelgenbench.run.job import _all_outputs_empty, _trivial
from kernelgenbench.suite.spec import Call, Expected, Tolerance


def _axpy_like(y: torch.Tensor, delta: torch.Tensor) -> tuple[list[Expected], Call]:
    exp = Expected("arg.1", (y + delta).clone(), Tolerance(), region=torch.ones(y.numel(), dtype=torch.bool))
    return [exp], Call([torch.zeros_like(y), y.clone()], written=(1,))


def test_a_change_below_the_tolerance_makes_the_case_trivial() -> None:
    y = torch.tensor([2.0, -3.0, 5.0])
    # fp32 rtol is 1.3e-6, atol 1e-4: a 1e-6 change is invisible, a 1e-2 change is not
    assert _trivial(*_axpy_like(y, torch.full_like(y, 1e-6)))
    assert not _trivial(*_axpy_like(y, torch.full_like(y, 1e-2)))


def test_exact_equality_is_trivial_and_a_custom_judge_never_is() -> None:
    y = torch.tensor([1.0, 2.0])
    exps, before = _axpy_like(y, torch.zeros_like(y))
    assert _trivial(exps, before)
    exps[0].check = lambda actual, out: None
    assert not _trivial(exps, before)


def test_platform_scale_widens_the_no_op_test() -> None:
    y = torch.tensor([1.0])
    exps, before = _axpy_like(y, torch.tensor([3e-4]))  # beyond atol 1e-4 (+ rtol), within 10x of it
    assert not _trivial(exps, before, 1.0)
    assert _trivial(exps, before, 10.0)


def test_empty_outputs() -> None:
    assert _all_outputs_empty([Expected("return", torch.empty(0, 3), Tolerance())])
    assert not _all_outputs_empty([Expected("return", torch.empty(1, 3), Tolerance())])
    assert not _all_outputs_empty([Expected("return", None, Tolerance(), alias="arg.0")])


# -- L2: the schedule of replays (run/job.py ghost_schedule) -----------------------------------------

def test_ghost_schedule_keeps_cases_in_order_and_replays_after_their_case() -> None:
    import random

    from kernelgenbench.run.job import ghost_schedule

    idx = [0, 2, 3, 5, 7]
    for seed in range(50):
        sched = ghost_schedule(idx, {0, 3, 7}, random.Random(seed), reruns=2)
        assert [i for k, i in sched if k == "case"] == idx
        assert sorted(i for k, i in sched if k == "ghost") == [0, 3, 7]
        assert sorted(i for k, i in sched if k == "rerun") == [0, 0, 3, 3, 7, 7]
        pos = {(k, i): n for n, (k, i) in enumerate(sched) if k == "case"}
        for n, (k, i) in enumerate(sched):
            if k != "case":
                assert n > pos[("case", i)], (seed, sched)


def test_ghost_schedule_puts_the_replay_at_a_random_rank_among_the_later_runs() -> None:
    """Of a replayed case's later runs (re-runs and the replay), the replay is at each rank about
    equally often, and at many different call numbers: neither a call count nor the number of times
    the inputs were seen tells the replay apart."""
    import random
    from collections import Counter

    from kernelgenbench.run.job import ghost_schedule

    rng = random.Random(1234)
    ranks: Counter[int] = Counter()
    calls: Counter[int] = Counter()
    for _ in range(3000):
        sched = ghost_schedule(list(range(4)), {1}, rng, reruns=1)
        later = [k for k, i in sched if i == 1 and k != "case"]
        ranks[later.index("ghost")] += 1
        calls[sched.index(("ghost", 1))] += 1
    assert set(ranks) == {0, 1} and abs(ranks[0] - 1500) < 150, ranks
    assert len(calls) >= 4, calls


def test_ghost_schedule_without_replays_is_the_grid_order() -> None:
    import random

    from kernelgenbench.run.job import ghost_schedule

    assert ghost_schedule([4, 1, 9], set(), random.Random(0)) == [("case", 4), ("case", 1), ("case", 9)]


def test_divergence_is_described_in_words() -> None:
    from kernelgenbench.run.job import _divergence

    assert _divergence(None) is None
    assert _divergence({"divergence": None, "unused_reads": 0, "unused_launches": 0}) is None
    text = _divergence({"divergence": {"stream": "reads", "index": 2,
                                       "replay": {"kind": "item", "shape": [], "dtype": "torch.int32"},
                                       "normal": {"kind": "item", "shape": [1], "dtype": "torch.int32"}}})
    assert text is not None and "host read #2" in text and "[1]" in text
    text = _divergence({"divergence": {"stream": "launches", "index": 0, "replay": {"kernel": "_k"},
                                       "normal": None}})
    assert text is not None and "launch of _k" in text and "no more" in text
    assert "fewer" in str(_divergence({"divergence": None, "unused_reads": 1, "unused_launches": 0}))
