"""Correctness of one case (DESIGN.md "Verification"): build its inputs, run the candidate on them in the
sandbox, judge what comes back.

:class:`CaseJudge` runs one case end to end for the verifier (``run/job.py``): :meth:`~CaseJudge.prepare`
builds the inputs (seeded), keeps a pristine copy and computes the reference; :meth:`~CaseJudge.run_case`
sends them to the child (:class:`~kernelgenbench.sandbox.protocol.CaseCommand`), loads the outputs and
judges them (:meth:`~CaseJudge.judge`: the child's error, the L3 dispatch trace and memory provenance, that
the wrapper ran and launched, the values, the untouched and unchanged memory); a passed case whose output
still holds an ambiguous poison pattern runs again with the alternate pattern
(:meth:`~CaseJudge.rerun_alt_poison`). L2 (``verify/ghost.py``) drives the same runs as re-runs and ghost
replays; :meth:`~CaseJudge.kernel_list` is L3's kernel list of one case (CUDA).

The module functions judge outputs without a sandbox: :func:`judge_values` (also ``kgb repro``'s
comparison), :func:`resolve_slot`, :func:`run_check`, and the bookkeeping of :func:`_trivial` (a no-op
would pass), :func:`_all_outputs_empty` and :func:`_unproven_writes` (which slots need the re-run).

Trusted side: nothing here imports the submission.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from ..platforms import Platform
from ..record import CaseRecord, JobRecord, L3Record, PhaseTimes
from ..sandbox.protocol import CaseAnswer, CaseCommand, HarnessError
from ..sandbox.runner import ChildDied, ChildTimeout
from ..suite.common import generator
from ..suite.compare import name_arg_slot
from ..suite.spec import Call, Case, Expected, Operator, storage_view
from . import profile as l3
from .compare import (
    SlotResult,
    compare_nothing_to_compute,
    compare_slot,
    compare_values,
    holds_poison,
    poison_is_ambiguous,
    poison_variant,
    unchanged,
)
from .failures import JobFailed, classify_error, condense_traceback, interpreter_limit, platform_cause

if TYPE_CHECKING:  # annotations only: the verifier's pipeline passes them in
    from ..settings import Settings
    from .session import ChildSession


def resolve_slot(slot: str, out: dict[str, Any]) -> Any:
    """The value of an output slot (``return``, ``return.1``, ``arg.0``, ``arg.out``, ``arg.0.1``: element 1 of the
    list argument 0) in a case's outputs; None where the outputs hold no such value."""
    if slot == "return":
        return out.get("ret")
    if slot.startswith("return."):
        ret = out.get("ret")
        i = int(slot.split(".", 1)[1])
        return ret[i] if isinstance(ret, (list, tuple)) and i < len(ret) else None
    if slot.startswith("arg."):
        key, *path = slot.split(".", 1)[1].split(".")
        if key.isdigit():
            args = out.get("args") or []
            value = args[int(key)] if int(key) < len(args) else None
        else:
            value = (out.get("kwargs") or {}).get(key)
        for part in path:  # an element of a list argument (``arg.0.1``)
            if not isinstance(value, (list, tuple)) or not part.isdigit() or int(part) >= len(value):
                return None
            value = value[int(part)]
        return value
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


def run_check(exp: Expected, actual: Any, out: dict[str, Any]) -> SlotResult:
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
        actual = resolve_slot(exp.slot, out)
        if exp.slot == "return" and exp.value is None and exp.alias:
            target = resolve_slot(exp.alias, out)
            if not _same_object(actual, target):
                return (f"the call must return its output argument ({exp.alias}) itself; "
                        f"got {out.get('ret_type')}"), worst
            continue
        if exp.check is not None:  # custom judge (random samples, ties): Expected.check
            res = run_check(exp, actual, out)
        elif exp.rule is not None:  # nothing to compute: aliasing, layout, type, device (NothingToCompute)
            args = [*(out.get("args") or []), *(out.get("kwargs") or {}).values()]
            res = compare_nothing_to_compute(
                exp, actual, alias_target=resolve_slot(exp.alias_of, out) if exp.alias_of else None,
                inputs=tuple(a for a in args if isinstance(a, torch.Tensor)),
                device_type=_resolve_device(exp.slot, out))
        else:
            res = compare_slot(exp, actual, tolerance_scale)
        if not res.ok:
            return res.message, res
        if res.max_abs >= worst.max_abs:
            worst = res
    return None, worst


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
        actual = resolve_slot(exp.slot, out)
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


