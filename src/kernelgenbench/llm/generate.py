"""Sampling kernels from a model and evaluating every sample (issue 4, items 2 and 4).

For each selected operator (operators in parallel, up to ``concurrency``), samples are drawn one
after another: sample i, round 0 sends the prompt; with reflection, round r > 0 sends the prompt,
the previous round's code as the assistant turn, and its first failure (class, case, message) as a
new user turn. A sample ends at its first passing round. With early stopping (the default when
n == k) an operator's sampling ends at its first correct sample: no request is made after it.

Every round of every sample is judged on one tier selection, by default
:data:`~kernelgenbench.suite.tiers.VERDICT_TIER` (``all``: the smoke, full and held-out cases): a
sample's verdict is its first passing round, so every round's record may be a final verdict, and a
cheaper tier for the intermediate rounds would have to be judged again on every tier when it passed.
Reflection feedback comes from the same record; a failure on a held-out case reaches the model
without its parameters or message (:func:`~kernelgenbench.llm.prompt.reflection_message`).

Every reply is appended to ``samples.jsonl`` before it is evaluated; its code goes to
``kernels/s<i>r<r>/<source>__<op>.py`` (the submission format, so ``kgb eval kernels/s0r0``
evaluates a whole round unchanged), and it is judged by the same pipeline as ``kgb eval``
(:func:`kernelgenbench.run.scheduler.run_jobs` → :class:`~kernelgenbench.run.job.Verifier`),
whose record lands in ``results.jsonl`` with ``label = "s<i>r<r>"``. A reply without a complete
```python block gets a ``no_code`` (or ``truncated``) record there instead. The first correct
sample of each operator is also copied to ``kernels/solved/``.

Re-running resumes: replies already in ``samples.jsonl`` are never requested again, evaluations
already in ``results.jsonl`` are not repeated. ``replay`` re-extracts and re-evaluates the replies
of a ``samples.jsonl`` with no model.
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import shutil
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from ..platforms import Platform
from ..record import JobRecord, cases_cell, tier_case_count
from ..run.job import Settings
from ..run.rundir import RERUN_CLASSES, RunDir, new_run_path
from ..suite.spec import Operator
from ..suite.tiers import VERDICT_TIER, shown_failure, tier_name, tier_parts
from .clients import LLMError
from .extract import LLM_FAILURE_CLASSES, extract_code
from .prompt import Prompt, build_prompt, prompt_hash, reflection_message
from .summary import summarize_run

#: Keys of config.json that must match for a run directory to be resumed: what decides which replies a sample
#: gets and how they are scored (samples per operator, rounds, reflection, early stopping included: a fresh user
#: resumed a 2-round reflection run with ``--rounds 1`` and was shown pass@1 from the older run's second round).
#: The operator selection may differ (the summary covers the selected operators).
IDENTITY_KEYS = ("model", "base_url", "tier", "platform", "profile", "temperature", "max_tokens", "mode", "replay",
                 "n", "rounds", "reflection", "early_stop")


@dataclass
class GenerateConfig:
    """What ``kgb generate`` does.

    Attributes:
        model: ``PROVIDER/NAME`` (``openai/gpt-4o``, ``anthropic/claude-sonnet-4-5``); None in replay.
        base_url: the endpoint (OpenAI-compatible ``.../v1``, or the Anthropic API root).
        ops, source: operator selection, as in ``kgb eval``.
        tier: the tier selection every round of every sample is judged on (``all``, a single tier or a
            comma list; canonical name); default :data:`~kernelgenbench.suite.tiers.VERDICT_TIER`, so
            that a sample's record is a verdict on every case.
        k: the k of pass@k.
        n: samples per operator (default k); n > k turns early stopping off and uses the unbiased
            estimator.
        temperature: sampling temperature.
        max_tokens: output token limit per request.
        rounds: rounds per sample (1 + reflection rounds).
        reflection: send the previous code and its first failure in rounds after the first.
        concurrency: requests in flight at once (also operators sampled in parallel).
        early_stop: stop an operator at its first correct sample (default: n == k).
        mode: prompt mode (``sampling``).
        timeout_s: per-request timeout, seconds.
        max_retries: retries per request on 408/409/429/5xx and connection errors.
        backoff_s: the first retry's backoff, seconds (doubling, jittered, capped at 60 s).
        api_key_env: environment variable with the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
        extra_body: provider-specific request fields.
        replay: a ``samples.jsonl`` to re-evaluate instead of asking a model.
    """

    model: str | None = None
    base_url: str | None = None
    ops: list[str] | None = None
    source: str | None = None
    tier: str = VERDICT_TIER
    k: int = 1
    n: int | None = None
    temperature: float = 0.0
    max_tokens: int = 8192
    rounds: int = 1
    reflection: bool = False
    concurrency: int = 4
    early_stop: bool | None = None
    mode: str = "sampling"
    timeout_s: float = 600.0
    max_retries: int = 6
    backoff_s: float = 2.0
    api_key_env: str | None = None
    extra_body: dict[str, Any] | None = None
    replay: Path | None = None

    def __post_init__(self) -> None:
        try:
            self.tier = tier_name(self.tier)  # the canonical name: run identity, records, summaries
        except ValueError:
            pass  # validate() names it

    @property
    def samples_per_op(self) -> int:
        return self.n or self.k

    @property
    def early(self) -> bool:
        return self.early_stop if self.early_stop is not None else self.samples_per_op <= self.k

    def validate(self) -> None:
        """Raises ValueError naming the offending option."""
        if self.k < 1:
            raise ValueError("--k must be >= 1")
        if self.n is not None and self.n < self.k:
            raise ValueError(f"--n ({self.n}) must be >= --k ({self.k})")
        if self.rounds < 1:
            raise ValueError("--rounds must be >= 1")
        if self.rounds > 1 and not self.reflection:
            raise ValueError("--rounds > 1 needs --reflection (later rounds carry the previous failure)")
        if self.max_tokens < 1:
            raise ValueError("--max-tokens must be >= 1")
        if self.concurrency < 1:
            raise ValueError("--concurrency must be >= 1")
        if self.replay is None and not self.model:
            raise ValueError("--model PROVIDER/NAME is required (or --replay samples.jsonl)")
        try:
            tier_parts(self.tier)
        except ValueError as exc:
            raise ValueError(f"--tier: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["replay"] = str(self.replay.resolve()) if self.replay else None
        d["n"] = self.samples_per_op
        d["early_stop"] = self.early
        return d


def per_operator_rows(scored: dict[str, dict[str, Any]], records: list[dict[str, Any]], tier: str,
                      platform: str) -> list[dict[str, Any]]:
    """``summary.json``'s ``per_operator`` rows of a generate run (the fields of ``kgb eval``'s,
    :func:`~kernelgenbench.metrics.operator_row`): each operator's verdict from its verdict record (the first
    correct sample's, else its last judged round's), with ``status`` passed, failed, unsupported or not_run,
    ``label`` (that sample round), ``speedup`` of the first correct sample, ``wall_s`` of every request and
    evaluation of the operator, ``pass_at_1``, ``pass_at_k`` and ``tokens`` (input + output, every request)."""
    from ..metrics import operator_row

    recs = {(r.get("op"), r.get("label")): r for r in records
            if r.get("tier") == tier and r.get("platform") == platform}
    rows = []
    for op_id, o in scored.items():
        label = o.get("solved_by")
        if label is None:
            judged = [s for s in o.get("per_sample") or [] if s["status"] != "pending"]
            if judged:
                label = sample_label(judged[-1]["sample"], judged[-1]["rounds"] - 1)
        rec = recs.get((op_id, label))
        row = operator_row(rec) if rec else {"op": op_id, "source": o.get("source"), "failure_class": None,
                                              "failure_case": None, "cases": None, "sol_pct": None, "tier": tier}
        row.update(status={"solved": "passed"}.get(o["status"], o["status"]), label=label, speedup=o.get("speedup"),
                   wall_s=o.get("wall_s"), pass_at_1=o.get("pass_at_1"), pass_at_k=o.get("pass_at_k"),
                   tokens=(o.get("tokens") or {}).get("total"))
        if row["status"] == "passed":
            row.update(failure_class=None, failure_case=None)
        rows.append(row)
    return sorted(rows, key=lambda r: (str(r["source"]), str(r["op"])))


def sample_label(i: int, r: int) -> str:
    """The evaluation label of sample i, round r (``s0r1``): also the ``kernels/`` folder."""
    return f"s{i}r{r}"


def sample_id(op_id: str, i: int, r: int) -> str:
    """A sample's id in ``samples.jsonl`` (``vllm::rms_norm:s0r1``)."""
    return f"{op_id}:{sample_label(i, r)}"


