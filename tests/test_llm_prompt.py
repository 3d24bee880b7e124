"""Prompts built from the spec (issue 4, item 1).

Snapshot tests pin the prompt of one operator per source (and the GPU variant of the ATen one) in
``tests/snapshots/``. After an intended change to the templates or the spec, regenerate them with

    KGB_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest -q tests/test_llm_prompt.py

and review the diff (``git diff tests/snapshots``) before committing.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.cli import app
from kernelgenbench.llm.prompt import build_prompt, environment, reflection_message
from kernelgenbench.platforms import PROFILES
from kernelgenbench.suite.registry import all_operators, get_operator
from kernelgenbench.suite.tiers import SHOWN_TIERS
from kernelgenbench.verify.scan import RULES, scan_source

SNAPSHOTS = Path(__file__).parent / "snapshots"
PINNED = [("aten::add", "interpreter"), ("vllm::rms_norm", "interpreter"), ("cublas::cublasSgemm_v2", "interpreter"),
          ("aten::add", "cuda")]


def _snapshot_name(op_id: str, platform: str) -> str:
    return f"prompt__{op_id.replace('::', '__')}__{platform}.txt"


@pytest.mark.parametrize("op_id,platform", PINNED, ids=[f"{o}-{p}" for o, p in PINNED])
def test_prompt_snapshot(op_id: str, platform: str) -> None:
    text = build_prompt(get_operator(op_id), PROFILES[platform]).text()
    path = SNAPSHOTS / _snapshot_name(op_id, platform)
    if os.environ.get("KGB_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing snapshot {path}; run with KGB_UPDATE_SNAPSHOTS=1 to create it"
    assert text == path.read_text(), (f"the prompt of {op_id} on {platform} changed; if intended, regenerate with "
                                      f"KGB_UPDATE_SNAPSHOTS=1 (see this module's docstring)")


def _heldout_only_values(op) -> list[str]:
    """Texts of held-out parameter values that the smoke and full grids never use."""
    shown = {repr(v) for tier in ("smoke", "full") for p in op.grid(tier) for v in p.values()}
    schemas = " ".join(w.schema for w in op.interface.wrappers)  # "int[1]? dim" is not a leaked dim=[1]
    out = []
    for p in op.grid("heldout"):
        for k, v in p.items():
            if repr(v) in shown or isinstance(v, bool) or v is None:
                continue
            if isinstance(v, (list, tuple)):
                text = "[" + ", ".join(str(x) for x in v) + "]"
                if text not in schemas:
                    out.append(text)
            elif isinstance(v, (int, float)) and abs(v) >= 100:
                out.append(f"{k}={v!r}")
    return out


@pytest.mark.parametrize("op", all_operators(), ids=lambda o: o.id)
def test_prompt_complete_and_no_heldout(op) -> None:
    for platform in ("interpreter", "cuda"):
        for mode in ("sampling", "agent"):
            p = build_prompt(op, PROFILES[platform], mode)
            u = p.user
            # the interface, every wrapper or every parameter
            if op.interface.function is None:
                for w in op.interface.wrappers:
                    assert f"`{w.name}`" in u and w.schema in u
            else:
                assert f"def {op.interface.function}(" in u
                for name in op.interface.params:
                    assert f"`{name}`" in u
            assert op.semantics in u
            for desc in (d for r, d in RULES.items() if r != "syntax"):
                assert desc in u
            assert "Ghost replay" in u and "Dispatch trace" in u
            assert op.filename in u
            # held-out values never appear; nor the reference implementation
            for text in _heldout_only_values(op):
                assert text not in u, f"{op.id}: held-out value {text} in the {platform}/{mode} prompt"
            for p_ in op.grid("heldout"):
                assert ", ".join(f"{k}={v}" for k, v in p_.items()) not in u
            assert "_native" not in u and "def _ref" not in u
            if mode == "sampling":
                assert "```python code block" in u
            else:
                assert f"File to write: `{op.filename}`" in u and "Self-check: `./check`" in u


def test_platform_sections_differ() -> None:
    op = get_operator("aten::add")
    interp = build_prompt(op, PROFILES["interpreter"]).user
    cuda = build_prompt(op, PROFILES["cuda"]).user
    assert "TRITON_INTERPRET=1" in interp and "cannot be judged on this platform" not in interp  # every dtype
    assert "first config" in interp  # autotune on the interpreter
    assert '"CUDA")' in cuda and "cannot be judged" not in cuda
    assert "Speed is measured" in cuda


@pytest.mark.parametrize("name", ["example_function.j2", "example_aten.j2"])
def test_worked_examples_pass_the_static_scan(name: str) -> None:
    src = environment().get_template(name).render()
    assert scan_source(src) == []
    compile(src, name, "exec")


def test_reflection_withholds_heldout() -> None:
    op = get_operator("vllm::rms_norm")
    f = {"failure_class": "wrong_result", "meaning": "values", "case_id": "heldout/1",
         "case": {"shape": [16, 32, 128]}, "message": "got 1.0 expected 2.0 at shape [16, 32, 128]"}
    held = reflection_message(op, "heldout", f, 1)
    assert "[16, 32, 128]" not in held and "withheld" in held
    smoke = reflection_message(op, "smoke", {**f, "case_id": "smoke/1"}, 1)
    assert "smoke/1" in smoke and "got 1.0 expected 2.0" in smoke and "wrong_result" in smoke
    nocode = reflection_message(op, "smoke", {"failure_class": "no_code"}, 1)
    assert "no complete ```python code block" in nocode


def test_reflection_on_every_tier_withholds_only_held_out_cases() -> None:
    """``kgb generate`` judges on ``all`` by default: a failing smoke or full case is shown, a held-out
    one is not, and a failure that names no case is shown only when it arises before any case runs."""
    op = get_operator("vllm::rms_norm")
    f = {"failure_class": "wrong_result", "meaning": "values", "case": {"shape": [16, 32, 128]},
         "message": "got 1.0 expected 2.0 at shape [16, 32, 128]"}
    for shown in ("smoke/3", "full/17"):
        text = reflection_message(op, "all", {**f, "case_id": shown}, 1)
        assert shown in text and "[16, 32, 128]" in text and "withheld" not in text
        assert "every tier (smoke, full and held-out)" in text
    held = reflection_message(op, "all", {**f, "case_id": "heldout/2"}, 1)
    assert "[16, 32, 128]" not in held and "heldout/2" not in held and "held-out tier" in held
    assert "[16, 32, 128]" not in reflection_message(op, "smoke,heldout", {**f, "case_id": "heldout/0"}, 1)
    odd = reflection_message(op, "all", {**f, "case_id": "other/0"}, 1)  # an id of unknown form: withheld
    assert "[16, 32, 128]" not in odd
    scan = {"failure_class": "static_scan", "case_id": None, "message": "line 3: torch.softmax computes"}
    assert "torch.softmax" in reflection_message(op, "all", scan, 1)
    harness = {"failure_class": "platform", "case_id": None, "message": "harness error at shape [16, 32, 128]"}
    assert "[16, 32, 128]" not in reflection_message(op, "all", harness, 1)
    assert "[16, 32, 128]" in reflection_message(op, "full", harness, 1)
    assert "failed grading on the full tier" in reflection_message(op, "full", harness, 1)


@pytest.mark.parametrize("op_id", ["aten::add", "aten::neg", "aten::mm", "vllm::rms_norm", "cublas::cublasSgemm_v2"])
def test_prompts_read_only_the_shown_tiers(op_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a prompt (either mode, any platform) reads the grids of the shown tiers only: never the
    held-out tier, nor ``all`` or a selection holding it."""
    op = get_operator(op_id)
    asked: list[str] = []
    grid, cases = op.grid, op.cases
    monkeypatch.setattr(op, "grid", lambda tier: asked.append(tier) or grid(tier))
    monkeypatch.setattr(op, "cases", lambda tier: asked.append(tier) or cases(tier))
    for platform in ("interpreter", "cuda"):
        for mode in ("sampling", "agent"):
            build_prompt(op, PROFILES[platform], mode)
    assert asked and set(asked) <= set(SHOWN_TIERS), asked


