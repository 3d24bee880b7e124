"""One job: one (submission file, operator) pair, judged end to end (DESIGN.md "Pipeline").

    L1 static scan ── rejects before any code runs
    sandbox child  ── imports the submission, runs the candidate on inputs it is given
    verifier       ── builds inputs, computes references, compares, decides (this module)
    L2 ghost replay · L3 trace and kernel-list checks · timing (GPU only)
    one result record

This module is the trusted side: it never imports the submission.

L2 (ghost replay) is interleaved with the correctness runs so that the candidate cannot tell a replay
from a normal run: :meth:`Verifier._l2_plan` picks the replayed cases and gives their correctness runs
secret inputs, :func:`ghost_schedule` places each one's judged re-runs and ghost replay at random
positions after it, the child replays the host reads and launch outcomes of the latest normal run on
the same inputs (``sandbox/hooks.py``), and :meth:`Verifier._l2_verdict` decides. A replay never
follows the first sighting of its inputs: a warm re-run always comes between them, so one-time work
of a legal wrapper (a workspace zeroed by a kernel on the first call) is not in the log replayed.
Cost per replayed case: the warm re-run, ``Settings.ghost_reruns`` decoy re-runs and the replay.
"""
from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import random
import re
import shutil
import statistics
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from ..platforms import Platform
from .gate import DeviceGate
from ..sandbox.runner import LOG_LIMIT_BYTES, Child, ChildDied, ChildTimeout, health_probe
from ..suite.common import generator
from ..suite.spec import Call, Case, Expected, Operator, storage_view
from ..verify import profile as l3
from ..verify.compare import (SlotResult, compare_nothing_to_compute, compare_slot, compare_values, holds_poison,
                              poison_is_ambiguous, poison_variant, unchanged)
from ..verify.failures import classify_error, interpreter_limit
from ..verify.scan import describe_findings, findings_record, scan_file
from ..verify.timing import timed_repetitions, timed_set_seed


@dataclass
class Settings:
    """Limits and knobs of a run.

    Attributes:
        import_timeout_s: seconds for the child to import the submission and answer.
        case_timeout_s: seconds for one case (interpreter cases include Triton's interpretation).
        time_timeout_s: seconds for timing one case.
        reps: timed repetitions per side per case.
        warmup_ms: warm-up per side per case, in ms.
        timing_checks: timed candidate repetitions per case whose outputs are judged (chosen at
            random among the timed repetitions; each had fresh inputs).
        ghost_cases: the most cases L2 replays per job (all in smoke/held-out tiers when smaller);
            each replayed case costs ``ghost_reruns + 1`` extra normal runs and one ghost replay
            (``Verifier._l2_plan``).
        ghost_reruns: decoy re-runs of each replayed case's inputs, placed at random with the replay
            after the case's warm re-run (:func:`ghost_schedule`; the warm re-run, always the second
            sighting of the inputs, keeps the replay off the first sighting's log and is not counted
            here): a candidate that remembers the inputs it has seen and misbehaves on one later
            sighting escapes one replayed case with probability 1 / (ghost_reruns + 1).
        l2_salt: the salt of the replayed cases' input seeds (``case.seed ^ salt``); None (the
            default) draws it secretly per job. A fixed value reproduces a run's L2 inputs (debugging
            a failure: the record's ``input_seed``); 0 keeps the public case seeds.
        implausible_speedup: a case faster than this (x baseline) is re-measured in a fresh
            sandbox process, and the slower of the two measurements is kept.
        keep_workdir: keep tensors exchanged with the child (for debugging).
        log_limit_bytes: the most of the sandbox's output (the submission's prints, warnings,
            tracebacks) one job keeps in its ``child.log``: the first part as written and the last 64 KiB;
            the record's ``log_truncated`` says how much was dropped (``sandbox/runner.py`` LogPump).

    ``import_timeout_s`` bounds the import of the submission (module-level code, compilation it
    triggers) until the sandbox reports ready; ``case_timeout_s`` one case; ``time_timeout_s`` the
    timing of one case. A job that exceeds any of them fails as ``timeout``, its process group killed.
    """

    import_timeout_s: float = 180.0
    case_timeout_s: float = 300.0
    time_timeout_s: float = 300.0
    reps: int = 30
    warmup_ms: float = 25.0
    timing_checks: int = 2
    ghost_cases: int = 16
    ghost_reruns: int = 1
    l2_salt: int | None = None
    implausible_speedup: float = 20.0
    keep_workdir: bool = False
    log_limit_bytes: int = LOG_LIMIT_BYTES


@dataclass
class JobSpec:
    """What to evaluate: an operator, a submission file (None when missing), a tier."""

    op: Operator
    submission: Path | None
    tier: str
    label: str = ""


class JobFailed(Exception):
    """Internal: stop the job with this failure."""

    def __init__(self, cls: str, message: str, case: Case | None = None) -> None:
        super().__init__(message)
        self.cls = cls
        self.case = case


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_FRAME = re.compile(r'^(\s*)File "([^"]+)", line (\d+)')


def condense_traceback(tb: str, submission: str | Path | None = None, limit: int = 6000,
                       context_frames: int = 2) -> str:
    """A traceback for a record and the console: the frames in the submission file, every line that is
    not a frame (headers, chained-exception separators, exception lines with their messages), and
    where the submission has no frame in a traceback, its last ``context_frames`` frames. Runs of
    omitted frames become one ``[... N frames of the harness, Triton or PyTorch omitted ...]`` line.
    The result is cut at line boundaries to about ``limit`` characters (the start and the end kept,
    a line saying how much was cut between them). The whole text belongs in the job's log.
    """
    cap = max(80, limit // 3)
    lines = [ln if len(ln) <= cap else f"{ln[:cap].rsplit(' ', 1)[0]} [... {len(ln) - len(ln[:cap].rsplit(' ', 1)[0])} "
             f"characters of this line cut]" for ln in tb.rstrip("\n").splitlines()]
    sub = Path(submission).name if submission else None
    # blocks: ("frame", [lines], in_submission) or ("text", [line], True)
    blocks: list[tuple[str, list[str], bool]] = []
    i = 0
    while i < len(lines):
        m = _FRAME.match(lines[i])
        if m:
            indent = len(m.group(1))
            j = i + 1
            while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) > indent \
                    and not _FRAME.match(lines[j]):
                j += 1
            mine = sub is not None and Path(m.group(2)).name == sub
            blocks.append(("frame", lines[i:j], mine))
            i = j
        else:
            blocks.append(("text", [lines[i]], True))
            i += 1
    # one traceback = the frames between two text blocks; keep the last frames of one with none of ours
    keep = [b[2] for b in blocks]
    k = 0
    while k < len(blocks):
        if blocks[k][0] != "frame":
            k += 1
            continue
        e = k
        while e < len(blocks) and blocks[e][0] == "frame":
            e += 1
        if not any(keep[k:e]):
            for q in range(max(k, e - context_frames), e):
                keep[q] = True
        k = e
    out: list[str] = []
    skipped = 0
    for (kind, blines, _), kept in zip(blocks, keep):
        if kept:
            if skipped:
                out.append(f"  [... {skipped} frame{'s' if skipped != 1 else ''} of the harness, Triton or "
                           f"PyTorch omitted ...]")
                skipped = 0
            out.extend(blines)
        else:
            skipped += 1
    if skipped:
        out.append(f"  [... {skipped} frame{'s' if skipped != 1 else ''} omitted ...]")
    text = "\n".join(out)
    if len(text) <= limit:
        return text
    # too long: keep whole lines from the start (a third) and the end (the rest)
    head: list[str] = []
    size = 0
    for ln in out:
        if size + len(ln) + 1 > limit // 3:
            break
        head.append(ln)
        size += len(ln) + 1
    tail: list[str] = []
    size = 0
    for ln in reversed(out[len(head):]):
        if size + len(ln) + 1 > limit - limit // 3:
            break
        tail.append(ln)
        size += len(ln) + 1
    tail.reverse()
    cut = out[len(head):len(out) - len(tail)]
    return "\n".join([*head, f"[... {len(cut)} lines ({sum(len(c) + 1 for c in cut)} characters) cut; the whole "
                              f"traceback is in the job's log ...]", *tail])


def tier_case_count(op: Operator, tier: str) -> int:
    """How many cases ``op`` has in ``tier`` (0 when the tier cannot be built)."""
    try:
        return len(op.cases(tier))
    except Exception:  # noqa: BLE001 - a record must be written even if the grid cannot be built
        return 0


def _resolve(slot: str, out: dict[str, Any]) -> Any:
    if slot == "return":
        return out.get("ret")
    if slot.startswith("return."):
        ret = out.get("ret")
        i = int(slot.split(".", 1)[1])
        return ret[i] if isinstance(ret, (list, tuple)) and i < len(ret) else None
    if slot.startswith("arg."):
        key = slot.split(".", 1)[1]
        if key.isdigit():
            args = out.get("args") or []
            return args[int(key)] if int(key) < len(args) else None
        return (out.get("kwargs") or {}).get(key)
    raise ValueError(f"unknown slot {slot!r}")


def _resolve_device(slot: str, out: dict[str, Any]) -> str | None:
    """The device type the sandbox reported for a returned tensor (``out["ret_devices"]`` mirrors the
    return), or None when not reported; loading maps every tensor to the verifier's device."""
    if not slot.startswith("return"):
        return None
    dev = out.get("ret_devices")
    if slot.startswith("return."):
        i = int(slot.split(".", 1)[1])
        dev = dev[i] if isinstance(dev, (list, tuple)) and i < len(dev) else None
    return dev.split(":", 1)[0] if isinstance(dev, str) else None


