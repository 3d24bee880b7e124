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


def test_prompt_and_show_state_the_fp64_rtol_the_verdict_applies() -> None:
    """The prompt of cublasDgemv_v2 said "rtol by dtype (..., fp64 1e-05, ...)" and then, in its atol, "fp64 and
    complex128: ... with rtol 8*2^-53", which the verdict applies (suite/tolerance.py accumulation_rule). kgb show
    and the prompt now state each dtype's rtol through one function (stated_rtol)."""
    import torch

    from kernelgenbench.llm.prompt import build_prompt
    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.show import _tolerance_text
    from kernelgenbench.suite.registry import get_operator
    from kernelgenbench.suite.tolerance import RTOL_FP64_ACCUMULATION, accumulation_rule, stated_rtol

    # the value the verdict applies to an fp64 and a complex128 result under the accumulation rule
    for dt in (torch.float64, torch.complex128):
        tol, _ = accumulation_rule(dt, torch.ones(2, dtype=torch.float64), 4, 1)
        assert tol.rtol == RTOL_FP64_ACCUMULATION == 8 * 2.0 ** -53
    gemv = get_operator("cublas::cublasDgemv_v2")
    text = build_prompt(gemv, PROFILES["interpreter"]).text()
    assert ("rtol by dtype (fp16 0.001, bf16 0.016, fp32 1e-05, fp64 8*2^-53, c64 1.3e-06, c128 8*2^-53), atol = "
            "for fp16/bf16/fp32 results") in text
    assert "fp64 1e-05" not in text and "c128 1e-06" not in text
    assert "with rtol fp64 8*2^-53 (as below); atol" in _tolerance_text(gemv)
    assert stated_rtol(torch.float64, gemv.shown_atol) == "8*2^-53"
    # an operator without the accumulation rule keeps the dtype's rtol, in the prompt as in kgb show
    mish = get_operator("aten::mish")
    assert stated_rtol(torch.float64, mish.shown_atol) == "1e-5"
    assert "rtol by dtype (fp16 0.001, bf16 0.016, fp32 1e-05, fp64 1e-05, c64 1.3e-06, c128 1e-06)" in \
        build_prompt(mish, PROFILES["interpreter"]).text()


def test_a_job_cut_off_after_its_last_case_says_it_was_in_its_checks() -> None:
    """An interrupted eval said "cut off mid-way ... cublas::cublasDgemv_v2 at 9/9 cases": every case was judged and
    the job was in its checks, which read as a contradiction."""
    from kernelgenbench.tables import cut_off_line

    line = cut_off_line({"cublas::cublasDgemv_v2": ("cases", 9, 9), "aten::mish": ("cases", 3, 9),
                         "aten::mm": ("timed cases", 4, 4)})
    assert line is not None
    assert line.endswith(": aten::mish at 3/9 cases, aten::mm before its record, after 4/4 timed cases, "
                         "cublas::cublasDgemv_v2 during its checks, after 9/9 cases judged")
    assert "at 9/9" not in line and "at 4/4" not in line


def test_generate_and_agent_write_durations_as_every_other_line() -> None:
    """kgb generate's table wrote `wall/solved 7.0s` and kgb agent's line `session 0.5s + verdict 3.0s`, where every
    other line and table writes `7.0 s`."""
    from rich.console import Console

    from kernelgenbench.agent.commands import operator_line
    from kernelgenbench.llm.commands import summary_table

    g = {"operators": 1, "solved": 1, "pass_at_1": 1.0, "pass_at_k": 1.0, "geomean_speedup": None,
         "median_speedup": None, "iqm_speedup": None, "tokens": {"total": 10}, "tokens_per_solved": 10,
         "wall_s_per_solved": 7.0}
    c = Console(width=200, record=True)
    c.print(summary_table({"by_source": {"vllm": g}, "overall": g, "tier": "smoke"}, 1, "t"))
    rows = [ln for ln in c.export_text().splitlines() if "vllm" in ln or "overall" in ln]
    assert len(rows) == 2 and all(ln.rstrip(" │").endswith("7.0 s") for ln in rows), rows
    line = operator_line("aten::mish", {"status": "passed", "cases_passed": 4, "cases_total": 4,
                                        "exit_reason": "done", "self_checks": 1, "session_wall_s": 0.5,
                                        "judge_wall_s": 3.0}, resumed=True)
    assert line.endswith(" · session 0.5 s + verdict 3.0 s (recorded earlier)"), line
    assert line.startswith("[green]✓[/green] aten::mish · "), line