def test_self_checks_offered_in_prompts_use_shown_tiers_only() -> None:
    """Every ``--tier`` a prompt offers (the agent's self-check command) is a shown tier."""
    offered = set()
    for op in all_operators():
        for platform in ("interpreter", "cuda"):
            for mode in ("sampling", "agent"):
                p = build_prompt(op, PROFILES[platform], mode)
                offered |= set(re.findall(r"--tier[ =]([\w,]+)", p.system + p.user))
    assert offered == set(SHOWN_TIERS)  # smoke, and full on GPUs


def test_kgb_prompt_command() -> None:
    res = CliRunner().invoke(app, ["prompt", "vllm::rms_norm", "--platform", "interpreter"])
    assert res.exit_code == 0, res.output
    assert res.output == build_prompt(get_operator("vllm::rms_norm"), PROFILES["interpreter"]).text()
    res = CliRunner().invoke(app, ["prompt", "cublas::cublasSaxpy_v2", "--platform", "cuda", "--mode", "agent"])
    assert res.exit_code == 0 and "`./check --tier full` runs the full tier" in res.output
    assert "File to write: `cublas__cublasSaxpy_v2.py`" in res.output
    res = CliRunner().invoke(app, ["prompt", "nope::nothing"])
    assert res.exit_code != 0
    res = CliRunner().invoke(app, ["prompt", "vllm::rms_norm", "--mode", "chat"])
    assert res.exit_code != 0