def _same_object(a: Any, b: Any) -> bool:
    """Whether two loaded tensors are one tensor object in the child (same storage and view)."""
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
            and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
            and a.storage_offset() == b.storage_offset() and a.shape == b.shape and a.stride() == b.stride())


def _all_outputs_empty(expected: list[Expected]) -> bool:
    vals = [e for e in expected if e.value is not None]
    if not vals:
        return False
    return all((e.region is not None and not bool(e.region.any())) or (e.region is None and e.value.numel() == 0)
               for e in vals)


def _run_check(exp: Expected, actual: Any, out: dict[str, Any]) -> SlotResult:
    """Run an operator's custom judge (:attr:`Expected.check`); a judge that raises fails the slot
    with the exception named (it must not crash the verifier)."""
    try:
        res = exp.check(actual, out)  # type: ignore[misc]
    except Exception as exc:  # noqa: BLE001 - malformed result the judge did not anticipate
        return SlotResult(False, f"{exp.slot}: result could not be judged ({type(exc).__name__}: {exc})")
    if not isinstance(res, SlotResult):
        raise TypeError(f"Expected.check of {exp.slot} returned {type(res).__name__}, not SlotResult")
    return res


def judge_values(out: dict[str, Any], expected: list[Expected],
                 tolerance_scale: float = 1.0) -> tuple[str | None, SlotResult]:
    """Compare every expected slot of a case's outputs (values, dtype, untouched memory, returned aliases,
    custom judges, nothing-to-compute rules): the verifier's comparison, also used by ``kgb repro``.

    Args:
        out: the call's outputs as the sandbox reports them: ``args``, ``kwargs``, ``ret``, ``ret_type``,
            ``ret_devices``.
        expected: the reference's slots (:meth:`Operator.reference`).
        tolerance_scale: the platform's tolerance scale.

    Returns ``(message, result)``: message None when all slots pass; result is the failing slot's
    comparison, or the one with the largest error when all pass.
    """
    worst = SlotResult(True)
    for exp in expected:
        actual = _resolve(exp.slot, out)
        if exp.slot == "return" and exp.value is None and exp.alias:
            target = _resolve(exp.alias, out)
            if not _same_object(actual, target):
                return (f"the call must return its output argument ({exp.alias}) itself; "
                        f"got {out.get('ret_type')}"), worst
            continue
        if exp.check is not None:  # custom judge (random samples, ties): Expected.check
            res = _run_check(exp, actual, out)
        elif exp.rule is not None:  # nothing to compute: aliasing, layout, type, device (NothingToCompute)
            args = [*(out.get("args") or []), *(out.get("kwargs") or {}).values()]
            res = compare_nothing_to_compute(
                exp, actual, alias_target=_resolve(exp.alias_of, out) if exp.alias_of else None,
                inputs=tuple(a for a in args if isinstance(a, torch.Tensor)),
                device_type=_resolve_device(exp.slot, out))
        else:
            res = compare_slot(exp, actual, tolerance_scale)
        if not res.ok:
            return res.message, res
        if res.max_abs >= worst.max_abs:
            worst = res
    return None, worst


def _equals_ghost_poison(exp: Expected) -> bool:
    """Whether the compared values of ``exp`` all equal the ghost replay's poison value (integer and
    bool outputs only; float poison is a NaN payload no result equals)."""
    from ..verify.compare import INT_POISON_ALT

    v = exp.value
    if v is None or v.dtype not in INT_POISON_ALT:
        return False
    vals = v[exp.region.to(v.device)] if exp.region is not None else v
    return vals.numel() > 0 and bool((vals == INT_POISON_ALT[v.dtype]).all())