def test_help_writes_plain_metavars() -> None:
    """typer 0.29's help wrote `Usage: kgb eval [OPTIONS] {DIRECTORY}`, `DIRECTORY <path>`, `RUN <list[Path]>`,
    `--source <str>` (kgb list), `--tier <str>` and `--jobs <int range>`: every command now writes plain metavars."""
    import re

    import typer.main
    from typer.testing import CliRunner

    from kernelgenbench.cli import app

    group = typer.main.get_command(app)
    ctx = group.make_context("kgb", ["--help"], resilient_parsing=True)
    odd = re.compile(r"<(str|path|int|float|list|bool)[^>]*>|\{[A-Z_]+\}")
    for name in sorted(group.list_commands(ctx)):
        out = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "100"}).output
        assert not odd.search(out), (name, odd.findall(out))
    out = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "100"}).output
    assert re.search(r"^Usage: \S+ eval \[OPTIONS\] DIRECTORY$", out, re.M), out
    assert re.search(r"^  DIRECTORY  a directory of submission files", out, re.M), out
    assert re.search(r"^  --tier TIER  +smoke, full, heldout", out, re.M), out
    assert re.search(r"^  --case-timeout CASE_TIMEOUT  +seconds one case may take", out, re.M), out
    assert re.search(r"^  --out PATH  +run directory", out, re.M), out
    out = CliRunner().invoke(app, ["report", "--help"], env={"COLUMNS": "100"}).output
    assert re.search(r"^Usage: \S+ report \[OPTIONS\] RUN\.\.\.$", out, re.M) and "\n  RUN...  run directories" in out
    out = CliRunner().invoke(app, ["init", "--help"], env={"COLUMNS": "100"}).output
    assert re.search(r"^Usage: \S+ init \[OPTIONS\] OP \[DIR\]$", out, re.M), out
    assert "--force / --no-force  overwrite" in out  # a flag takes no metavar
    out = CliRunner().invoke(app, ["list", "--help"], env={"COLUMNS": "100"}).output
    assert re.search(r"^  --source SOURCE  +aten, vllm or cublas$", out, re.M), out
    # an error names the argument as the help does
    res = CliRunner().invoke(app, ["summary"])
    assert res.exit_code == 2 and "Missing argument 'RUN_DIR'" in res.output


def test_shared_vllm_axes_say_what_they_are_per_family() -> None:
    """`kgb show --cases` explained 312 (operator, axis) pairs only as "a parameter of this operator's cases: see its
    grid", most of them vLLM's (bs 13 operators, nb 10, kv 7, perm, qtype, ...). Each family now says what they
    are, and an axis whose meaning differs between families (bs, kv, perm) says so per family."""
    from kernelgenbench.report.author import axis_meaning
    from kernelgenbench.suite.registry import all_operators, get_operator

    def meaning(op_id: str, axis: str) -> str:
        return axis_meaning(get_operator(op_id), axis)

    # bs: a cache block's size in the cache families, the alignment block in moe_align
    for op_id in ("vllm::reshape_and_cache", "vllm::cp_gather_cache", "vllm::paged_attention_v1",
                  "vllm::cp_gather_indexer_k_quant_cache"):
        assert meaning(op_id, "bs").startswith("the block size BS: tokens per cache block"), op_id
        assert meaning(op_id, "nb") != meaning(op_id, "bs")
    assert meaning("vllm::moe_align_block_size", "bs").startswith("block_size: each expert's token count is padded")
    # kv: the cache dtype where a cache is written or read, a sequence length in the sparse-attention indexes
    assert meaning("vllm::reshape_and_cache_flash", "kv").startswith("kv_cache_dtype: auto (default), the cache")
    assert meaning("vllm::gather_and_maybe_dequant_cache", "kv").endswith("E5M2 bytes, read as float(fp8) x scale")
    assert meaning("vllm::convert_vertical_slash_indexes", "kv") == "the key/value length of every batch entry " \
                                                                    "(kv_seqlens)"
    # perm: an act-order permutation kind, a flag, or permute_cols' index kinds
    assert "empty ([E, 0]: none)" in meaning("vllm::gptq_marlin_moe_repack", "perm")
    assert meaning("vllm::gptq_gemm", "perm").startswith("True: act-order")
    assert "repeats: random indices in [0, K), not a permutation" in meaning("vllm::permute_cols", "perm")
    assert meaning("vllm::ggml_mul_mat_a8", "qtype").startswith("the GGML quant_type: 2 = Q4_0")
    assert meaning("vllm::paged_attention_v2", "hkv").startswith("the number of KV heads Hkv")
    # a glossary word that means something else in a family: concat_and_cache_mla's p is no probability, a cache's
    # layout no input layout
    assert meaning("vllm::concat_and_cache_mla", "p").startswith("the length P of k_pe")
    assert meaning("vllm::reshape_and_cache_flash", "layout").startswith("the caches' layout: NHD")
    assert meaning("vllm::rotary_embedding", "layout").startswith("flat: query and key are")
    # k is topk in the MoE families (the source's entry) but K, the inner dimension, in the GEMM families; a scaled
    # GEMM's out is its out_dtype, not out= passed
    assert meaning("vllm::moe_align_block_size", "k") == "how many experts each token keeps (topk)"
    for op_id in ("vllm::gptq_gemm", "vllm::gptq_marlin_gemm", "vllm::gptq_marlin_24_gemm", "vllm::gptq_shuffle",
                  "vllm::cutlass_scaled_mm"):
        assert meaning(op_id, "k").startswith("K, the"), op_id
    assert meaning("vllm::cutlass_scaled_mm", "out").startswith("out_dtype: the result's dtype")
    left = [(o.id, k) for o in all_operators() if o.source == "vllm"
            for k in sorted({k for p in o.grid("smoke") + o.grid("full") for k in p})
            if axis_meaning(o, k).startswith("a parameter of")]
    assert len(left) <= 71, len(left)
    assert not [(o, k) for o, k in left if k in ("bs", "nb", "kv", "perm", "qtype", "bit31", "gs", "neg_slot")]