def test_prompt_hash_is_stable() -> None:
    op = get_operator("vllm::rms_norm")
    a = build_prompt(op, PROFILES["interpreter"])
    b = build_prompt(op, PROFILES["interpreter"])
    assert a.hash == b.hash and re.fullmatch(r"[0-9a-f]{64}", a.hash)
    assert a.hash != build_prompt(op, PROFILES["cuda"]).hash


@pytest.mark.parametrize("op", [o for o in all_operators() if o.source == "cublas"], ids=lambda o: o.id)
def test_cublas_heldout_sentence_matches_the_interface(op) -> None:
    """The held-out sentence names increments, leading dimensions, batch strides and flags only where the
    routine has them (cublasSgemmBatched_64 has no increment, yet was told of negative ones)."""
    text = build_prompt(op, PROFILES["interpreter"]).text()
    line = next(ln for ln in text.splitlines() if ln.startswith("A held-out tier adds cases"))
    params = op.interface.params
    has = {"increments": any(p.startswith("inc") for p in params),
           "leading dimensions": any(p.startswith("ld") for p in params),
           "batch strides": any(p.startswith("stride") for p in params),
           "flag encoding": any(p in ("trans", "transa", "transb", "uplo", "diag", "side") for p in params)}
    for words, present in has.items():
        assert (words in line) == present, f"{op.id}: {words!r} {'missing from' if present else 'wrongly in'} {line!r}"
    assert "odd sizes" in line


def test_cublas_heldout_sentence_examples() -> None:
    line = {}
    for name in ("cublas::cublasSgemmBatched_64", "cublas::cublasSaxpy_v2", "cublas::cublasSgemvStridedBatched"):
        text = build_prompt(get_operator(name), PROFILES["interpreter"]).text()
        line[name] = next(ln for ln in text.splitlines() if ln.startswith("A held-out tier adds cases"))
    assert "(odd sizes, padded leading dimensions, the other flag encoding)" in line["cublas::cublasSgemmBatched_64"]
    assert "(odd sizes, other increments including negative ones)" in line["cublas::cublasSaxpy_v2"]
    assert ("(odd sizes, other increments including negative ones, padded leading dimensions, padded or zero batch "
            "strides, the other flag encoding)") in line["cublas::cublasSgemvStridedBatched"]
