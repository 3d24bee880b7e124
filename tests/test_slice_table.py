"""bench/slice_table.py, issue 11's slice table: speedups beside an earlier run, the spread, unrecorded operators."""
from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("slice_table", Path(__file__).resolve().parents[1] / "bench" /
                                               "slice_table.py")
slice_table = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(slice_table)


def _rec(op: str, speedup: float | None, cmd_ms: list[float], status: str = "passed") -> dict:
    cases = [{"id": f"full/{i}", "status": "passed", "harness_ms": {"command": ms}} for i, ms in enumerate(cmd_ms)]
    return {"op": op, "status": status, "speedup": speedup, "sol_pct": 12.5, "wall_s": 30.0, "cases": cases}


def test_the_table_compares_with_a_gzipped_earlier_run_and_names_what_is_missing(tmp_path, capsys) -> None:
    now = tmp_path / "results.jsonl"
    now.write_text(json.dumps(_rec("aten::mm", 1.10, [100.0, 300.0, 200.0])) + "\n")
    earlier = tmp_path / "earlier.jsonl.gz"
    with gzip.open(earlier, "wt") as f:
        f.write(json.dumps(_rec("aten::mm", 0.90, [])) + "\n" + json.dumps(_rec("aten::add", 1.0, [])) + "\n")
    rc = slice_table.main([str(now), str(earlier), "--ops", "aten::mm aten::add"])
    out = capsys.readouterr().out
    assert rc == 1  # aten::add is not recorded in this run yet
    row = next(line for line in out.splitlines() if line.startswith("aten::mm"))
    # spread |1.10 - 0.90| / 1.00 = 20%; harness median 200 ms per timed case
    assert "1.100x" in row and "0.900x" in row and "20.00%" in row and " 0.20 " in row and "3/3" in row
    assert "not recorded yet: aten::add" in out and "passed 1/2" in out


def test_every_operator_passed_is_exit_status_zero(tmp_path, capsys) -> None:
    now = tmp_path / "results.jsonl"
    now.write_text(json.dumps(_rec("aten::mm", 1.0, [50.0])) + "\n")
    assert slice_table.main([str(now), str(tmp_path / "absent.jsonl"), "--ops", "aten::mm"]) == 0
    assert "passed 1/1" in capsys.readouterr().out