def default_name(cfg: GenerateConfig) -> str:
    """The run name when none is given: ``gen-<provider>-<model>`` or ``replay-<file's run>``."""
    if cfg.replay is not None:
        base = f"replay-{cfg.replay.resolve().parent.name}"
    else:
        base = "gen-" + str(cfg.model).replace("/", "-")
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base)[:80]


def open_run(cfg: GenerateConfig, platform: Platform, out: Path | None, runs_root: Path, name: str | None,
             fresh: bool = False) -> RunDir:
    """The run directory: ``out`` exactly, else the latest ``runs_root/*-<name>`` whose config has the
    same identity (:data:`IDENTITY_KEYS`: model, endpoint, tier, platform and emulated profile, temperature, max
    tokens, mode, samples per operator, rounds, reflection, early stopping), else a new one.

    Raises:
        ValueError: ``out`` holds a run of a different identity.
    """
    config = {"command": "kgb generate", **cfg.to_json(), "platform": platform.name}
    if platform.profile:  # the interpreter under a vendor profile (--as-profile): another identity
        config["profile"] = platform.profile
    ident = {k: config.get(k) for k in IDENTITY_KEYS}
    if out is not None:
        cfg_path = out / "config.json"
        if cfg_path.exists():
            old = json.loads(cfg_path.read_text())
            diff = [k for k in IDENTITY_KEYS if old.get(k) != ident[k]]
            if diff:
                raise ValueError(f"{out} holds a run with different {', '.join(diff)} "
                                 f"({', '.join(f'{k}={old.get(k)!r}' for k in diff)}); use another --out")
        rd = RunDir.open(out)
    else:
        rd = None
        runs_root.mkdir(parents=True, exist_ok=True)
        nm = name or default_name(cfg)
        if not fresh:
            for cand in sorted(runs_root.glob(f"*-{nm}"), reverse=True):
                try:
                    old = json.loads((cand / "config.json").read_text())
                except (OSError, json.JSONDecodeError):
                    continue
                if old.get("command") == "kgb generate" and all(old.get(k) == ident[k] for k in IDENTITY_KEYS):
                    rd = RunDir(cand)
                    break
        if rd is None:
            rd = RunDir(new_run_path(runs_root, nm))
    (rd.path / "config.json").write_text(json.dumps(config, indent=2, default=str))
    return rd


