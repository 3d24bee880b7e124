"""What a new user met and left for the lead (session 44's fresh44 report): texts that disagreed with the rest of
the harness (``kgb check``'s parameters, the prompt's fp64 rtol, an interrupt's wording, time formats, the fork
server's warning on Ctrl-C, the case-axis glossary, ``--help``'s metavars)."""
from __future__ import annotations

from kernelgenbench.agent.selfcheck import format_check


def test_check_writes_case_parameters_as_every_other_command() -> None:
    """`kgb check` (and an agent's ./check) wrote `values=[25.0, -25.0, 0.0, 'inf', 'nan']` where show, eval, repro
    and summary write `values=[25.0, -25.0, 0.0, inf, nan]`."""
    rec = {"status": "failed", "failure_class": "wrong_result", "cases_passed": 0, "cases_total": 4,
           "first_failure": {"case_id": "smoke/0", "message": "x",
                             "case": {"shape": [2, 3], "dtype": "fp32", "values": [25.0, -25.0, 0.0, "inf", "nan"]}}}
    text, code = format_check(rec, "smoke", "aten__mish.py", "interpreter")
    assert code == 1
    assert "first failing case: smoke/0 (shape=[2, 3], dtype=fp32, values=[25.0, -25.0, 0.0, inf, nan])\n" in text
    assert "'inf'" not in text and "'nan'" not in text
