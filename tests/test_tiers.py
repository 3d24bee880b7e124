"""Tier selections (issue 12, class 7): ``all`` is the union of the smoke, full and held-out tiers, and
a comma list selects several tiers; a case of a selection is the same case as in its own tier."""
from __future__ import annotations

import pytest

from kernelgenbench.suite.registry import all_operators, get_operator
from kernelgenbench.suite.spec import (ALL_TIERS, SHOWN_TIERS, TIERS, VERDICT_TIER, tier_label, tier_name,
                                       tier_parts, verdict_scope)

#: a few operators of each source: pointwise, broadcasting binary, matmul, random, nothing-to-compute
SAMPLE = ["aten::add", "aten::neg", "aten::mm", "aten::bernoulli", "aten::t", "vllm::rms_norm", "vllm::topk_softmax",
          "vllm::fused_add_rms_norm", "cublas::cublasSgemm_v2", "cublas::cublasSaxpy_v2", "cublas::cublasStrsv_v2"]


def _key(c) -> tuple:
    return (c.id, c.tier, c.tier_index, c.params, c.seed, c.timed)


@pytest.mark.parametrize("op_id", SAMPLE)
def test_all_is_the_union_of_the_three_tiers(op_id: str) -> None:
    op = get_operator(op_id)
    own = {t: op.cases(t) for t in TIERS}
    union = op.cases(ALL_TIERS)
    assert len(union) == sum(len(v) for v in own.values())
    assert len({c.id for c in union}) == len(union), "case ids repeat in the union"
    # every case of the union is the same case as in its own tier: id, parameters, seed, timed
    assert [_key(c) for c in union] == [_key(c) for t in TIERS for c in own[t]]
    # the union numbers its cases (the verifier keys a job's runs by index); the id keeps the tier's index
    assert [c.index for c in union] == list(range(len(union)))
    assert {c.id for c in union if c.timed} == {c.id for c in own["full"] if c.timed}
    assert not any(c.timed for c in union if c.tier != "full")


def test_every_operator_unions_without_clashes() -> None:
    for op in all_operators():
        union = op.cases(ALL_TIERS)
        n = {t: len(op.grid(t)) for t in TIERS}
        assert len(union) == sum(n.values()), op.id
        assert len({c.id for c in union}) == len(union), op.id
        assert len({c.seed for c in union}) == len(union), f"{op.id}: two cases of the union draw the same inputs"
        assert sum(c.timed for c in union) == sum(c.timed for c in op.cases("full")), op.id


def test_a_single_tier_is_unchanged() -> None:
    op = get_operator("vllm::rms_norm")
    for t in TIERS:
        cases = op.cases(t)
        assert [c.id for c in cases] == [f"{t}/{i}" for i in range(len(op.grid(t)))]
        assert all(c.index == c.tier_index for c in cases)


def test_comma_lists_select_tiers_in_tier_order() -> None:
    op = get_operator("aten::neg")
    a, b = op.cases("heldout,smoke"), op.cases("smoke, heldout")
    assert [_key(c) for c in a] == [_key(c) for c in b] == [_key(c) for c in op.cases("smoke") + op.cases("heldout")]
    assert [_key(c) for c in op.cases("smoke,full,heldout")] == [_key(c) for c in op.cases(ALL_TIERS)]
    assert tier_parts("full,smoke,full") == ("smoke", "full")
    assert tier_name("heldout, smoke") == "smoke,heldout"
    assert tier_name("heldout,full,smoke") == tier_name("all") == "all"
    assert tier_name("full") == "full"
    for bad in ("", "bogus", "smoke,", "smoke,bogus", "ALL"):
        with pytest.raises(ValueError, match="unknown tier"):
            op.cases(bad)


def test_labels_say_what_a_verdict_covers() -> None:
    assert tier_label("all") == "all (smoke + full + heldout)"
    assert tier_label("heldout,smoke") == "smoke + heldout"
    assert "every tier" in verdict_scope("all")
    assert "smoke tier only" in verdict_scope("smoke") and "--tier all" in verdict_scope("smoke")
    assert "not full" in verdict_scope("smoke,heldout")


def test_the_defaults() -> None:
    assert VERDICT_TIER == ALL_TIERS
    assert "heldout" not in SHOWN_TIERS and set(SHOWN_TIERS) < set(TIERS)
