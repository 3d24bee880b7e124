"""Every operator's row against what it generates: its case counts per tier (``Operator.counts``) and the
recursion aliases the L1 scan holds it to (``Operator.aliases``). One test over all rows; the family test
files test each family's own semantics."""
from __future__ import annotations

import pytest

from kernelgenbench.suite.registry import all_operators, defined_in
from kernelgenbench.suite.spec import Counts, Operator
from kernelgenbench.suite.tiers import TIERS
from kernelgenbench.verify.scan import scan_source

ROWS: dict[str, Operator] = {op.id: op for op in all_operators()}
#: Sources whose rows do not state their counts yet (their family modules are being restructured apart from
#: the ATen rows; their full-tier counts are checked against the spec in tests/test_spec.py meanwhile).
COUNTS_PENDING = {"vllm", "cublas"}


def test_every_aten_row_states_its_counts() -> None:
    missing = sorted(i for i, op in ROWS.items() if op.counts is None)
    assert all(ROWS[i].source in COUNTS_PENDING for i in missing), missing
    assert sum(op.source == "aten" for op in ROWS.values()) >= 110
    assert all(isinstance(op.counts, Counts) for op in ROWS.values() if op.source == "aten")


@pytest.mark.parametrize("op_id", sorted(i for i, op in ROWS.items() if op.counts is not None))
def test_counts_match_the_generated_cases(op_id: str) -> None:
    op = ROWS[op_id]
    cases = {tier: op.cases(tier) for tier in TIERS}
    got = Counts(smoke=len(cases["smoke"]), full=len(cases["full"]), timed=sum(c.timed for c in cases["full"]),
                 heldout=len(cases["heldout"]))
    assert got == op.counts, f"{op_id} ({defined_in(op)}): the row states {op.counts}, its grids give {got}"
    assert [op.counts.of(t) for t in TIERS] == [len(cases[t]) for t in TIERS]
    assert not any(c.timed for c in cases["smoke"] + cases["heldout"]), "only full-tier cases are timed"
    assert op.counts.smoke >= 2 and op.counts.heldout >= 3 and op.counts.full >= op.counts.timed
    full_params = [c.params for c in cases["full"]]
    assert not any(c.params in full_params for c in cases["heldout"]), "a held-out case repeats a full-tier case"


def test_counts_reject_an_unknown_tier() -> None:
    with pytest.raises(KeyError, match="no case count for tier 'all'"):
        Counts(1, 2, 2, 3).of("all")


@pytest.mark.parametrize("op_id", sorted(i for i, op in ROWS.items() if op.aliases))
def test_every_alias_is_dispatch_recursion_and_only_through_the_row(op_id: str) -> None:
    op = ROWS[op_id]
    policy = op.scan_policy()
    assert policy["aliases"] == op.aliases
    # ``f`` stands for a wrapper the harness calls (a module-level function nothing names is not scanned: tp39)
    policy = {**policy, "entry_points": policy["entry_points"] | {"f"}}
    for alias in sorted(op.aliases):
        source = f"import torch\n\n\ndef f(x):\n    return x.{alias}()\n"
        assert "dispatch-recursion" in {f.rule for f in scan_source(source, **policy)}, (op_id, alias)
        if alias not in policy["own_ops"]:
            without = {**policy, "aliases": frozenset()}
            assert "dispatch-recursion" not in {f.rule for f in scan_source(source, **without)}, (op_id, alias)


def test_aliases_are_stated_where_pytorch_has_them() -> None:
    """A sample of aten.md §4 item 5's decompositions, to catch a row that lost its aliases."""
    names = {i: op.aliases | op.scan_policy()["own_ops"] for i, op in ROWS.items()}
    assert {"divide", "true_divide"} <= names["aten::div"]
    assert {"float", "half", "type_as"} <= names["aten::_to_copy"] and "float" in names["aten::to"]
    assert {"clone", "contiguous", "float"} <= names["aten::copy_"]
    assert {"softmax", "log_softmax"} <= names["aten::_softmax"]
    assert {"matmul", "linear"} <= names["aten::mm"] and "matmul" in names["aten::bmm"]
    assert "square" in names["aten::pow"] and "arccosh" in names["aten::acosh"]
    assert not ROWS["vllm::rms_norm"].aliases