@dataclass
class CaseEvidence:
    """What a passed (or re-run) case showed, for L2 and timing.

    Attributes:
        trace: the ATen ops of the run (op key -> count); launches: its Triton launches.
        trivial: a no-op would pass the case (:func:`_trivial`); needs_launch: the case needs a launch
            (False for nothing-to-compute cases).
        bytes: the bytes of its input tensors.
        replay_log: the run's replay log (its host reads and launch outcomes), for a ghost replay.
    """

    trace: dict[str, int]
    launches: list[str]
    trivial: bool
    needs_launch: bool
    bytes: int
    replay_log: Any


@dataclass
class GhostRun:
    """A ghost replay's raw result, for L2 to judge (``verify/ghost.py`` ``judge_ghost``): the outputs, the
    reference, the child's replay report and the replay log that was replayed."""

    out: dict[str, Any]
    expected: list[Expected]
    report: dict[str, Any] | None
    log: Any


class CaseJudge:
    """Runs and judges the cases of one job in its sandbox session.

    Args:
        op, platform, device: the operator, the platform and the verifier's device.
        settings: the job's limits (``case_timeout_s``).
        session: the job's sandbox (:class:`~kernelgenbench.verify.session.ChildSession`).
        record: the job's record (failures, the unsupported reason, L3's kernel list).
        times: the job's phase times (reference_s, save_s, child_case_s, candidate_s, load_s, judge_s, hung_s).
        io: the folder of the tensors exchanged with the child.
    """

    def __init__(self, op: Operator, platform: Platform, device: torch.device, settings: Settings,
                 session: ChildSession, record: JobRecord, times: PhaseTimes, io: Path) -> None:
        self.op = op
        self.platform = platform
        self.device = device
        self.settings = settings
        self.session = session
        self.record = record
        self.times = times
        self.io = io
        self._io_n = 0

    def prepare(self, case: Case, reference: bool = True, alt_poison: bool = False, seed: int | None = None,
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
        data = call.saved()
        if replay is not None:
            data["replay"] = replay
        torch.save(data, inp)
        self.times["save_s"] += time.perf_counter() - t1
        return call, before, expected, inp

    def run_case(self, case: Case, entry: CaseRecord, seed: int | None = None, mode: str = "normal",
                 replay: Any = None, alt: bool = False) -> CaseEvidence | GhostRun | None:
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
            alt: the alternate-poison re-run of a passed case (:meth:`rerun_alt_poison`; with mode
                ``"rerun"``): the outputs ``op.build`` makes and the candidate's allocations get the
                alternate pattern.

        Returns:
            Normal and re-run: the :class:`CaseEvidence`, or None when the run failed (the failure is
            recorded). Ghost: the :class:`GhostRun` for L2 to judge (``verify/ghost.py``).

        Raises:
            JobFailed: the child timed out or died, the sandbox could not run the case, or the timers
                were tampered with.
        """
        ghost = mode == "ghost"
        _, before, expected, inp = self.prepare(case, alt_poison=ghost or alt, seed=seed,
                                                replay=replay if ghost else None)
        out_path = inp.with_name(inp.name.replace(".in.pt", ".out.pt"))
        where = f"case {case.id} ({case.describe()})" + (
            ", re-run with the alternate poison pattern" if alt else
            ", run a second time on the same inputs (L2)" if mode == "rerun" else
            ", ghost replay (L2)" if ghost else "")
        t0 = time.perf_counter()
        try:
            msg = self.session.request(CaseCommand(str(inp), str(out_path), ghost=ghost, alt_poison=alt),
                                       self.settings.case_timeout_s)
        except ChildTimeout as exc:
            self.session.drop()
            self.times["hung_s"] += time.perf_counter() - t0
            slow = self.session.interpreter_too_slow(exc, case)
            if slow is not None:
                # slow, not stuck: the case cannot be judged on the interpreter; the rest of the job goes on
                # in a fresh sandbox process
                if mode == "normal" or alt:
                    entry.update(status="unsupported", message=slow, untimed="unsupported on this platform")
                    self.record.note_unsupported(slow, by_kernel=True)
                self.session.start()
                return None
            jf = JobFailed("timeout", f"{where} exceeded {self.settings.case_timeout_s:.0f} s "
                                      f"(process group killed; the Python stacks at the kill, where it was, are in "
                                      f"{self.session.log_path()})", case)
            if not ghost:
                entry.update(status="failed", message=str(jf))
            raise jf from None
        except ChildDied as exc:
            self.session.drop()
            self.times["candidate_s"] += time.perf_counter() - t0  # it died running the case
            jf = self.session.died(exc, case)
            if not ghost:
                entry.update(status="failed", message=str(jf))
            raise jf from None
        wall = time.perf_counter() - t0
        if mode == "normal":
            self.times["child_case_s"] += wall
            self.times["candidate_s"] += float((msg.wall_s if isinstance(msg, CaseAnswer) else None) or 0.0)
        if isinstance(msg, HarnessError):
            err = msg.error or {}
            tb = err.get("traceback_full") or err.get("traceback") or ""
            self.session.log_traceback(f"{where}: harness error in the sandbox", tb)
            raise JobFailed("platform", f"{where}: the sandbox could not run the case: {err.get('type')}: "
                                        f"{err.get('message')}\n{condense_traceback(tb, self.session.submission)}"
                                        f"{self.session.log_hint()}", case)
        if not isinstance(msg, CaseAnswer):
            raise JobFailed("platform", f"unexpected message from the sandbox: {msg.event_name!r}", case)
        if msg.timers_tampered:
            raise JobFailed("timer_tampering", f"timer functions replaced during {where}: "
                                               f"{msg.timers_tampered}", case)
        self.session.check_launch(msg, where, case)
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
            return GhostRun(out, expected, msg.replay, replay)
        assert before is not None
        evidence = CaseEvidence(
            trace=msg.trace, launches=msg.launches,
            trivial=_trivial(expected, before, self.platform.tolerance_scale), needs_launch=before.needs_launch,
            bytes=sum(t.numel() * t.element_size() for t in (before.get(s) for s in before.tensor_slots())),
            replay_log=out.get("replay_log"))
        target = entry if mode == "normal" else CaseRecord(entry.id, entry.params)
        target.update(launches=len(evidence.launches), wall_s=round(wall, 4),
                      kernels=sorted(set(evidence.launches))[:8])
        t_j = time.perf_counter()
        try:
            verdict = self.judge(case, msg, out, expected, before, target)
        except torch.OutOfMemoryError as exc:
            # the verifier's own comparison ran out of device memory (other jobs' processes filled the GPU): not a
            # wrong result; the scheduler judges an oom again alone on the GPU (run/scheduler.py)
            raise JobFailed("oom", f"{where}: out of memory while the verifier compared the candidate's outputs "
                                   f"with the reference ({str(exc)[:300]})", case) from None
        except Exception as exc:  # noqa: BLE001 - malformed outputs (meta tensors, odd types) are wrong
            verdict = ("wrong_result", f"the candidate's outputs could not be compared with the reference "
                                       f"({type(exc).__name__}: {str(exc)[:300]})")
        self.times["judge_s"] += time.perf_counter() - t_j
        if verdict is not None and verdict[0] == "unsupported":
            # the platform cannot judge this case (an interpreter limit): neither passed nor failed
            if mode == "normal" or alt:
                entry.update(status="unsupported", message=verdict[1], untimed="unsupported on this platform")
                self.record.note_unsupported(verdict[1], by_kernel=True)
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
            self.record.fail(cls, f"case {case.id} ({case.describe()}): {message}", case)
            return None
        if mode == "rerun":
            return evidence
        entry.status = "passed"
        if not self.rerun_alt_poison(case, entry, out, expected, before, seed):
            return None
        if _all_outputs_empty(expected):
            entry.untimed = "empty output: nothing to time"
        elif evidence.trivial and not evidence.launches:
            entry.untimed = "a no-op is right for this case and the candidate launched nothing: nothing to time"
        return evidence

    def rerun_alt_poison(self, case: Case, entry: CaseRecord, out: dict[str, Any], expected: list[Expected],
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
        entry.alt_poison_rerun = True
        entry.alt_poison_slots = slots
        scratch = CaseRecord(entry.id, entry.params)
        try:
            res = self.run_case(case, scratch, seed=seed, mode="rerun", alt=True)
        except JobFailed as jf:
            entry.update(status="failed", failure_class=jf.cls, message=f"alternate-poison re-run: {jf}")
            raise
        if res is None:
            if scratch.status == "unsupported":
                entry.update(status="unsupported", message=scratch.message, untimed="unsupported on this platform")
            else:
                entry.update(status="failed", failure_class=scratch.failure_class, message=scratch.message)
            return False
        return True

    def judge(self, case: Case, msg: CaseAnswer, out: dict[str, Any], expected: list[Expected],
              before: Call, entry: CaseRecord) -> tuple[str, str] | None:
        """The verdict on one run: None when it passed, else ``(failure class, message)`` (class
        ``unsupported`` for a limit of the CPU interpreter). Records the comparison's errors in ``entry``."""
        err = msg.error
        if err:
            cls = classify_error(err, self.platform)
            text = f"{err.get('type')}: {err.get('message')}"
            tb = err.get("traceback_full") or err.get("traceback") or ""
            if tb:
                self.session.log_traceback(f"case {case.id} ({case.describe()}): {cls}", tb)
                text += "\n" + condense_traceback(tb, self.session.submission) + self.session.log_hint()
            cause = platform_cause(err, self.platform) if cls == "platform" else None
            if cls == "platform" and self.platform.interpreter and (cause is None or interpreter_limit(err)):
                # a limit of the CPU interpreter, not the kernel's fault: the case cannot be judged here
                # (verify/failures.py interpreter_limit)
                why = interpreter_limit(err) or "the interpreter failed"
                return "unsupported", f"the Triton CPU interpreter cannot run this case: {why}"
            if cause is not None:  # a vendor profile's failure pattern: the platform's fault, not the kernel's
                return cls, f"platform ({self.platform.profile or self.platform.name}): {cause}\n{text}"
            return cls, text
        tv = l3.judge_trace(msg.trace, frozenset(getattr(self.op, "own_ops", frozenset())),
                            getattr(self.op, "allow_copies", True), self.op.allow_trace, self.op.data_movement)
        if tv.failure:
            return tv.failure, "L3 dispatch trace: " + tv.message + l3.where_in_submission(tv, msg.op_sites)
        stale = msg.stale_outputs
        if stale:
            return "profile", f"L3 memory provenance: {stale[0]}"
        if not msg.wrapper_calls:
            return "not_exercised", ("the candidate was never called: the native op answered the public call "
                                     "(is the wrapper for the reached overload defined?)")
        # Cases of operators with nothing to compute carry needs_launch=False (their rule,
        # suite/spec.py NothingToCompute), except where PyTorch computes (reshape's copy path).
        if not msg.launches and before.needs_launch \
                and not _all_outputs_empty(expected) and not _trivial(expected, before, self.platform.tolerance_scale):
            return "not_exercised", "no Triton kernel was launched for this case"
        bad, worst = self.judge_values(out, expected)
        if bad is not None:
            entry.update(max_abs=worst.max_abs, max_rel=worst.max_rel, rule=worst.rule)
            return "wrong_result", bad
        for slot in before.unchanged_slots():
            key = f"arg.{slot}"
            res = unchanged(before.get(slot), resolve_slot(key, out), key)
            if not res.ok:
                return "wrong_result", name_arg_slot(res.message, self.op.interface.params)
        entry.update(max_abs=worst.max_abs, max_rel=worst.max_rel, rule=worst.rule)
        return None

    def judge_values(self, out: dict[str, Any], expected: list[Expected]) -> tuple[str | None, SlotResult]:
        """Compare every expected slot: :func:`judge_values` with the platform's tolerance scale; a failing
        argument slot is named by its parameter where the interface names them (``arg.5 (result)``)."""
        bad, worst = judge_values(out, expected, self.platform.tolerance_scale)
        return name_arg_slot(bad, self.op.interface.params), worst

    def kernel_list(self, case: Case) -> None:
        """L3 kernel list (CUDA): run ``case`` once under the profiler; a device kernel that is not a Triton
        kernel of the submission fails the job (``verify/profile.py`` ``judge_kernels``)."""
        _, _, _, inp = self.prepare(case, reference=False)
        out_path = self.io / f"{case.tier}-{case.index}.prof.pt"
        try:
            msg = self.session.request(CaseCommand(str(inp), str(out_path), profile=True), self.settings.case_timeout_s)
        except (ChildTimeout, ChildDied) as exc:
            self.session.drop()
            raise JobFailed("runtime_error", f"profiling case {case.id}: {exc}", case) from None
        kernels = (msg.kernels if isinstance(msg, CaseAnswer) else None) or []
        verdict = l3.judge_kernels(kernels, (msg.launches if isinstance(msg, CaseAnswer) else None) or [])
        l3rec = self.record.anti_hack.L3
        if l3rec is None:
            l3rec = self.record.anti_hack.L3 = L3Record()
        l3rec.kernels = kernels[:20]
        l3rec.profiled_case = case.id
        if verdict.failure:
            l3rec.ok = False
            self.record.fail(verdict.failure, f"L3 kernel list, case {case.id}: {verdict.message}", case)
