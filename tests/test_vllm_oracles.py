"""The vLLM oracles pass the smoke tier through the whole pipeline (L1, sandbox, L2 ghost replay, L3) on the CPU
interpreter, and the cases the interpreter cannot judge (bf16, fp8) come out unsupported, never passed or failed
(issue 14 item 5); an operator every smoke case of which converts to or from fp8 is unsupported as a whole.
tests/test_oracles.py runs every operator; this runs the vLLM source alone, in about a minute."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kernelgenbench.suite.registry import select

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_vllm_oracles_pass_smoke(tmp_path: Path) -> None:
    import kernelgenbench

    ops = {o.id: o for o in select(source="vllm")}
    run = kernelgenbench.evaluate(ROOT / "solutions", source="vllm", tier="smoke", platform="interpreter", jobs=2,
                                  runs_root=tmp_path, name="vllm-oracles")
    by_op = {r["op"]: r for r in run.written}
    assert set(by_op) == set(ops)
    from kernelgenbench.platforms import PROFILES

    interp = PROFILES["interpreter"]
    for op_id, r in sorted(by_op.items()):
        cases = {c.id: c for c in ops[op_id].cases("smoke")}
        judged = [c for c in r["cases"] if c["status"] != "unsupported"]
        if all(interp.unsupported_reason(ops[op_id].tensor_dtypes(c.params)) for c in cases.values()):
            # every case converts to or from fp8 (convert_fp8, cutlass_pack_scale_fp8): judged on GPUs only
            assert r["status"] == "unsupported" and not judged, (op_id, r["status"])
        else:
            assert r["status"] == "passed", (op_id, r["failure_class"], r["first_failure"])
            ah = r["anti_hack"]
            assert ah["L1"]["ok"] and ah["L3"]["ok"] and ah["L2"]["ok"] and ah["L2"]["checked"] >= 1, (op_id, ah)
            assert judged and all(c["status"] == "passed" for c in judged), op_id
        for c in r["cases"]:
            dts = ops[op_id].tensor_dtypes(cases[c["id"]].params)
            cannot = interp.unsupported_reason(dts)
            # exactly the cases computing in a dtype the interpreter cannot judge are unsupported, saying why
            assert (c["status"] == "unsupported") == (cannot is not None), (op_id, c["id"], dts, c["status"])
            if cannot:
                assert any(str(d).replace("torch.", "") in c["message"] for d in dts
                           if d in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2)), (op_id, c)
