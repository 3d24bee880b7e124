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


def test_vllm_speedups_are_also_reported_per_baseline_kind() -> None:
    """A speedup against eager PyTorch and one against the compiled reference are different measures: a source
    that mixes them reports each kind's geomean beside the pooled one (and the console shows a row per kind)."""
    from kernelgenbench.tables import _summary_table

    def v(op, speedup, label):
        return {**_rec(op, "vllm", "passed", speedup), "baseline": label}
    recs = [v("vllm::a", 2.0, "native-compiled (the native PyTorch reference under torch.compile, ...)"),
            v("vllm::b", 8.0, "native-compiled (the native PyTorch reference under torch.compile, ...)"),
            v("vllm::c", 300.0, "native-eager (the native PyTorch reference, eager); torch.compile captured no graph"),
            _rec("aten::a", "aten", "passed", 1.5)]
    s = summarize(recs)
    kinds = s["by_source"]["vllm"]["by_baseline"]
    assert sorted(kinds) == ["native-compiled", "native-eager"]
    assert math.isclose(kinds["native-compiled"]["geomean_speedup"], 4.0) and kinds["native-compiled"][
        "timed_operators"] == 2
    assert math.isclose(kinds["native-eager"]["geomean_speedup"], 300.0)
    assert math.isclose(s["by_source"]["vllm"]["geomean_speedup"], (2 * 8 * 300) ** (1 / 3))
    assert s["by_source"]["aten"]["by_baseline"] == {}
    from rich.console import Console
    c = Console(width=200, record=True)
    c.print(_summary_table(s, "t"))
    text = c.export_text()
    assert "vs native-compiled" in text and "4.000x" in text and "vs native-eager" in text and "300.000x" in text
