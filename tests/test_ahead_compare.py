"""bench/ahead_compare.py: the per-operator medians of where a timed case's time went, from a run's records (a
sharded job's shard records where the run has them, so that a run cut mid-way counts its finished shards)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("ahead_compare", ROOT / "bench" / "ahead_compare.py")
ac = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ac)  # type: ignore[union-attr]


def _rec(op: str, harness: list[dict[str, float]], ahead_s: float, timing_s: float, **kw) -> dict:
    return {"op": op, "cases": [{"id": f"full/{i}", "harness_ms": h} for i, h in enumerate(harness)] + [{"id": "x"}],
            "time_s": {"ahead_s": ahead_s, "timing_s": timing_s}, **kw}


def test_rows_take_shard_records_over_the_merged_job_and_give_medians_in_seconds(tmp_path) -> None:
    run = tmp_path / "ahead"
    run.mkdir()
    shards = [_rec("vllm::rms_norm", [{"ahead": 4000.0, "ahead_baseline": 3900.0, "made": 30.0, "baseline": 0.0,
                                       "command": 200.0}], 4.0, 0.5, shard=[0, 2]),
              _rec("vllm::rms_norm", [{"ahead": 2000.0, "ahead_baseline": 1900.0, "made": 10.0, "baseline": 0.0,
                                       "command": 400.0},
                                      {"ahead": 6000.0, "ahead_baseline": 5900.0, "made": 20.0, "baseline": 0.0,
                                       "command": 300.0}], 8.0, 0.7, shard=[1, 2])]
    merged = [_rec("vllm::rms_norm", [{"command": 1e6}] * 3, 99.0, 99.0),
              _rec("vllm::moe_sum", [{"made": 4100.0, "baseline": 4000.0, "command": 150.0}], 0.0, 4.3)]
    (run / "shards.jsonl").write_text("".join(json.dumps(r) + "\n" for r in shards))
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in merged))
    assert ac.rows(run) == [("vllm::moe_sum", 1, 0.0, 0.0, 4.1, 4.0, 0.15, 0.0, 4.3),
                            ("vllm::rms_norm", 3, 4.0, 3.9, 0.02, 0.0, 0.3, 12.0, 1.2)]