class SampleLog:
    """``samples.jsonl``: one line per model reply, append-only (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.by_id: dict[str, dict[str, Any]] = {}
        for line in read_jsonl(path):
            if "sample_id" in line:
                self.by_id[line["sample_id"]] = line

    def get(self, sid: str) -> dict[str, Any] | None:
        with self._lock:
            return self.by_id.get(sid)

    def append(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, default=str, ensure_ascii=False)
        with self._lock:
            with open(self.path, "a") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
            self.by_id[entry["sample_id"]] = entry

    def all(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.by_id.values())


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a ``.jsonl`` file (malformed lines, e.g. from a killed run, skipped)."""
    out = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


class GenerationInterrupted(Exception):
    """Ctrl-C during :meth:`Generation.run`: the sandboxes in flight were killed; every reply and every
    evaluation recorded before is kept (``samples.jsonl``, ``results.jsonl``), and running the same command
    again resumes.

    Attributes:
        path: the run directory.
        recorded: evaluation records in its ``results.jsonl``.
        finished: operators whose sampling ended in this invocation.
        selected: operators selected.
    """

    def __init__(self, path: Path, recorded: int, finished: int, selected: int) -> None:
        super().__init__(f"interrupted: {recorded} evaluations recorded, {finished} of {selected} operators "
                         f"finished, in {path}")
        self.path, self.recorded, self.finished, self.selected = path, recorded, finished, selected


