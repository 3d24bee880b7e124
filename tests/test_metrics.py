"""Aggregate metrics: geomean, IQM, two-level summary, latest-record selection."""
from __future__ import annotations

import math

from kernelgenbench.metrics import geomean, iqm, latest_records, summarize


def test_geomean() -> None:
    assert abs(geomean([2.0, 8.0]) - 4.0) < 1e-12
    assert geomean([]) is None and geomean([None, 0.0]) is None


def test_iqm_drops_the_outer_quarters() -> None:
    assert iqm([1, 2, 3, 4]) == 2.5
    assert iqm([1, 2, 3, 4, 5, 6, 7, 1000]) == 4.5
    assert abs(iqm([1, 2, 3, 4, 5]) - 3.0) < 1e-12


def _rec(op, source, status, speedup=None, cls=None, label="s"):
    return {"op": op, "source": source, "status": status, "speedup": speedup, "failure_class": cls,
            "label": label, "tier": "full", "platform": "cuda"}


def test_two_level_summary_over_solved_operators() -> None:
    recs = [_rec("aten::a", "aten", "passed", 2.0), _rec("aten::b", "aten", "passed", 0.5),
            _rec("aten::c", "aten", "failed", None, "wrong_result"), _rec("vllm::d", "vllm", "passed", 4.0),
            _rec("vllm::e", "vllm", "unsupported")]
    s = summarize(recs)
    a = s["by_source"]["aten"]
    assert (a["operators"], a["passed"]) == (3, 2) and abs(a["accuracy"] - 2 / 3) < 1e-12
    assert abs(a["geomean_speedup"] - 1.0) < 1e-12 and a["failure_classes"] == {"wrong_result": 1}
    o = s["overall"]
    assert abs(o["geomean_speedup"] - 4 ** (1 / 3)) < 1e-12 and o["unsupported"] == 1 and o["operators"] == 4
    assert math.isclose(o["median_speedup"], 2.0)


def test_latest_record_wins() -> None:
    recs = [_rec("aten::a", "aten", "failed", cls="timeout"), _rec("aten::a", "aten", "passed", 1.5)]
    assert [r["status"] for r in latest_records(recs)] == ["passed"]