def _bits_differ(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise over two flat tensors of one dtype and length: do their bit patterns differ?"""
    n, size = a.numel(), a.element_size()
    return (a.contiguous().view(torch.uint8).reshape(n, size)
            != b.contiguous().view(torch.uint8).reshape(n, size).to(a.device)).any(-1)


def _unproven_writes(expected: list[Expected], out: dict[str, Any], before: Call,
                     alt_build: Any) -> list[str]:
    """The slots of a passed case with an element that may never have been written: it holds the
    main poison pattern of a dtype a result can equal (integers, bools; :func:`poison_is_ambiguous`),
    and the pattern there is the verifier's or the sandbox's poison, not a value the case put there.

    * Slots compared as whole tensors (returns, resized ``out=``): every element the candidate
      allocated was poisoned in the sandbox, so any element equal to the pattern counts.
    * Written arguments (``exp.region``): only elements of the compared region that ``op.build``
      poisoned, found as the positions where the build under the alternate pattern differs
      (``alt_build()``, called at most once, only when a region element equals the pattern). The
      contents of an in-place ``self`` are the input, identical in both builds: an element left
      at its input value there is already right, and a complete no-op is the case's ``_trivial``
      matter, so no re-run is asked for it.

    Slots of nothing-to-compute views (``alias_of``) and unspecified contents are skipped: their
    elements are the input's, not written by the call. Floats and complex never need it: their
    poison is a NaN payload that the comparison tells from any computed value
    (:func:`~kernelgenbench.verify.compare.compare_values`).
    """
    slots: list[str] = []
    alt: Call | None = None
    for exp in expected:
        if exp.value is None and exp.check is None:
            continue
        if exp.rule is not None and (exp.alias_of is not None or not exp.check_values or exp.py_scalar):
            continue
        actual = _resolve(exp.slot, out)
        if not isinstance(actual, torch.Tensor) or actual.is_meta or not actual.numel() \
                or not poison_is_ambiguous(actual.dtype):
            continue
        if exp.region is None or not exp.slot.startswith("arg."):
            if bool(holds_poison(actual).any()):
                slots.append(exp.slot)
            continue
        got = storage_view(actual)
        region = exp.region.to(got.device)
        hit = region & holds_poison(got) if got.numel() == region.numel() else region
        if not bool(hit.any()):
            continue
        if alt is None:
            alt = alt_build()
        key = exp.slot.split(".", 1)[1]
        key = int(key) if key.isdigit() else key
        b0, b1 = storage_view(before.get(key)), storage_view(alt.get(key))
        if b0.numel() != got.numel() or b1.numel() != got.numel() or b0.dtype != b1.dtype:
            slots.append(exp.slot)  # cannot tell what was poisoned: re-run to be safe
        elif bool((hit & _bits_differ(b0, b1).to(got.device)).any()):
            slots.append(exp.slot)
    return slots


def _trivial(expected: list[Expected], before: Call, scale: float = 1.0) -> bool:
    """A no-op would pass this case: every written output's value before the call already matches
    the expected result within the case's tolerance (axpy with alpha = 0, or alpha·x below the
    tolerance of y). Ghost replay cannot tell a no-op from a correct kernel on such a case, and the
    "a Triton kernel must launch" rule does not apply to it."""
    vals = [e for e in expected if e.value is not None]
    if not vals or any(e.region is None or e.check is not None for e in vals):
        return False
    for e in vals:
        slot = e.slot.split(".", 1)[1]
        t = before.get(int(slot) if slot.isdigit() else slot)
        old = storage_view(t)
        new = e.value.to(old.device)
        if old.numel() != new.numel() or old.dtype != new.dtype:
            return False
        r = e.region.to(old.device)
        a, b = old[r], new[r]
        if a.is_floating_point():
            if bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all()):
                continue
            if not compare_values(a, b, e.tol, scale, e.slot, e.atol_extra).ok:
                return False
        elif not bool((a == b).all()):
            return False
    return True


def case_size(op: Operator, params: dict[str, Any]) -> float:
    """A case's size for choosing cheap L2 replays: its cost-model bytes, or where the cost model has
    none, the sum of the products of the integer lists among its parameters (shapes), plus 1."""
    b = op.cost(params).bytes
    if b:
        return float(b)
    total = 1.0
    for v in params.values():
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, int) for x in v):
            total += float(math.prod(v))
    return total


def timed_ops_beyond(timed: dict[str, int], correctness: dict[str, int] | None) -> str:
    """The ATen ops a timed candidate call ran beyond its case's correctness run: ``""`` when none.

    Args:
        timed: op key -> the most times one timed call of the case ran it (``timed_trace``).
        correctness: op key -> times the case's correctness run ran it (all its candidate calls),
            or None when the case has no correctness trace (nothing compared).

    Compared are the ops that can write or read results outside a kernel (fills, copies, host reads,
    random draws): a timed call may run none the correctness run did not run at all. A candidate that
    tells timing apart and then computes with allowed copies plus a token launch is caught here (its
    judged timed repetitions are right, and the L3 allowlist admits copies). Counts are not compared,
    nor are views, metadata and allocations: they may follow the input values (a boolean mask's
    count of true elements), which differ between the correctness run and the timed repetitions."""
    if correctness is None:
        return ""
    judged = l3._FILL_COPY_OPS | l3._ITEM_OPS | {"random_draw"}
    new = [f"{k} x{n}" for k, n in sorted(timed.items())
           if n and l3._base(k) in judged and not correctness.get(k)]
    return ", ".join(new[:5])


#: Phases a correctness run records itself (``Verifier._run_case``), also when L2 makes the run.
_L2_INNER_PHASES = ("reference_s", "save_s", "candidate_s", "load_s", "judge_s", "hung_s")


def ghost_schedule(indices: list[int], replayed: set[int], rng: random.Random,
                   reruns: int = 1) -> list[tuple[str, int]]:
    """The order of a job's runs (L2 interleaved with the correctness runs).

    Every case in ``indices`` gets its correctness run ``("case", i)``, in grid order. Each case in
    ``replayed`` also gets, drawn from ``rng`` (the verifier's secret RNG):

    * one warm re-run ``("rerun", i)`` (a normal run on the same inputs, judged like a correctness
      run) at a uniformly random time between its correctness run and the end of the job;
    * ``reruns`` decoy re-runs ``("rerun", i)`` and a ghost replay ``("ghost", i)``, each at an
      independent uniformly random time between the warm re-run and the end of the job.

    The warm re-run makes the ghost replay follow the log of a non-first sighting of its inputs
    (the latest normal run): one-time work a legal wrapper does on the first call on a device or a
    shape (a lock or workspace buffer zeroed by a kernel, a lazily built table) is in the first
    sighting's log but not in later runs, and a replay of that log would diverge. Among the runs
    after the warm one, the ghost replay is at a uniformly random rank and at no fixed call number: a
    candidate that counts its calls, or remembers the inputs it has seen and misbehaves on some later
    sighting, cannot tell the replay from a judged re-run — the warm re-run is always the second
    sighting, so misbehaving there is caught by its judgement, and any later sighting is the replay
    with probability 1 / (reruns + 1): one replayed case escapes with that probability, all k replayed
    cases with probability (reruns + 1)^-k.

    Returns:
        ``[(kind, index), ...]``: kind ``"case"``, ``"rerun"`` or ``"ghost"``; a case's correctness run
        always precedes its re-runs and replay, and its first re-run (the warm one) its replay.
    """
    n = len(indices)
    # (time, tie-break, kind, index): at equal times a correctness run goes first, then the runs in
    # the order they were drawn (a warm re-run before the runs placed after it)
    timeline: list[tuple[float, int, str, int]] = [(float(k), 0, "case", i) for k, i in enumerate(indices)]
    for k, i in enumerate(indices):
        if i in replayed:
            warm = rng.uniform(k, n)
            timeline.append((warm, len(timeline), "rerun", i))
            for kind in ("rerun",) * reruns + ("ghost",):
                timeline.append((rng.uniform(warm, n), len(timeline), kind, i))
    timeline.sort(key=lambda t: (t[0], t[1]))
    return [(kind, i) for _, _, kind, i in timeline]


def _divergence(report: dict[str, Any] | None) -> str | None:
    """What a ghost replay did differently from the normal run it replayed (its report from the child),
    in words, or None when it did the same."""
    if not isinstance(report, dict):
        return None
    d = report.get("divergence")
    if isinstance(d, dict):
        i = int(d.get("index") or 0)
        what = "host read" if d.get("stream") == "reads" else "launch"

        def desc(e: Any) -> str:
            if not isinstance(e, dict):
                return "nothing (the normal run made no more)"
            if "kernel" in e:
                return f"a launch of {e['kernel']}"
            return f"{e.get('kind')} of a {e.get('dtype')} tensor of shape {e.get('shape')}"

        return (f"the replay's {what} #{i} was {desc(d.get('replay'))} where the normal run on the same inputs "
                f"made {desc(d.get('normal'))}")
    if report.get("unused_reads") or report.get("unused_launches"):
        return (f"the replay stopped short of the normal run on the same inputs ({report.get('unused_reads')} "
                f"host read(s) and {report.get('unused_launches')} launch(es) fewer)")
    return None


def triton_read_values(log: dict[str, Any] | None, report: dict[str, Any] | None, limit: int = 4096) -> list[Any]:
    """The values a ghost replay handed back for host reads of Triton-derived memory: the entries of
    the normal run's replay ``log`` marked ``triton`` (memory a launch of the call received, other than
    a read-only input; ``hooks.host_read``) among the reads the replay consumed (``report``'s
    ``reads_replayed``, the first ones of the log), as Python numbers (a logged tensor copy gives its
    elements; string reads give none). At most ``limit`` values."""
    if not isinstance(log, dict) or not isinstance(report, dict):
        return []
    reads = list(log.get("reads") or [])[: int(report.get("reads_replayed") or 0)]
    values: list[Any] = []
    for r in reads:
        if not isinstance(r, dict) or not r.get("triton"):
            continue
        v = r.get("value")
        if isinstance(v, torch.Tensor):
            values.extend(v.reshape(-1)[: limit].tolist())
        elif isinstance(v, (bool, int, float, complex)):
            values.append(v)
        if len(values) >= limit:
            break
    return values[:limit]


def from_triton_reads(expected: list[Expected], out: dict[str, Any], values: list[Any]) -> bool:
    """Whether a passing ghost replay's result could be made of ``values``, the values Triton-derived
    host reads handed back (:func:`triton_read_values`): every compared output element equals one of
    them (converted to the output's dtype; NaN matches NaN), and the compared elements are no more
    than the values (each result element needs a read of its own). Then the replay's right result
    proves nothing against the kernels: it is their result, read back and re-wrapped. False when no
    output is compared."""
    if not values:
        return False
    total = 0
    for exp in expected:
        if exp.value is None and exp.check is None:
            continue
        actual = _resolve(exp.slot, out)
        if isinstance(actual, (bool, int, float, complex)):
            actual = torch.tensor(actual)
        if not isinstance(actual, torch.Tensor) or actual.is_meta:
            return False
        vals = actual.detach().reshape(-1)
        if exp.region is not None and exp.slot.startswith("arg."):
            flat = storage_view(actual)
            region = exp.region.to(flat.device)
            if flat.numel() == region.numel():
                vals = flat[region]
        total += vals.numel()
        if total > len(values):
            return False
        if not vals.numel():
            continue
        try:
            cand = _as_values(values, vals.dtype).to(vals.device)
        except (RuntimeError, TypeError, OverflowError, ValueError):
            return False
        hit = vals[:, None] == cand[None, :]
        if vals.is_floating_point() or vals.is_complex():
            hit |= torch.isnan(vals)[:, None] & torch.isnan(cand)[None, :]
        if not bool(hit.any(dim=1).all()):
            return False
    return total > 0


def _as_values(values: list[Any], dtype: torch.dtype) -> torch.Tensor:
    """``values`` (Python numbers) as a tensor of ``dtype``, keeping only those the dtype holds exactly
    as numbers (integral values in range for integer dtypes; any for bool, as truth values; complex
    ones only for complex dtypes): rounding a float read into an integer output is no re-wrapping."""
    if dtype == torch.bool:
        return torch.tensor([bool(v) for v in values], dtype=torch.bool)
    if dtype.is_complex:
        return torch.tensor([complex(v) for v in values], dtype=torch.complex128).to(dtype)
    reals = [v for v in values if not isinstance(v, complex)]
    if dtype.is_floating_point:
        return torch.tensor([float(v) for v in reals], dtype=torch.float64).to(dtype)
    info = torch.iinfo(dtype)
    ints = [int(v) for v in reals if math.isfinite(float(v)) and float(v).is_integer() and info.min <= v <= info.max]
    return torch.tensor(ints, dtype=torch.int64).to(dtype)


def _ghost_outcome(res: dict[str, Any]) -> str:
    """One word for a ghost replay's result in the record."""
    if res.get("ghost_passed"):
        return "still passed"
    if res.get("from_triton_reads"):
        return "passed from Triton-derived host reads"
    if res.get("diverged"):
        return "diverged"
    if res.get("uninformative"):
        return "uninformative"
    return "no-op output rejected"


class Verifier:
    """Evaluates one job on one device slot and returns its record (see :meth:`run`)."""

    def __init__(self, spec: JobSpec, platform: Platform, device_index: int | None, workdir: Path,
                 settings: Settings, ceilings: dict[str, float] | None = None, gate: DeviceGate | None = None) -> None:
        self.spec = spec
        #: shared by the slots of this device: untimed GPU work shared, timing exclusive (run/gate.py)
        self.gate = gate or DeviceGate()
        self.op = spec.op
        self.platform = platform
        self.device_index = device_index
        self.workdir = workdir
        self.settings = settings
        self.ceilings = ceilings or {}
        if platform.interpreter:
            self.device = torch.device("cpu")
        else:
            self.device = torch.device(platform.device, device_index or 0)
        self.child: Child | None = None
        #: every sandbox process this job started (their logs share the job's log budget)
        self._children: list[Child] = []
        #: the verifier's secret RNG: L2's choice of cases, their input seeds and the replay positions
        self._rng = random.Random(os.urandom(8))
        #: case id -> the ATen ops of its correctness run (compared with its timed calls, _time_one)
        self._case_traces: dict[str, dict[str, int]] = {}
        #: (name, line) of functions that ran as kernel bodies and were scanned as such here (_check_launch)
        self._scanned_bodies: set[tuple[str, int]] = set()
        self._io_n = 0
        # Tensors exchanged with the child go through memory-backed files where the host has them.
        shm = Path("/dev/shm")
        self.io = (Path(tempfile.mkdtemp(prefix="kgb-io-", dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK)
                   else workdir / "io")
        self.record: dict[str, Any] = {}
        self.cases: list[dict[str, Any]] = []
        #: where the job's wall time goes (seconds), written into the record as ``time_s``
        self.times: dict[str, float] = {k: 0.0 for k in (
            "l1_s", "import_s", "reference_s", "save_s", "child_case_s", "candidate_s", "load_s", "judge_s",
            "ghost_s", "profile_s", "timing_s", "gate_wait_s", "gate_wait_timing_s", "hung_s")}
        # gate_wait_s: this job's untimed GPU work waited while another slot of the GPU timed (or queued
        # to time); gate_wait_timing_s: its timing waited for the other slots' untimed GPU work (sandbox
        # start-up, cases, ghost replay, profiling, teardown) to stop; hung_s: cases that did not
        # answer before the case timeout (the candidate's time, until the process group was killed).

    # -- record -----------------------------------------------------------------------------------
    def _base_record(self) -> dict[str, Any]:
        sub = self.spec.submission
        return {
            "op": self.op.id, "source": self.op.source, "category": self.op.category,
            "submission": str(sub) if sub else None,
            "submission_sha256": sha256(sub) if sub and sub.is_file() else None,
            "label": self.spec.label, "tier": self.spec.tier, "platform": self.platform.name,
            "device": self._device_name(), "status": "failed", "failure_class": None, "first_failure": None,
            "cases_total": 0, "cases_passed": 0, "cases_unsupported": 0, "unsupported_reason": None,
            "speedup": None, "sol_pct": None, "cases": [],
            "anti_hack": {"L1": None, "L2": None, "L3": None}, "baseline": None,
            "timing": None, "missing_optional": [], "log": None,
        }

    def _device_name(self) -> str:
        if self.platform.interpreter:
            return "cpu (Triton interpreter)"
        try:
            return torch.cuda.get_device_name(self.device)
        except Exception:  # noqa: BLE001
            return self.platform.device

    def fail(self, cls: str, message: str, case: Case | None = None) -> None:
        if self.record["failure_class"] is None:
            self.record["failure_class"] = cls
            self.record["first_failure"] = {"case": case.params if case else None,
                                            "case_id": case.id if case else None, "message": message}
        self.record["status"] = "failed"

    # -- main ---------------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Judge the job. Never raises for anything the submission does; returns the record."""
        t0 = time.time()
        self.record = self._base_record()
        self.record["started_at"] = t0
        try:
            if self.platform.device == "cuda" and not self.platform.interpreter:
                torch.cuda.set_device(self.device)
            self._run()
        except JobFailed as jf:
            self.fail(jf.cls, str(jf), jf.case)
        except Exception as exc:  # noqa: BLE001 - a harness error must not lose the job
            tb = traceback.format_exc()
            self._log_traceback("harness error in the verifier", tb)
            self.fail("platform", f"harness error: {type(exc).__name__}: {exc}\n"
                                  f"{condense_traceback(tb, self.spec.submission)}{self._log_hint()}")
        finally:
            if self.child is not None:
                with self.gate.shared():  # a process leaving the GPU is GPU work: not while another job times
                    self.child.close()
                self.child = None
            self._account_logs()
        self.record["cases"] = self.cases
        # the tier's case count, also when the job failed before its cases ran (missing, syntax,
        # missing_wrapper, import_error: 0 of them passed); ``cases`` holds the cases that ran
        self.record["cases_total"] = len(self.cases) or tier_case_count(self.op, self.spec.tier)
        self.record["cases_passed"] = sum(1 for c in self.cases if c["status"] == "passed")
        self.record["cases_unsupported"] = sum(1 for c in self.cases if c["status"] == "unsupported")
        judged = self.record["cases_total"] - self.record["cases_unsupported"]
        if self.record["failure_class"] is None:
            if judged == 0 and self.record["cases_total"] > 0:
                self.record["status"] = "unsupported"
            else:
                self.record["status"] = "passed"
        self.record["finished_at"] = time.time()
        self.record["wall_s"] = round(self.record["finished_at"] - t0, 3)
        self.record["time_s"] = {k: round(v, 3) for k, v in self.times.items()}
        if not self.settings.keep_workdir:
            shutil.rmtree(self.io, ignore_errors=True)
        return self.record

    def _run(self) -> None:
        sub = self.spec.submission
        if sub is None or not sub.is_file():
            raise JobFailed("missing", f"no submission file {self.op.filename} for {self.op.id}")
        # L1 -----------------------------------------------------------------------------------
        t_l1 = time.perf_counter()
        findings = scan_file(sub, own_ops=frozenset(getattr(self.op, "own_ops", frozenset())),
                             allow_copies=getattr(self.op, "allow_copies", True),
                             allow_methods=self.op.allow_methods)
        self.times["l1_s"] += time.perf_counter() - t_l1
        self.record["anti_hack"]["L1"] = findings_record(findings)
        if findings:
            rules = {f.rule for f in findings}
            cls = "syntax" if "syntax" in rules else ("dispatch_recursion" if "dispatch-recursion" in rules
                                                      else "static_scan")
            raise JobFailed(cls, describe_findings(findings))  # every finding, the most relevant first
        t_w = time.perf_counter()
        with self.gate.shared():
            self.times["gate_wait_s"] += time.perf_counter() - t_w
            self._verify()
        if self.record["failure_class"] is not None:
            return
        if not self.platform.timing:
            self.record["timing"] = {"applicable": False,
                                     "reason": f"timing is not reported on the {self.platform.name} platform"}
            self.record["baseline"] = f"{self.op.baseline_label()} (not timed on {self.platform.name})"
            return
        if not any(c.timed for c in self._cases):
            # Nothing of this tier is timed (smoke, held-out): record that, without taking the GPU alone
            # (waiting for every other slot's untimed work would time nothing).
            self._timing(self._cases)
            return
        # Timing: the device alone (other slots of this GPU wait) ------------------------------------------
        t_w = time.perf_counter()
        with self.gate.exclusive():
            self.times["gate_wait_timing_s"] += time.perf_counter() - t_w
            t_t = time.perf_counter()
            self._timing(self._cases)
            self.times["timing_s"] += time.perf_counter() - t_t
            if self.child is not None:
                self.child.close()
                self.child = None

    def _verify(self) -> None:
        """Sandbox start-up, every case, L2 ghost replay and the L3 kernel list (no timing)."""
        # Sandbox --------------------------------------------------------------------------------
        self.io.mkdir(parents=True, exist_ok=True)
        log = self.workdir / "child.log"
        self.record["log"] = str(log)
        t_imp = time.perf_counter()
        try:
            self._start_child()
        finally:  # a failed or timed-out import took its time too
            self.times["import_s"] += time.perf_counter() - t_imp
        cases = self._cases = self.op.cases(self.spec.tier)
        if not cases:
            raise JobFailed("platform", f"{self.op.id} has no cases in tier {self.spec.tier}")
        traces: dict[str, int] = {}
        launches_total = 0
        first_case_for_profile: Case | None = None
        entries: dict[int, dict[str, Any]] = {}
        judged: list[Case] = []
        for case in cases:
            entry = {"id": case.id, "params": case.params, "status": "pending"}
            self.cases.append(entry)
            entries[case.index] = entry
            reason = self.platform.unsupported_reason(self.op.tensor_dtypes(case.params))
            if reason:
                entry.update(status="unsupported", message=reason)
                self.record["unsupported_reason"] = self.record["unsupported_reason"] or reason
                continue
            judged.append(case)
        # L2 ghost replay, interleaved with the correctness runs (see _l2_plan) ----------------------
        seeds = self._l2_plan(judged)
        by_index = {c.index: c for c in judged}
        schedule = ghost_schedule([c.index for c in judged], set(seeds), self._rng, self.settings.ghost_reruns)
        logs: dict[int, Any] = {}          # replay log of the latest normal run of a replayed case's inputs
        ghosts: dict[int, dict[str, Any]] = {}
        l2_cases: dict[str, dict[str, Any]] = {}
        done: list[str] = []               # the runs made, in order: c<index> case, r re-run, g ghost replay
        for kind, index in schedule:
            case, entry = by_index[index], entries[index]
            seed = seeds.get(index)
            if kind == "case":
                done.append(f"c{index}")
                if seed is not None:
                    entry["input_seed"] = seed
                res = self._run_case(case, entry, seed=seed)
                if res is None:
                    continue
                self._case_traces[case.id] = dict(res["trace"])
                for k, v in res["trace"].items():
                    traces[k] = traces.get(k, 0) + v
                launches_total += len(res["launches"])
                if res["launches"] and not res["trivial"] and first_case_for_profile is None:
                    first_case_for_profile = case
                if seed is not None:
                    why = ("no Triton kernel was launched" if not res["launches"] else
                           "a no-op is right for these inputs" if res["trivial"] else
                           "nothing to compute: no launch is needed" if not res["needs_launch"] else None)
                    l2_cases[case.id] = {"input_seed": seed}
                    if why is None:
                        logs[index] = res["replay_log"]
                    else:
                        l2_cases[case.id]["skipped"] = why
                continue
            if index not in logs or self.record["failure_class"] is not None:
                continue  # not replayable, or the job already failed: the rest of L2 is moot
            t_l2 = time.perf_counter()
            # the run's candidate calls, inputs, transfers and judging count in their own phases; ghost_s
            # keeps the rest of the L2 run, so that the phases of the time line partition the job's wall
            inner = sum(self.times[k] for k in _L2_INNER_PHASES)
            done.append(f"{kind[0]}{index}")
            if kind == "rerun":  # warm re-run or decoy: a normal run on the same inputs, judged like a case
                res = self._run_case(case, entry, seed=seed, mode="rerun")
                if res is None:
                    logs.pop(index)
                else:
                    logs[index] = res["replay_log"]
                    l2_cases[case.id]["reruns_passed"] = l2_cases[case.id].get("reruns_passed", 0) + 1
            else:
                ghosts[index] = self._run_case(case, entry, seed=seed, mode="ghost", replay=logs[index]) or {}
                l2_cases[case.id]["ghost"] = _ghost_outcome(ghosts[index])
            self.times["ghost_s"] += max(0.0, time.perf_counter() - t_l2
                                         - (sum(self.times[k] for k in _L2_INNER_PHASES) - inner))
        self.record["anti_hack"]["L3"] = {**(self.record["anti_hack"]["L3"] or {}),
                                          "ok": self.record["failure_class"] not in ("profile", "dispatch_recursion",
                                                                                      "not_exercised"),
                                          "trace": traces, "launches": launches_total}
        self._l2_verdict(done, by_index, ghosts, l2_cases)
        if self.record["failure_class"] is not None:
            return
        # L3 kernel list (CUDA) -----------------------------------------------------------------------
        if self.platform.profiler and first_case_for_profile is not None:
            t_p = time.perf_counter()
            self._kernel_list(first_case_for_profile)
            self.times["profile_s"] += time.perf_counter() - t_p
            if self.record["failure_class"] is not None:
                return

    # -- child management -------------------------------------------------------------------------
    def _log_kept(self) -> int:
        """Bytes of sandbox output this job's log holds so far (its processes' heads)."""
        return sum(min(c.log.total, c.log.limit) for c in self._children)

    def _account_logs(self) -> None:
        """Wait for every sandbox process's log to be written; record ``log_truncated`` when output was
        dropped: ``{"bytes_written", "bytes_dropped", "limit"}`` (the job's log keeps the first ``limit``
        bytes and the last 64 KiB of each process that went over)."""
        for c in self._children:
            c.log.finish(timeout=5.0)
        written = sum(c.log.total for c in self._children)
        dropped = sum(c.log.dropped for c in self._children)
        if any(c.log.truncated for c in self._children):
            self.record["log_truncated"] = {"bytes_written": written, "bytes_dropped": dropped,
                                            "limit": self.settings.log_limit_bytes}

    def _start_child(self) -> None:
        assert self.spec.submission is not None
        self.child = Child(self.op.id, self.spec.submission, self.platform, self.device_index, self.workdir,
                           self.workdir / "child.log",
                           log_limit=max(0, self.settings.log_limit_bytes - self._log_kept()))
        self._children.append(self.child)
        try:
            msg = self.child.recv(self.settings.import_timeout_s)
        except ChildTimeout:
            raise JobFailed("timeout", f"importing the submission took longer than "
                                       f"{self.settings.import_timeout_s:.0f} s (killed; --import-timeout sets "
                                       f"the limit)") from None
        except ChildDied as exc:
            raise JobFailed("import_error", f"the submission's process died during import: {exc}") from None
        if msg.get("event") != "ready":
            raise JobFailed("platform", f"unexpected first message from the sandbox: {msg.get('event')!r}")
        self._check_launch(msg, "importing the submission")
        if not msg.get("ok"):
            err = msg.get("error") or {}
            text = err.get("message", "")
            tb = err.get("traceback_full") or err.get("traceback")
            if tb:
                self._log_traceback(f"importing the submission: {msg.get('failure', 'import_error')}", tb)
                text += "\n" + condense_traceback(tb, self.spec.submission) + self._log_hint()
            raise JobFailed(msg.get("failure", "import_error"), text)
        self.record["missing_optional"] = msg.get("missing_optional", [])
        if msg.get("timers_tampered"):
            raise JobFailed("timer_tampering", f"timer functions replaced at import: {msg['timers_tampered']}")
        self._judge_import(msg.get("import_trace") or {})

    def _judge_import(self, trace: dict[str, int]) -> None:
        """L3 for the submission's import: its module-level code ran under the dispatch trace of a call
        (``hooks.trace_import``) and is judged by the same allowlist, marks and budgets (host reads,
        fills/copies, tensor data built from host Python). Any finding fails the job as ``profile``:
        results computed once at import and looked up by the kernels are computed all the same (the op
        itself run at import included; it is no dispatch recursion there, the wrapper is not running)."""
        l3rec = self.record["anti_hack"]["L3"] = dict(self.record["anti_hack"]["L3"] or {})
        l3rec["import_trace"] = dict(trace)
        tv = l3.judge_trace(trace, frozenset(getattr(self.op, "own_ops", frozenset())),
                            getattr(self.op, "allow_copies", True), self.op.allow_trace, self.op.data_movement)
        if tv.failure:
            l3rec["ok"] = False
            raise JobFailed("profile", f"L3 dispatch trace of the submission's import (module-level code, {self.op.id}): "
                                       f"{tv.message}; work done at import is judged like work done in a call")

    def _check_launch(self, msg: dict[str, Any], where: str, case: Case | None = None) -> None:
        """The launch rule's record in a child's answer (:func:`_check_launch_violations`), and the
        submission's functions that ran as kernel bodies although the file-level L1 scan did not hold
        them to the kernel-body rule (``unscanned_bodies``: made kernels in a way the scan does not
        follow): each is scanned once as a kernel body (``verify.scan.scan_kernel_body``); a finding
        fails the job as ``static_scan``, a function the file does not define as ``profile``."""
        _check_launch_violations(msg, where, case)
        bodies = [(str(n), int(line)) for n, line in msg.get("unscanned_bodies") or []]
        bodies = [b for b in bodies if b not in self._scanned_bodies]
        if not bodies or self.spec.submission is None:
            return
        from ..verify.scan import scan_kernel_body

        try:
            source = importlib.util.decode_source(Path(self.spec.submission).read_bytes())
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            source = ""
        for name, line in bodies:
            findings = scan_kernel_body(source, name, line, own_ops=frozenset(getattr(self.op, "own_ops", ())),
                                        allow_copies=getattr(self.op, "allow_copies", True),
                                        allow_methods=frozenset(self.op.allow_methods))
            if findings is None:
                raise JobFailed("profile", f"L3 launch check ({where}): {name} (line {line}) ran as a Triton "
                                           f"kernel body but the submission defines no such function to scan", case)
            if findings:
                raise JobFailed("static_scan", describe_findings(
                    findings, f"L1 static scan of {name} (line {line}), which ran as a Triton kernel body"), case)
            self._scanned_bodies.add((name, line))

    def _interpreter_too_slow(self, exc: ChildTimeout) -> str | None:
        """Why a case that reached its timeout on the CPU interpreter was slow rather than stuck, or None.

        Slow: the interpreter's progress counters (programs started, element-by-element steps of reductions
        and scans with a custom combine function, launches) still advanced within the last
        ``max(2 s, 10% of the timeout)`` before the kill. The interpreter runs such kernels in Python, one
        program and one combine step at a time; a GPU runs the same case in microseconds, so the case is
        unsupported here, not the submission's failure. A kernel stuck inside one program (a spin-wait on a
        flag, an endless loop) advances none of the counters and stays a ``timeout``."""
        if not self.platform.interpreter or not exc.progress:
            return None
        p = exc.progress
        idle = p.get("idle_s")
        window = max(2.0, 0.1 * self.settings.case_timeout_s)
        if idle is None or idle > window:
            return None
        return (f"the Triton CPU interpreter is too slow for this case: it was still computing when the "
                f"{self.settings.case_timeout_s:.0f} s case timeout ended it ({p.get('programs')} program(s) of "
                f"{p.get('launches')} launch(es) started, the last launch's grid {p.get('grid')}, "
                f"{p.get('scan_steps')} reduction/scan step(s)); a GPU judges it (--case-timeout allows more time "
                f"here)")

    def _log_path(self) -> Path:
        return self.workdir / "child.log"

    def _log_traceback(self, title: str, tb: str) -> None:
        """Append a whole traceback to the job's log (the sandbox's output file), marked as the harness's."""
        try:
            self.workdir.mkdir(parents=True, exist_ok=True)
            with open(self._log_path(), "a", errors="replace") as f:
                f.write(f"\n===== kgb: {title}: the whole traceback =====\n{tb.rstrip()}\n===== end =====\n")
            self._logged = True
            self.record["log"] = str(self._log_path())
        except OSError:
            pass

    def _log_hint(self) -> str:
        return f"\n(whole traceback: {self._log_path()})" if getattr(self, "_logged", False) else ""

    def _died(self, exc: ChildDied, case: Case) -> JobFailed:
        """Classify an abnormal child exit during a case; probe the device on GPUs."""
        text = f"{exc} during case {case.id} ({case.describe()})"
        cls = "runtime_error"
        if not self.platform.interpreter:
            ok, why = health_probe(self.platform, self.device_index)
            if not ok:
                return JobFailed("infrastructure", f"{text}; the device then failed its health probe ({why})", case)
            if exc.returncode is not None and exc.returncode < 0:
                cls = "cuda_fault"
        tail = ""
        for c in self._children:  # the dead process's output is all in the log once its pipe is drained
            c.log.finish(timeout=5.0)
        try:
            tail = (self.workdir / "child.log").read_text(errors="replace")[-800:]
        except OSError:
            pass
        return JobFailed(cls, text + (f"\nlast output:\n{tail}" if tail else ""), case)

    # -- one case -----------------------------------------------------------------------------------
    def _prepare(self, case: Case, reference: bool = True, alt_poison: bool = False, seed: int | None = None,
                 replay: Any = None) -> tuple[Call, Call | None, list[Expected], Path]:
        """Build a case's inputs (seeded, so every call with the same seed builds the same ones), save
        them for the child, and (unless only timing needs them) keep a pristine copy and compute the
        reference. ``seed``: the inputs' seed (default: the case's own, :attr:`Case.seed`).
        ``alt_poison``: outputs get the alternate poison pattern (ghost replay, and the
        alternate-poison re-run of a passed case). ``replay``: the replay
        log a ghost run replays, saved with the inputs."""
        t0 = time.perf_counter()
        gen = generator(self.device, case.seed if seed is None else seed)
        with poison_variant(alt_poison):
            call = self.op.build(case.params, self.device, gen)
        before = call.clone() if reference else None
        expected = self.op.reference(case.params, call.clone()) if reference else []
        self.times["reference_s"] += time.perf_counter() - t0
        t1 = time.perf_counter()
        self._io_n += 1
        inp = self.io / f"{self._io_n:05d}.in.pt"  # neutral names: nothing tells a replay from a case
        data = {"args": call.args, "kwargs": call.kwargs, "written": list(call.written), "api": call.api}
        if replay is not None:
            data["replay"] = replay
        torch.save(data, inp)
        self.times["save_s"] += time.perf_counter() - t1
        return call, before, expected, inp

    def _run_case(self, case: Case, entry: dict[str, Any], seed: int | None = None, mode: str = "normal",
                  replay: Any = None, alt: bool = False) -> dict[str, Any] | None:
        """Run one case in the child and judge it.

        Args:
            case: the case.
            entry: its record entry (status, launches, message) — updated by normal runs, and by a
                failing re-run.
            seed: the inputs' seed (None: the case's own).
            mode: ``"normal"`` (a correctness run), ``"rerun"`` (L2's decoy: a normal run of inputs
                already run once, judged like a correctness run) or ``"ghost"`` (L2 ghost replay of those
                inputs, every launch a no-op, replaying ``replay``).
            replay: the replay log of a normal run on the same inputs (ghost mode).
            alt: the alternate-poison re-run of a passed case (:meth:`_rerun_alt_poison`; with mode
                ``"rerun"``): the outputs ``op.build`` makes and the candidate's allocations get the
                alternate pattern.

        Returns:
            Normal and re-run: the evidence (trace, launches, trivial, needs_launch, bytes, the run's
            replay log), or None when the run failed (the failure is recorded). Ghost: what
            :meth:`_judge_ghost` found.

        Raises:
            JobFailed: the child timed out or died, the sandbox could not run the case, or the timers
                were tampered with.
        """
        assert self.child is not None
        ghost = mode == "ghost"
        _, before, expected, inp = self._prepare(case, alt_poison=ghost or alt, seed=seed, replay=replay if ghost else None)
        out_path = inp.with_name(inp.name.replace(".in.pt", ".out.pt"))
        where = f"case {case.id} ({case.describe()})" + (
            ", re-run with the alternate poison pattern" if alt else
            ", run a second time on the same inputs (L2)" if mode == "rerun" else
            ", ghost replay (L2)" if ghost else "")
        t0 = time.perf_counter()
        try:
            self.child.send({"cmd": "case", "inp": str(inp), "out": str(out_path), "ghost": ghost, "alt_poison": alt})
            msg = self.child.recv(self.settings.case_timeout_s)
        except ChildTimeout as exc:
            self.child = None
            self.times["hung_s"] += time.perf_counter() - t0
            slow = self._interpreter_too_slow(exc)
            if slow is not None:
                # slow, not stuck: the case cannot be judged on the interpreter; the rest of the job goes on
                # in a fresh sandbox process
                if mode == "normal" or alt:
                    entry.update(status="unsupported", message=slow, untimed="unsupported on this platform")
                    self.record["unsupported_reason"] = self.record["unsupported_reason"] or slow
                self._start_child()
                return None
            jf = JobFailed("timeout", f"{where} exceeded {self.settings.case_timeout_s:.0f} s "
                                      f"(process group killed)", case)
            if not ghost:
                entry.update(status="failed", message=str(jf))
            raise jf from None
        except ChildDied as exc:
            self.child = None
            self.times["candidate_s"] += time.perf_counter() - t0  # it died running the case
            jf = self._died(exc, case)
            if not ghost:
                entry.update(status="failed", message=str(jf))
            raise jf from None
        wall = time.perf_counter() - t0
        if mode == "normal":
            self.times["child_case_s"] += wall
            self.times["candidate_s"] += float(msg.get("wall_s") or 0.0)
        if msg.get("event") == "harness_error":
            err = msg.get("error") or {}
            tb = err.get("traceback_full") or err.get("traceback") or ""
            self._log_traceback(f"{where}: harness error in the sandbox", tb)
            raise JobFailed("platform", f"{where}: the sandbox could not run the case: {err.get('type')}: "
                                        f"{err.get('message')}\n{condense_traceback(tb, self.spec.submission)}"
                                        f"{self._log_hint()}", case)
        if msg.get("event") != "case":
            raise JobFailed("platform", f"unexpected message from the sandbox: {msg.get('event')!r}", case)
        if msg.get("timers_tampered"):
            raise JobFailed("timer_tampering", f"timer functions replaced during {where}: "
                                               f"{msg['timers_tampered']}", case)
        self._check_launch(msg, where, case)
        t_load = time.perf_counter()
        try:
            out = torch.load(out_path, map_location=self.device, weights_only=True)
        except Exception as exc:  # noqa: BLE001 - what the candidate returned cannot even be loaded
            raise JobFailed("wrong_result", f"{where}: the candidate's outputs could not be loaded "
                                            f"({type(exc).__name__}: {str(exc)[:300]})", case) from None
        self.times["load_s"] += time.perf_counter() - t_load
        if not isinstance(out, dict):
            raise JobFailed("wrong_result", f"{where}: the sandbox returned no outputs", case)
        if ghost:
            return self._judge_ghost(case, out, expected, msg.get("replay"), replay)
        assert before is not None
        evidence = {"trace": msg.get("trace") or {}, "launches": msg.get("launches") or [],
                    "trivial": _trivial(expected, before, self.platform.tolerance_scale), "needs_launch": before.needs_launch,
                    "bytes": sum(t.numel() * t.element_size() for t in
                                 (before.get(s) for s in before.tensor_slots())),
                    "replay_log": out.get("replay_log")}
        target = entry if mode == "normal" else {}
        target.update(launches=len(evidence["launches"]), wall_s=round(wall, 4),
                      kernels=sorted(set(evidence["launches"]))[:8])
        t_j = time.perf_counter()
        try:
            verdict = self._judge(case, msg, out, expected, before, target)
        except Exception as exc:  # noqa: BLE001 - malformed outputs (meta tensors, odd types) are wrong
            verdict = ("wrong_result", f"the candidate's outputs could not be compared with the reference "
                                       f"({type(exc).__name__}: {str(exc)[:300]})")
        self.times["judge_s"] += time.perf_counter() - t_j
        if verdict is not None and verdict[0] == "unsupported":
            # the platform cannot judge this case (an interpreter limit): neither passed nor failed
            if mode == "normal" or alt:
                entry.update(status="unsupported", message=verdict[1], untimed="unsupported on this platform")
                self.record["unsupported_reason"] = self.record["unsupported_reason"] or verdict[1]
            return None
        if verdict is not None:
            cls, message = verdict
            if alt:
                message = ("re-run with the alternate poison pattern (the first run's output held the main pattern "
                           "where the reference equals it, so those elements may never have been written): "
                           + message)
            elif mode == "rerun":
                message = f"run a second time on the same inputs (L2): {message}"
            entry.update(status="failed", failure_class=cls, message=message)
            self.fail(cls, f"case {case.id} ({case.describe()}): {message}", case)
            return None
        if mode == "rerun":
            return evidence
        entry["status"] = "passed"
        if not self._rerun_alt_poison(case, entry, out, expected, before, seed):
            return None
        if _all_outputs_empty(expected):
            entry["untimed"] = "empty output: nothing to time"
        elif evidence["trivial"] and not evidence["launches"]:
            entry["untimed"] = "a no-op is right for this case and the candidate launched nothing: nothing to time"
        return evidence

    def _rerun_alt_poison(self, case: Case, entry: dict[str, Any], out: dict[str, Any], expected: list[Expected],
                          before: Call, seed: int | None = None) -> bool:
        """Every output element must be shown written in some judged run: where the passed run's
        output still holds the main poison pattern of an integer or bool dtype (the reference equals
        it there; :func:`_unproven_writes`), the case runs again with the alternate pattern and must
        pass again (same inputs: ``seed``, None for the case's own). Records ``alt_poison_rerun`` (the
        slots) in the case's entry. Returns False when the re-run failed (the job has failed)."""
        def alt_build() -> Call:
            with poison_variant(True):
                return self.op.build(case.params, self.device,
                                     generator(self.device, case.seed if seed is None else seed))

        slots = _unproven_writes(expected, out, before, alt_build)
        if not slots:
            return True
        entry["alt_poison_rerun"] = True
        entry["alt_poison_slots"] = slots
        scratch: dict[str, Any] = {}
        try:
            res = self._run_case(case, scratch, seed=seed, mode="rerun", alt=True)
        except JobFailed as jf:
            entry.update(status="failed", failure_class=jf.cls, message=f"alternate-poison re-run: {jf}")
            raise
        if res is None:
            if scratch.get("status") == "unsupported":
                entry.update(status="unsupported", message=scratch.get("message"), untimed="unsupported on this platform")
            else:
                entry.update(status="failed", failure_class=scratch.get("failure_class"), message=scratch.get("message"))
            return False
        return True

    def _judge(self, case: Case, msg: dict[str, Any], out: dict[str, Any], expected: list[Expected],
               before: Call, entry: dict[str, Any]) -> tuple[str, str] | None:
        err = msg.get("error")
        if err:
            cls = classify_error(err, self.platform)
            text = f"{err.get('type')}: {err.get('message')}"
            tb = err.get("traceback_full") or err.get("traceback") or ""
            if tb:
                self._log_traceback(f"case {case.id} ({case.describe()}): {cls}", tb)
                text += "\n" + condense_traceback(tb, self.spec.submission) + self._log_hint()
            if cls == "platform" and self.platform.interpreter:
                # a limit of the CPU interpreter, not the kernel's fault: the case cannot be judged here, as
                # bf16 cases cannot (verify/failures.py interpreter_limit)
                why = interpreter_limit(err) or "the interpreter failed"
                return "unsupported", f"the Triton CPU interpreter cannot run this case: {why}"
            return cls, text
        tv = l3.judge_trace(msg.get("trace") or {}, frozenset(getattr(self.op, "own_ops", frozenset())),
                            getattr(self.op, "allow_copies", True), self.op.allow_trace, self.op.data_movement)
        if tv.failure:
            return tv.failure, "L3 dispatch trace: " + tv.message
        stale = msg.get("stale_outputs") or []
        if stale:
            return "profile", f"L3 memory provenance: {stale[0]}; a result must be a new tensor of its call"
        if not msg.get("wrapper_calls"):
            return "not_exercised", ("the candidate was never called: the native op answered the public call "
                                     "(is the wrapper for the reached overload defined?)")
        # Cases of operators with nothing to compute carry needs_launch=False (their rule,
        # suite/spec.py NothingToCompute), except where PyTorch computes (reshape's copy path).
        if not msg.get("launches") and before.needs_launch \
                and not _all_outputs_empty(expected) and not _trivial(expected, before, self.platform.tolerance_scale):
            return "not_exercised", "no Triton kernel was launched for this case"
        bad, worst = self._judge_values(out, expected)
        if bad is not None:
            entry.update(max_abs=worst.max_abs, max_rel=worst.max_rel, rule=worst.rule)
            return "wrong_result", bad
        for slot in before.unchanged_slots():
            key = f"arg.{slot}"
            res = unchanged(before.get(slot), _resolve(key, out), key)
            if not res.ok:
                return "wrong_result", res.message
        entry.update(max_abs=worst.max_abs, max_rel=worst.max_rel, rule=worst.rule)
        return None

    def _judge_values(self, out: dict[str, Any], expected: list[Expected]) -> tuple[str | None, SlotResult]:
        """Compare every expected slot: :func:`judge_values` with the platform's tolerance scale."""
        return judge_values(out, expected, self.platform.tolerance_scale)

    # -- L2 ------------------------------------------------------------------------------------------
    def _judge_ghost(self, case: Case, out: dict[str, Any], expected: list[Expected],
                     replay: dict[str, Any] | None, log: dict[str, Any] | None = None) -> dict[str, Any]:
        """A replayed case "still passes" only if every output is right and at least one output
        differs from the ghost poison pattern (an expected all-False bool result is exactly what an
        unwritten output holds: such a case cannot tell a no-op from a kernel), and its result could not
        be made of the values that Triton-derived host reads handed back (``log``: the normal run's
        replay log, whose reads of memory a launch of the call received are marked ``triton``;
        :func:`from_triton_reads`): a kernel's result read back with ``.item()`` and returned or
        re-wrapped is the kernel's work, which the replay hands back. ``replay`` is the child's replay
        report (:meth:`hooks.State.end_case`); the result carries it, and ``diverged`` says what the
        replay did differently from the normal run it replayed (None when nothing)."""
        res: dict[str, Any] = {"replay": replay, "diverged": _divergence(replay)}
        if all((exp.value is None and exp.check is None) or _equals_ghost_poison(exp) for exp in expected):
            return {**res, "ghost_passed": False, "uninformative": True}
        passed = True
        for exp in expected:
            if exp.value is None and exp.check is None:
                continue
            try:
                actual = _resolve(exp.slot, out)
                ok = (_run_check(exp, actual, out) if exp.check is not None
                      else compare_slot(exp, actual, self.platform.tolerance_scale)).ok
            except Exception:  # noqa: BLE001 - uncomparable output: it did not pass
                ok = False
            if not ok:
                passed = False
                break
        if passed:
            values = triton_read_values(log, replay)
            if values and from_triton_reads(expected, out, values):
                return {**res, "ghost_passed": False, "from_triton_reads": len(values)}
        return {**res, "ghost_passed": passed}

    def _l2_plan(self, judged: list[Case]) -> dict[int, int]:
        """Choose the cases L2 replays and the secret seeds of their inputs: ``{case index: seed}``.

        Every judged case when there are at most ``ghost_cases``; else the first case, the smallest
        half of the others (replays cost little) and the rest drawn at random by the verifier's secret
        RNG, so that a candidate cannot confine a cheat to cases it knows are never replayed. Size is
        the case's cost-model bytes (a shape-derived proxy where the cost model has none).

        A replayed case's correctness run draws its inputs from ``case.seed ^ salt`` (a 62-bit salt
        drawn per job from ``os.urandom``; recorded as the entry's ``input_seed``) instead of
        ``case.seed``: the candidate cannot have seen or precomputed them. The ghost replay's host reads
        are replayed from a later normal run on them (the warm re-run or a decoy, :func:`ghost_schedule`),
        never from this first sighting.
        """
        n = self.settings.ghost_cases
        pool = list(judged)
        if len(pool) > n:
            first, rest = pool[0], pool[1:]
            small = sorted(rest, key=lambda c: (case_size(self.op, c.params), c.index))[: n // 2]
            others = [c for c in rest if c not in small]
            pool = [first, *small, *self._rng.sample(others, max(0, n - 1 - len(small)))]
        salt = self._rng.getrandbits(62) if self.settings.l2_salt is None else self.settings.l2_salt
        return {c.index: c.seed ^ salt for c in pool}

    def _l2_verdict(self, done: list[str], by_index: dict[int, Case], ghosts: dict[int, dict[str, Any]],
                    l2_cases: dict[str, dict[str, Any]]) -> None:
        """L2's record and verdict, once every run of the schedule is done (``done``: the runs made, in
        order, ``c3``/``r3``/``g3`` for case 3's correctness run, re-run and ghost replay; ``ghosts``:
        the replays' results by case index; ``l2_cases``: per replayed case, its input seed and what
        became of its re-runs and replay). The job fails as ``ghost``
        when a ghost replay still produced the right result, or when it diverged from the normal run it
        replayed (another host read or launch than in the normal run on the same inputs: behaviour that
        depends on being replayed — or on having seen the inputs before — is exactly what L2 must not
        let decide the verdict). A correctness failure is reported first (the replays after it are
        skipped)."""
        still = [by_index[i] for i, g in ghosts.items() if g.get("ghost_passed")]
        diverged = [(by_index[i], g["diverged"]) for i, g in ghosts.items() if g.get("diverged")]
        self.record["anti_hack"]["L2"] = {
            "ok": not still and not diverged, "checked": len(ghosts),
            "passed_without_triton": [c.id for c in still], "diverged": [c.id for c, _ in diverged],
            # host reads of memory a launch of the call received, replayed (values a kernel computed), and
            # the replays whose right result was made of such values (not counted as passed without Triton)
            "triton_derived_reads": sum(int((g.get("replay") or {}).get("triton_reads_replayed") or 0)
                                        for g in ghosts.values()),
            "passed_from_triton_reads": [by_index[i].id for i, g in ghosts.items() if g.get("from_triton_reads")],
            "cases": l2_cases, "order": " ".join(done),
            "method": "replayed cases run on secret inputs; each is run again normally (a warm re-run, then "
                      "decoy re-runs) and replayed with launches as no-ops after the warm re-run, at random "
                      "positions, host reads and launch outcomes replayed from the latest normal run on the "
                      "same inputs (never the first sighting)"}
        if self.op.nothing_to_compute and not ghosts:
            self.record["anti_hack"]["L2"]["note"] = (
                f"nothing to compute ({self.op.nothing_to_compute.kind}): no case needs a Triton launch, so there "
                f"is nothing to replay")
        if self.record["failure_class"] is not None:
            return
        if still:
            c = still[0]
            self.fail("ghost", f"L2 ghost replay: case {c.id} ({c.describe()}) still produced the right result with "
                               f"every Triton launch turned into a no-op ({len(still)} of {len(ghosts)} replayed "
                               f"cases); the result was not computed by Triton", c)
        elif diverged:
            c, why = diverged[0]
            self.fail("ghost", f"L2 ghost replay: case {c.id} ({c.describe()}): {why}; a wrapper given the same "
                               f"inputs and reading the same values must make the same host reads and launches, "
                               f"whether or not it has seen the inputs before — one that behaves differently when "
                               f"replayed cannot be judged by its kernels", c)

    # -- L3 kernel list ------------------------------------------------------------------------------
    def _kernel_list(self, case: Case) -> None:
        assert self.child is not None
        _, _, _, inp = self._prepare(case, reference=False)
        out_path = self.io / f"{case.tier}-{case.index}.prof.pt"
        try:
            self.child.send({"cmd": "case", "inp": str(inp), "out": str(out_path), "profile": True})
            msg = self.child.recv(self.settings.case_timeout_s)
        except (ChildTimeout, ChildDied) as exc:
            self.child = None
            raise JobFailed("runtime_error", f"profiling case {case.id}: {exc}", case) from None
        kernels = msg.get("kernels") or []
        verdict = l3.judge_kernels(kernels, msg.get("launches") or [])
        l3rec = self.record["anti_hack"]["L3"]
        l3rec["kernels"] = kernels[:20]
        l3rec["profiled_case"] = case.id
        if verdict.failure:
            l3rec["ok"] = False
            self.fail(verdict.failure, f"L3 kernel list, case {case.id}: {verdict.message}", case)

    # -- timing --------------------------------------------------------------------------------------
    def _timing(self, cases: list[Case]) -> None:
        by_id = {e["id"]: e for e in self.cases}
        timed = [c for c in cases if c.timed and not by_id[c.id].get("untimed")]
        self.record["timing"] = {"applicable": True, "reps": self.settings.reps, "warmup_ms": self.settings.warmup_ms,
                                 "method": "device time: alternating blocks, fresh input values every repetition (both sides "
                                           "the same), L2 flush (256 MB), "
                                           "device spin so the host is ahead, CUDA events, median; host issue "
                                           "time per call reported beside it (*_host_ms); the job has the GPU "
                                           "alone while it times (other slots of the GPU wait: run/gate.py); "
                                           f"{self.settings.timing_checks} random timed candidate repetitions "
                                           "judged",
                                 "timed_cases": len(timed)}
        skipped = sum(1 for c in cases if c.timed and by_id[c.id].get("untimed"))
        if skipped:
            self.record["timing"]["untimed_cases"] = skipped
        speedups: list[float] = []
        sols: list[float] = []
        for case in timed:
            entry = by_id[case.id]
            msg = self._time_one(case)
            b, c = float(msg["baseline_ms"]), float(msg["candidate_ms"])
            if b / c > self.settings.implausible_speedup:
                # Implausible: measure again in a fresh process and keep the slower candidate time.
                if self.child is not None:
                    self.child.close()
                self._start_child()
                again = self._time_one(case)
                entry["remeasured"] = {"first_ms": [round(b, 5), round(c, 5)],
                                       "fresh_ms": [round(float(again["baseline_ms"]), 5),
                                                    round(float(again["candidate_ms"]), 5)]}
                if float(again["baseline_ms"]) / float(again["candidate_ms"]) < b / c:
                    msg = again
                    b, c = float(msg["baseline_ms"]), float(msg["candidate_ms"])
            self.record["baseline"] = msg.get("baseline")
            cost = self.op.cost(case.params)
            sp = b / c
            gbps = cost.bytes / (c * 1e-3) / 1e9 if cost.bytes else None
            tflops = cost.flops / (c * 1e-3) / 1e12 if cost.flops else None
            sol = self._sol(cost, c)
            entry.update(baseline_ms=round(b, 5), candidate_ms=round(c, 5), speedup=round(sp, 4),
                         gbps=round(gbps, 2) if gbps else None, tflops=round(tflops, 3) if tflops else None,
                         sol_pct=round(sol, 2) if sol is not None else None,
                         baseline_host_ms=_round(msg.get("baseline_host_ms")),
                         candidate_host_ms=_round(msg.get("candidate_host_ms")),
                         input_build_ms=_round(msg.get("build_ms")),
                         baseline_spread=_spread(msg.get("baseline_samples")),
                         candidate_spread=_spread(msg.get("candidate_samples")))
            speedups.append(sp)
            if sol is not None:
                sols.append(sol)
        if speedups:
            self.record["speedup"] = round(math.exp(sum(math.log(s) for s in speedups) / len(speedups)), 4)
        if sols:
            self.record["sol_pct"] = round(statistics.median(sols), 2)

    def _time_one(self, case: Case) -> dict[str, Any]:
        """Time one case in the child; judge the integrity of what it reports.

        The warm-up calls use two input sets drawn with seeds other than the correctness run's; every
        timed repetition gets a fresh input set the child builds from its own seed
        (:func:`~kernelgenbench.verify.timing.timed_set_seed` of a secret per-case seed), so no
        timed call sees values seen before. ``Settings.timing_checks`` randomly chosen timed
        candidate repetitions are sent back and judged like a correctness case against a reference
        the verifier computes from its own rebuild of their inputs: a candidate that behaves
        differently when it is timed, or answers from a cache, fails.
        """
        sets = []
        for salt in (0x9E3779B1, 0x85EBCA6B):
            gen = generator(self.device, case.seed ^ salt)
            call = self.op.build(case.params, self.device, gen)
            sets.append({"args": call.args, "kwargs": call.kwargs, "written": list(call.written), "api": call.api,
                         "needs_launch": call.needs_launch})
        base_seed = self._rng.getrandbits(62)
        inp = self.io / f"{case.tier}-{case.index}.time.pt"
        torch.save({"sets": sets, "params": case.params, "seed": base_seed}, inp)
        del sets
        total = timed_repetitions(self.settings.reps)
        check = sorted(self._rng.sample(range(total), min(total, self.settings.timing_checks)))
        check_out = self.io / f"{case.tier}-{case.index}.timecheck.pt"
        t0 = time.perf_counter()
        try:
            assert self.child is not None
            self.child.send({"cmd": "time", "inp": str(inp), "reps": self.settings.reps,
                             "warmup_ms": self.settings.warmup_ms, "check": check, "check_out": str(check_out)})
            msg = self.child.recv(self.settings.time_timeout_s)
        except ChildTimeout:
            self.child = None
            raise JobFailed("timeout", f"timing case {case.id} exceeded {self.settings.time_timeout_s:.0f} s",
                            case) from None
        except ChildDied as exc:
            self.child = None
            raise self._died(exc, case) from None
        wall_ms = (time.perf_counter() - t0) * 1e3
        self._check_launch(msg, f"timing case {case.id}", case)
        if msg.get("error"):
            err = msg["error"]
            text = f"{err.get('type')}: {err.get('message')}"
            cls = "timer_tampering" if "timing check failed" in text else (
                "not_exercised" if "launched no Triton kernel" in text else classify_error(err, self.platform))
            raise JobFailed(cls, f"timing case {case.id}: {text}", case)
        if msg.get("timers_tampered"):
            raise JobFailed("timer_tampering", f"timer functions replaced: {msg['timers_tampered']}", case)
        # the timed calls' ATen ops, judged like a correctness call's (a candidate that computes with
        # PyTorch or a vendor library only when it is timed fails here)
        tv = l3.judge_trace(msg.get("timed_trace") or {}, frozenset(getattr(self.op, "own_ops", frozenset())),
                            getattr(self.op, "allow_copies", True), self.op.allow_trace, self.op.data_movement)
        if tv.failure:
            raise JobFailed(tv.failure, f"timing case {case.id}: L3 dispatch trace of the timed candidate calls "
                                        f"(the most of each op in one call): {tv.message}", case)
        if msg.get("stale_outputs"):
            raise JobFailed("profile", f"timing case {case.id}: L3 memory provenance of the timed candidate calls: "
                                       f"{msg['stale_outputs'][0]}; a result must be a new tensor of its call "
                                       f"(a pooled buffer lets timed calls allocate nothing)", case)
        extra = timed_ops_beyond(msg.get("timed_trace") or {}, self._case_traces.get(case.id))
        if extra:
            raise JobFailed("profile", f"timing case {case.id}: a timed candidate call ran ATen ops its correctness "
                                       f"run on the same case did not ({extra}); a candidate must compute the same "
                                       f"way when it is timed (the ghost replay that proves a Triton kernel "
                                       f"computes the result cannot run inside timing)", case)
        b, c = float(msg["baseline_ms"]), float(msg["candidate_ms"])
        reported = sum(msg.get("event_total_ms", {}).values())
        if reported > wall_ms * 1.05 + 1.0:
            raise JobFailed("timer_tampering", f"timing case {case.id}: the child reported {reported:.2f} ms of "
                                               f"device time in a command the verifier saw take {wall_ms:.2f} ms", case)
        if not (math.isfinite(b) and math.isfinite(c) and b > 0 and c > 0):
            raise JobFailed("timer_tampering", f"timing case {case.id}: implausible times {b}, {c}", case)
        try:
            kept = torch.load(check_out, map_location=self.device, weights_only=True)
        except Exception as exc:  # noqa: BLE001
            raise JobFailed("timer_tampering", f"timing case {case.id}: the checked timed repetitions were not "
                                               f"returned ({type(exc).__name__})", case) from None
        for k in check:
            out = kept.get(str(k)) if isinstance(kept, dict) else None
            if not isinstance(out, dict):
                raise JobFailed("timer_tampering", f"timing case {case.id}: timed repetition {k} missing", case)
            call = self.op.build(case.params, self.device, generator(self.device, timed_set_seed(base_seed, k)))
            exp = self.op.reference(case.params, call.clone())
            try:
                bad, _ = self._judge_values(out, exp)
            except Exception as exc:  # noqa: BLE001
                bad = f"{type(exc).__name__}: {exc}"
            if bad is not None:
                raise JobFailed("wrong_result", f"timing case {case.id}: the output of timed candidate repetition "
                                                f"{k} (fresh inputs) is wrong ({bad}); a kernel must compute the "
                                                f"same function when it is timed", case)
        return msg

    def _sol(self, cost: Any, ms: float) -> float | None:
        """% of speed-of-light: the floor time from the cost model and the measured ceilings, over
        the measured time."""
        bw = self.ceilings.get("bandwidth_gbps")
        floors = []
        if bw and cost.bytes:
            floors.append(cost.bytes / (bw * 1e9))
        peak = self.ceilings.get(f"{cost.compute}_tflops") if cost.compute != "none" else None
        if peak and cost.flops:
            floors.append(cost.flops / (peak * 1e12))
        if not floors:
            return None
        return 100.0 * max(floors) / (ms * 1e-3)


def _check_launch_violations(msg: dict[str, Any], where: str, case: Case | None = None) -> None:
    """L3 launch rule: the child recorded a launch that handed a kernel something other than a Triton
    value, or a kernel body that reads a global that is not one (``sandbox/launch_args.py``). The
    record is kept by the child whatever the submission caught, and wins over any error it caused."""
    found = msg.get("launch_violations") or []
    if found:
        raise JobFailed("profile", f"L3 launch check ({where}): {found[0]}", case)


def _round(ms: Any) -> float | None:
    return round(float(ms), 5) if isinstance(ms, (int, float)) else None


def _spread(samples: Any) -> float | None:
    """Relative interquartile spread of timing samples (IQR / median)."""
    if not samples or len(samples) < 4:
        return None
    q = statistics.quantiles(samples, n=4)
    med = statistics.median(samples)
    return round((q[2] - q[0]) / med, 4) if med > 0 else None