class _Stopped(Exception):
    """Raised in an operator's thread after Ctrl-C: no further request or evaluation, nothing recorded."""


@dataclass
class Event:
    """A progress event for the command line: one judged reply."""

    op: str
    label: str
    status: str
    failure_class: str | None
    cases: str
    message: str
    tokens_in: int
    tokens_out: int
    request_s: float
    eval_s: float
    resumed: bool  # the reply and its verdict were both recorded by an earlier call


class Generation:
    """One ``kgb generate`` run over a set of operators.

    Args:
        cfg: the configuration.
        rundir: the run directory (see :func:`open_run`).
        platform: where samples are judged.
        client: a :class:`~kernelgenbench.llm.clients.Client` (None in replay).
        settings: the verifier's limits.
        jobs: evaluation slots (default as ``kgb eval``: one per GPU, 2 on the interpreter).
        on_event: called after each judged reply.
        on_judge: called with ``(operator id, label)`` when a reply's evaluation starts (one on the interpreter
            may take minutes: the command line says what it is judging meanwhile).
        device_name: the device's name for the prompt's platform section.
        on_operator: called with the operator's id when its sampling (or replay) ended, solved or not, an error
            included (not after Ctrl-C): the command line's bar of operators done.
    """

    def __init__(self, cfg: GenerateConfig, rundir: RunDir, platform: Platform, client: Any = None, *,
                 settings: Settings | None = None, jobs: int | None = None,
                 on_event: Callable[[Event], None] | None = None, device_name: str | None = None,
                 ray: Any = None, on_judge: Callable[[str, str], None] | None = None,
                 on_operator: Callable[[str], None] | None = None) -> None:
        from ..run.scheduler import make_slots

        self.cfg = cfg
        self.rundir = rundir
        self.platform = platform
        self.client = client
        self.settings = settings or Settings()
        self.on_event = on_event
        self.on_judge = on_judge
        self.on_operator = on_operator
        self.device_name = device_name
        self.samples = SampleLog(rundir.path / "samples.jsonl")
        self.slots: "queue.Queue[Any]" = queue.Queue()
        #: a started :class:`~kernelgenbench.run.ray_backend.RayBackend` (``--backend ray``): each sample is judged by
        #: a Ray task holding one GPU (CPUs on the interpreter) instead of a local slot; None: local slots
        self.ray = ray
        self.slot_list = make_slots(platform, jobs) if ray is None else []
        for s in self.slot_list:
            self.slots.put(s)
        self.ceilings: dict[Any, dict[str, Any]] = {}
        self.errors: dict[str, str] = {}
        self.abort = threading.Event()
        #: Ctrl-C: no request or evaluation starts, the sandboxes in flight are killed and their records dropped
        self.interrupted = threading.Event()
        #: operators whose sampling (or replay) ended in this invocation
        self.finished_ops: set[str] = set()
        self._made_now: set[tuple[str, str]] = set()  # (op, label) of the records this call made
        self.fatal: BaseException | None = None
        self.requests_made = 0  # replies received in this invocation
        self.http_attempts = 0  # HTTP attempts behind them (retries included)
        self._lock = threading.Lock()
        self._records_lock = threading.Lock()
        self.replay_lines: dict[str, list[dict[str, Any]]] = {}

    # -- main ------------------------------------------------------------------------------------
    def run(self, ops: list[Operator]) -> dict[str, Any]:
        """Sample (or replay) every operator, then write and return ``summary.json``'s content.

        Raises:
            LLMAuthError: the endpoint refused the credentials (the run stops; resume later).
        """
        from ..run.rundir import environment

        t0 = time.time()
        env = environment(self.platform)
        if self.platform.timing and not self.platform.interpreter and self.ray is None:  # Ray: the workers measure
            import torch

            from ..verify.ceilings import measure

            for s in self.slot_list:
                self.ceilings[s.device] = measure(torch.device(self.platform.device, s.device or 0))
            env["ceilings"] = self.ceilings
        self.rundir.write_env(env)
        if self.cfg.replay is not None:
            self._load_replay(ops)
        workers = max(1, min(self.cfg.concurrency, len(ops))) if ops else 1
        from ..run.scheduler import start_workers, wait_workers

        todo: "queue.Queue[Operator]" = queue.Queue()
        for op in ops:
            todo.put(op)

        def worker() -> None:
            while not self.interrupted.is_set():
                try:
                    op = todo.get_nowait()
                except queue.Empty:
                    return
                self._operator_guarded(op)
                if self.on_operator is not None and not self.interrupted.is_set():
                    self.on_operator(op.id)

        # Daemon threads (not a ThreadPoolExecutor, whose workers the interpreter joins at exit): after Ctrl-C a
        # request still in flight must not keep the process alive.
        done = start_workers([worker] * workers, [f"kgb-op-{i}" for i in range(workers)])
        try:
            wait_workers(done)
        except KeyboardInterrupt:
            self._interrupt(done)
            raise GenerationInterrupted(self.rundir.path, len(self.rundir.records()), len(self.finished_ops),
                                        len(ops)) from None
        summary = self.summary(ops)
        summary["wall_s"] = round(time.time() - t0, 2)
        summary["requests_made"] = self.requests_made
        summary["http_attempts"] = self.http_attempts
        self.rundir.write_summary(summary)
        if self.fatal is not None:
            raise self.fatal
        return summary

    def summary(self, ops: list[Operator]) -> dict[str, Any]:
        """The summary of the selected operators from what the run directory holds now."""
        s = summarize_run([(o.id, o.source) for o in ops], self.samples.all(), self.rundir.records(),
                          k=self.cfg.k, early_stop=self.cfg.early, tier=self.cfg.tier, platform=self.platform.name,
                          errors=self.errors)
        s["config"] = {k: v for k, v in self.cfg.to_json().items() if k not in ("extra_body",)}
        s["tier"] = self.cfg.tier
        s["tiers"] = list(tier_parts(self.cfg.tier))
        s["platform"] = self.platform.name
        if self.platform.profile:
            s["profile"] = self.platform.profile
        s["per_operator"] = per_operator_rows(s["operators"], self.rundir.records(), self.cfg.tier, self.platform.name)
        return s

    def _interrupt(self, done: list[threading.Event], wait_s: float = 10.0) -> None:
        """Ctrl-C: stop starting requests and evaluations, kill every sandbox child (the evaluations in flight
        then return, unrecorded: a resume runs them again), and give the operator threads ``wait_s`` seconds in
        all to end (a request still in flight is abandoned: its thread is a daemon)."""
        from ..run.scheduler import stopping, wait_workers
        from ..sandbox.runner import kill_all

        with stopping():  # a second Ctrl-C meanwhile is ignored
            self.interrupted.set()
            self.abort.set()
            kill_all()
            wait_workers(done, wait_s)

    def _operator_guarded(self, op: Operator) -> None:
        from .clients import LLMAuthError, LLMError

        try:
            if self.cfg.replay is not None:
                self._replay_operator(op)
            else:
                self._sample_operator(op)
            if not self.interrupted.is_set():
                with self._lock:
                    self.finished_ops.add(op.id)
        except _Stopped:
            return
        except LLMAuthError as exc:
            self.errors[op.id] = str(exc)
            with self._lock:
                if self.fatal is None:
                    self.fatal = exc
            self.abort.set()
        except LLMError as exc:
            self.errors[op.id] = str(exc)
        except Exception as exc:  # noqa: BLE001 - a harness bug stops the run, after the summary
            self.errors[op.id] = f"{type(exc).__name__}: {exc}"
            with self._lock:
                if self.fatal is None:
                    self.fatal = exc
            self.abort.set()

    # -- sampling ---------------------------------------------------------------------------------
    def _prompt(self, op: Operator) -> Prompt:
        p = build_prompt(op, self.platform, self.cfg.mode, self.device_name)
        d = self.rundir.path / "prompts"
        d.mkdir(exist_ok=True)
        f = d / f"{op.filename[:-3]}.txt"
        if not f.exists():
            f.write_text(f"# prompt {p.hash}\n{p.text()}")
        return p

    def _sample_operator(self, op: Operator) -> None:
        prompt = self._prompt(op)
        for i in range(self.cfg.samples_per_op):
            if self.abort.is_set():
                return
            outcome, label = self._one_sample(op, prompt, i)
            if outcome == "passed":
                self._keep_solved(op, label)
                if self.cfg.early:
                    return
            if outcome == "unsupported":
                return  # every sample would be: the platform cannot judge this operator's cases
            if outcome == "stopped":
                return

    def _one_sample(self, op: Operator, prompt: Prompt, i: int) -> tuple[str, str]:
        """Draw sample i (all its rounds). Returns its outcome (``passed``, ``failed``,
        ``unsupported`` or ``stopped``) and the label of its last round."""
        prev: tuple[dict[str, Any], dict[str, Any], str | None] | None = None  # (sample line, record, code)
        status, label = "failed", sample_label(i, 0)
        for r in range(self.cfg.rounds):
            if self.abort.is_set():
                return "stopped", label
            label = sample_label(i, r)
            messages = [{"role": "user", "content": prompt.user}]
            feedback = None
            if r > 0 and prev is not None:
                feedback = self._feedback(op, prev[1], r)
                messages += [{"role": "assistant", "content": self._assistant_turn(prev[0], prev[2])},
                             {"role": "user", "content": feedback}]
            line = self.samples.get(sample_id(op.id, i, r))
            resumed = line is not None
            if line is None:
                line = self._request(op, prompt, i, r, messages, feedback)
            rec, code = self._judge(op, line)
            status = rec.get("status", "failed")
            # resumed: the reply and its verdict were recorded by an earlier call (a reply recorded earlier and
            # judged now is not: its eval time is this call's)
            self._emit(op, line, rec, resumed and (op.id, label) not in self._made_now)
            if status in ("passed", "unsupported"):
                return status, label
            if not self.cfg.reflection:
                break
            prev = (line, rec, code)
        return status, label

    def _request(self, op: Operator, prompt: Prompt, i: int, r: int, messages: list[dict[str, str]],
                 feedback: str | None) -> dict[str, Any]:
        label = sample_label(i, r)
        started = time.time()
        try:
            comp = self.client.complete(prompt.system, messages, temperature=self.cfg.temperature,
                                        max_tokens=self.cfg.max_tokens, label=f"{op.id} {label}")
        except LLMError as exc:   # a request that failed for good made its attempts too
            with self._lock:
                self.http_attempts += getattr(exc, "attempts", 1)
            raise
        with self._lock:
            self.requests_made += 1
            self.http_attempts += comp.attempts
        line = {
            "sample_id": sample_id(op.id, i, r), "op": op.id, "source": op.source, "sample": i, "round": r,
            "label": label, "prompt_hash": prompt_hash([{"role": "system", "content": prompt.system}, *messages]),
            "task_prompt_hash": prompt.hash, "provider": getattr(self.client, "provider", None),
            "model": getattr(self.client, "model", None), "model_served": comp.model_served,
            "temperature": self.cfg.temperature, "max_tokens": self.cfg.max_tokens,
            "feedback": feedback, "response": comp.text, "reasoning": comp.reasoning,
            "finish_reason": comp.finish_reason, "truncated": comp.truncated, "request_id": comp.request_id,
            "usage": comp.usage.to_json(),
            "timing": {"started_at": round(started, 3), "wall_s": comp.wall_s, "total_s": comp.total_s,
                       "attempts": comp.attempts, "retries": comp.retries},
        }
        self.samples.append(line)
        return line

    @staticmethod
    def _assistant_turn(line: dict[str, Any], code: str | None) -> str:
        if code is not None:
            return f"```python\n{code}```"
        text = line.get("response") or ""
        note = "cut at the token limit, " if line.get("truncated") else ""
        if len(text) > 4000:
            text = text[:1000] + f"\n[... {len(text) - 2000} characters omitted ...]\n" + text[-1000:]
        return text or f"[empty reply, {note}no code]"

    def _feedback(self, op: Operator, rec: dict[str, Any], r: int) -> str:
        from ..verify.failures import FAILURE_CLASSES

        ff = rec.get("first_failure") or {}
        cls = rec.get("failure_class")
        meaning = FAILURE_CLASSES.get(cls or "") or LLM_FAILURE_CLASSES.get(cls or "", "")
        return reflection_message(op, self.cfg.tier, {"failure_class": cls, "meaning": meaning,
                                                      "case_id": ff.get("case_id"), "case": ff.get("case"),
                                                      "message": ff.get("message")}, r)

    # -- judging ----------------------------------------------------------------------------------
    def _judge(self, op: Operator, line: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """Extract the code of a reply, write it as a submission and evaluate it (or reuse the
        record already in ``results.jsonl``). Returns ``(record, code or None)``."""
        label = line["label"]
        ex = extract_code(line.get("response"), bool(line.get("truncated")))
        if ex.code is None:
            rec = self._find_record(op.id, label, None)
            if rec is None:
                msg = LLM_FAILURE_CLASSES[ex.status] + (f" ({ex.blocks} complete block(s) of other languages)"
                                                        if ex.blocks else "")
                rec = self._synthetic(op, label, ex.status, msg, line)
            return rec, None
        path = self.rundir.path / "kernels" / label / op.filename
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != ex.code:
            path.write_text(ex.code)
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        rec = self._find_record(op.id, label, sha)
        if rec is None:
            rec = self._evaluate(op, label, path, sha)
        return rec, ex.code

    def _find_record(self, op_id: str, label: str, sha: str | None) -> dict[str, Any] | None:
        found = None
        for r in self.rundir.records():
            if (r.get("op") == op_id and r.get("label") == label and r.get("tier") == self.cfg.tier
                    and r.get("platform") == self.platform.name and r.get("submission_sha256") == sha
                    and r.get("failure_class") not in RERUN_CLASSES):
                found = r
        return found

    def _evaluate(self, op: Operator, label: str, path: Path, sha: str) -> dict[str, Any]:
        """Judge one sample's file with the library's :func:`~kernelgenbench.run.evaluate.evaluate_file` (the
        pipeline of ``kgb eval``) on a free slot, and append its record to this run directory."""
        from ..run.evaluate import evaluate_file

        if self.interrupted.is_set():
            raise _Stopped
        if self.on_judge is not None:
            self.on_judge(op.id, label)
        if self.ray is not None:
            from ..run.job import JobSpec
            from ..suite.tiers import tier_parts

            timed = self.platform.timing and not self.platform.interpreter and "full" in tier_parts(self.cfg.tier)
            rec = self.ray.judge(JobSpec(op, path.resolve(), self.cfg.tier, label), self.rundir, self.settings,
                                 measure_ceilings=timed)
            if self.interrupted.is_set():
                raise _Stopped
            self.rundir.append(rec)
            self._made_now.add((op.id, label))
            return rec
        slot = self.slots.get()
        try:
            if self.interrupted.is_set():
                raise _Stopped
            rec = evaluate_file(path, op.id, self.cfg.tier, platform=self.platform.name, settings=self.settings,
                                workdir=self.rundir.job_dir(op.id, label), device=slot.device, label=label,
                                ceilings=self.ceilings.get(slot.device), as_profile=self.platform.profile)
        finally:
            self.slots.put(slot)
        if self.interrupted.is_set():
            raise _Stopped  # its sandbox was killed: the record is no verdict, a resume judges it again
        rec["attempt"] = 1
        self.rundir.append(rec)
        self._made_now.add((op.id, label))
        return rec

    def _synthetic(self, op: Operator, label: str, cls: str, message: str, line: dict[str, Any]) -> dict[str, Any]:
        """The record of a reply that holds no code (``no_code`` / ``truncated``)."""
        rec = JobRecord.synthetic(op, label, self.cfg.tier, self.platform.name, cls, message,
                                  tier_case_count(op, self.cfg.tier), wall_s=0.0, sample_id=line["sample_id"],
                                  finished_at=time.time()).to_json()
        self.rundir.append(rec)
        self._made_now.add((op.id, label))
        return rec

    def _keep_solved(self, op: Operator, label: str) -> None:
        """Copy the first correct sample of ``op`` to ``kernels/solved/`` (a directory ``kgb eval`` takes)."""
        src = self.rundir.path / "kernels" / label / op.filename
        dst = self.rundir.path / "kernels" / "solved" / op.filename
        if src.exists() and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)

    def _emit(self, op: Operator, line: dict[str, Any], rec: dict[str, Any], resumed: bool) -> None:
        if self.on_event is None:
            return
        u = line.get("usage") or {}
        shown = shown_failure(rec)
        self.on_event(Event(op=op.id, label=line["label"], status=rec.get("status", "failed"),
                            failure_class=rec.get("failure_class"),
                            cases=cases_cell(rec),
                            message=shown.splitlines()[0][:120] if shown else "",
                            tokens_in=int(u.get("input_tokens") or 0), tokens_out=int(u.get("output_tokens") or 0),
                            request_s=float((line.get("timing") or {}).get("total_s") or 0.0),
                            eval_s=float(rec.get("wall_s") or 0.0), resumed=resumed))

    # -- replay -----------------------------------------------------------------------------------
    def _load_replay(self, ops: list[Operator]) -> None:
        assert self.cfg.replay is not None
        src = self.cfg.replay.resolve()
        if not src.is_file():
            raise FileNotFoundError(f"--replay: no such file {src}")
        wanted = {o.id for o in ops}
        same_file = src == self.samples.path.resolve()
        for line in read_jsonl(src):
            if line.get("op") not in wanted or "sample_id" not in line:
                continue
            self.replay_lines.setdefault(line["op"], []).append(line)
            if not same_file and self.samples.get(line["sample_id"]) is None:
                self.samples.append({**line, "replayed": True, "replayed_from": str(src)})

    def _replay_operator(self, op: Operator) -> None:
        """Re-extract and re-evaluate every recorded reply of ``op``, in (sample, round) order."""
        latest: dict[str, dict[str, Any]] = {}
        for line in self.replay_lines.get(op.id, []):
            latest[line["sample_id"]] = line
        for line in sorted(latest.values(), key=lambda r: (int(r["sample"]), int(r["round"]))):
            own = self.samples.get(line["sample_id"]) or line
            rec, _ = self._judge(op, own)
            self._emit(op, own, rec, resumed=(op.id, own["label"]) not in self._made_now)
            if rec.get("status") == "passed":
                self._keep_solved(op, own["label"])
