"""A run directory read as one *system* of a report: one verdict per operator (:class:`OpResult`) and the
judged attempts behind them.

What each kind of run contributes:

* ``kgb eval`` (and ``kgb agent``, whose run directories hold the same per-operator records): the latest
  record of each operator of the run's tier and platform is its verdict.
* ``kgb generate``: an operator is solved when one of its samples passed (the first correct sample gives
  its speedup), with Pass@1/Pass@k as :mod:`kernelgenbench.llm.summary` defines them, and the tokens and
  wall-clock of every request from ``samples.jsonl``.

Records are read as JSON dicts by :func:`read_records` and nowhere else in this package. They are typed and
versioned in :mod:`kernelgenbench.record` (README "Record schema"): version 2 carries ``schema_version``, a
record without it is version 1 (written before the typed records; the same field names).

Cost fields (:data:`COST_FIELDS`): an operator's tokens, dollars and wall-clock. ``kgb generate`` fills
them from ``samples.jsonl``; any record may carry them itself, which is how ``kgb agent`` runs plug in:

* ``usage``: ``{"input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens",
  "reasoning_tokens"}`` (the keys of ``samples.jsonl``'s usage; input includes cached and cache-written
  tokens, output includes reasoning), each optional;
* ``cost_usd``: dollars spent on the operator (optional; else ``kgb report --price`` prices the tokens);
* ``wall_s``: seconds of wall-clock for the operator: for ``kgb eval`` the judging only, for ``kgb
  generate`` requests plus judging, for an agent its whole session plus judging.
"""
from __future__ import annotations

import json
import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..record import KNOWN_SCHEMA_VERSIONS, schema_version

#: The optional per-operator cost fields a record may carry (see the module docstring).
COST_FIELDS = ("usage", "cost_usd", "wall_s")
#: Keys of a record's ``usage`` (as in ``samples.jsonl``) -> :class:`OpResult` attributes.
USAGE_KEYS = {"input_tokens": "tokens_in", "output_tokens": "tokens_out", "cached_input_tokens": "tokens_cache_read",
              "cache_write_tokens": "tokens_cache_write"}


class RunDirError(ValueError):
    """A path that is not a readable run directory, or runs a report cannot put side by side."""


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a ``results.jsonl`` as JSON dicts, in file order.

    Malformed lines (a run killed while writing) are skipped. A record without ``schema_version`` is
    version 1; one of a version this reader does not know raises.

    Raises:
        RunDirError: a record of an unknown ``schema_version``.
    """
    out: list[dict[str, Any]] = []
    if not path.exists():
        return out
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(rec, dict):
            continue
        version = schema_version(rec)
        if version not in KNOWN_SCHEMA_VERSIONS:
            raise RunDirError(f"{path}:{n}: record schema_version {version!r} is newer than this kgb reads "
                              f"({', '.join(map(str, KNOWN_SCHEMA_VERSIONS))}); update kernelgenbench")
        out.append(rec)
    return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        obj = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return obj if isinstance(obj, dict) else {}


def no_record_yet(path: Path) -> str | None:
    """Why ``path`` has no records, when it is a run directory that its command made but that holds no record
    yet (``config.json`` names the command; ``results.jsonl`` is missing or empty: a run interrupted, or still
    running, before its first job or sample was recorded); None for anything else. A fresh user 44 Ctrl-C'd a
    run before its first record and was told the directory was "not a run directory?"."""
    results = path / "results.jsonl"
    if results.exists() and results.stat().st_size > 0:
        return None
    config = _read_json(path / "config.json")
    command = config.get("command")
    if not isinstance(command, str) or not command.startswith("kgb "):
        return None
    sel = config.get("selected")
    of = f" (0 of its {len(sel)} selected operators recorded)" if isinstance(sel, list) and sel else ""
    return (f"{path} is a run directory of {command} with no record yet{of}: it was interrupted, or is still "
            f"running, before its first record was written; run the same {command} command again to resume")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
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


@dataclass
class OpResult:
    """One system's verdict on one operator.

    Attributes:
        op, source: the operator and its source (aten, vllm, cublas).
        status: ``passed`` (solved), ``failed`` or ``unsupported`` (no case could be judged on the platform:
            left out of accuracy, as in ``kgb eval``).
        speedup: the operator's speedup over the production baseline (geometric mean over its timed cases),
            None when nothing was timed (the interpreter, tiers without timed cases) or it failed.
        sol_pct: median % of speed-of-light over its timed cases, or None.
        spread: the run-to-run spread of its timing, relative (median over its timed cases of the larger of
            the baseline's and the candidate's IQR/median), or None.
        failure_class: the verdict's failure class (generate: the last failed round's), None when passed.
        failure_case: the case id of that failure (``smoke/3``), or None.
        cases_total, cases_passed, cases_unsupported: the verdict record's case counts.
        pass_at_1, pass_at_k: ``kgb generate`` only (0/1 with early stopping, else the unbiased estimate).
        tokens_in, tokens_out, tokens_cache_read, tokens_cache_write: tokens spent on the operator (input
            includes cache reads and writes), None when not reported.
        cost_usd: dollars spent on it, None when not reported nor priced.
        wall_s: its wall-clock seconds (see the module docstring for what each kind counts).
        solved_by: the label of the attempt that solved it (``s0r1`` for a generate sample), or None.
        oracle_text_found: ``kgb agent`` only: the session's files held the oracle solution's text (the
            record's ``oracle_overlap`` canary).
    """

    op: str
    source: str
    status: str
    speedup: float | None = None
    sol_pct: float | None = None
    spread: float | None = None
    failure_class: str | None = None
    failure_case: str | None = None
    cases_total: int = 0
    cases_passed: int = 0
    cases_unsupported: int = 0
    pass_at_1: float | None = None
    pass_at_k: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    tokens_cache_read: int | None = None
    tokens_cache_write: int | None = None
    cost_usd: float | None = None
    wall_s: float | None = None
    solved_by: str | None = None
    oracle_text_found: bool = False

    @property
    def judged(self) -> bool:
        return self.status in ("passed", "failed")

    @property
    def solved(self) -> bool:
        return self.status == "passed"

    @property
    def tokens_total(self) -> int | None:
        """Input + output tokens (cache reads are part of the input), None when neither was reported."""
        if self.tokens_in is None and self.tokens_out is None:
            return None
        return (self.tokens_in or 0) + (self.tokens_out or 0)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "tokens_total": self.tokens_total}


@dataclass
class Run:
    """One run directory as a system of a report.

    Attributes:
        path: the run directory.
        label: the system's name (``--label``, else the run's name).
        kind: ``eval``, ``generate`` or ``agent``.
        platform: the platform its verdicts were judged on: ``interpreter/<vendor>`` for a run of the CPU
            interpreter under a vendor profile (``kgb eval --as-profile``), so that two such runs of one label
            are one system on two platforms.
        tier: the tier selection its verdicts cover (canonical name: ``smoke``, ``all``, ...), None when
            its records mix tiers.
        tiers: the single tiers that selection covers.
        ops: the verdict per operator.
        attempts: every judged attempt (the latest record of each operator and label of the run's tier and
            platform): one per operator for eval and agent runs, one per sample round for generate runs.
        k: the k of Pass@k (generate runs), else None.
        config: its ``config.json``.
    """

    path: Path
    label: str
    kind: str
    platform: str
    tier: str | None
    tiers: tuple[str, ...]
    ops: dict[str, OpResult]
    attempts: list[dict[str, Any]]
    k: int | None = None
    config: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {"label": self.label, "path": str(self.path), "kind": self.kind, "platform": self.platform,
                "tier": self.tier, "tiers": list(self.tiers), "k": self.k,
                "operators": len(self.ops), "judged": sum(o.judged for o in self.ops.values())}


_STAMP = re.compile(r"^\d{8}-\d{6}(?:\.\d+)?-(?P<name>.+)$")


def default_label(path: Path) -> str:
    """A run's name from its directory: ``20261201-101500-demo`` -> ``demo`` (else the directory name)."""
    m = _STAMP.match(path.name)
    return m.group("name") if m else path.name


def _latest(records: list[dict[str, Any]], tier: str | None, platform: str | None,
            profile: str | None = None) -> list[dict[str, Any]]:
    """The latest record per (operator, label) of ``tier`` and ``platform`` (None: any) and of the emulated
    vendor ``profile`` (None: records of no profile)."""
    seen: dict[tuple[Any, Any], dict[str, Any]] = {}
    for r in records:
        if tier is not None and r.get("tier") != tier:
            continue
        if platform is not None and r.get("platform") != platform:
            continue
        if r.get("profile") != profile:
            continue
        seen[(r.get("op"), r.get("label"))] = r
    return list(seen.values())


def timing_spread(rec: dict[str, Any]) -> float | None:
    """A record's run-to-run timing spread, relative: the median over its timed cases of the larger of the
    baseline's and the candidate's interquartile spread (IQR / median of the timed repetitions), or None
    when its cases carry none."""
    vals = []
    for c in rec.get("cases") or []:
        s = [v for v in (c.get("baseline_spread"), c.get("candidate_spread")) if isinstance(v, (int, float))]
        if s and c.get("speedup") is not None:
            vals.append(max(s))
    return statistics.median(vals) if vals else None


def _usage(rec: dict[str, Any], res: OpResult) -> None:
    u = rec.get("usage")
    if isinstance(u, dict):
        for key, attr in USAGE_KEYS.items():
            if u.get(key) is not None:
                setattr(res, attr, int(u[key]))
    if rec.get("cost_usd") is not None:
        res.cost_usd = float(rec["cost_usd"])


def _from_record(rec: dict[str, Any]) -> OpResult:
    ff = rec.get("first_failure") or {}
    status = rec.get("status") if rec.get("status") in ("passed", "failed", "unsupported") else "failed"
    res = OpResult(
        op=str(rec.get("op")), source=str(rec.get("source") or str(rec.get("op")).split("::", 1)[0]), status=status,
        speedup=rec.get("speedup") if status == "passed" else None,
        sol_pct=rec.get("sol_pct") if status == "passed" else None, spread=timing_spread(rec),
        failure_class=rec.get("failure_class") if status == "failed" else None,
        failure_case=ff.get("case_id") if status == "failed" else None,
        cases_total=int(rec.get("cases_total") or 0), cases_passed=int(rec.get("cases_passed") or 0),
        cases_unsupported=int(rec.get("cases_unsupported") or 0),
        wall_s=float(rec["wall_s"]) if rec.get("wall_s") is not None else None,
        solved_by=rec.get("label") if status == "passed" else None,
        oracle_text_found=bool((rec.get("oracle_overlap") or {}).get("oracle_text_found")))
    _usage(rec, res)
    return res


def run_tier(config: dict[str, Any], summary: dict[str, Any], records: list[dict[str, Any]]) -> str | None:
    """The tier selection a run's verdicts cover: its summary's, else its config's, else the one tier its
    records share (None when they mix tiers)."""
    for src in (summary, config):
        if src.get("tier"):
            return str(src["tier"])
    tiers = {r.get("tier") for r in records if r.get("tier")}
    return str(tiers.pop()) if len(tiers) == 1 else None


def load_run(path: Path, label: str | None = None) -> Run:
    """Read a run directory of ``kgb eval``, ``kgb generate`` or ``kgb agent``.

    Raises:
        RunDirError: not a directory, no ``results.jsonl``, or no records.
    """
    from ..suite.tiers import tier_parts

    path = Path(path)
    if not path.is_dir():
        raise RunDirError(f"{path}: no such run directory")
    results = path / "results.jsonl"
    empty = no_record_yet(path)
    if empty:
        raise RunDirError(f"nothing to report yet: {empty}")
    if not results.exists():
        raise RunDirError(f"{path} is not a run directory: it has no results.jsonl (kgb eval, kgb generate and "
                          f"kgb agent write one per run)")
    config = _read_json(path / "config.json")
    summary = _read_json(path / "summary.json")
    records = read_records(results)
    if not records:
        raise RunDirError(f"{path} holds no records yet (results.jsonl is empty): nothing to report")
    command = str(config.get("command") or "kgb eval")
    kind = {"kgb generate": "generate", "kgb agent": "agent"}.get(command, "eval")
    tier = run_tier(config, summary, records)
    platform = config.get("platform") or summary.get("platform")
    if platform is None:
        plats = {r.get("platform") for r in records}
        platform = plats.pop() if len(plats) == 1 else None
    try:
        tiers = tier_parts(tier) if tier else ()
    except ValueError:
        tiers = (tier,) if tier else ()
    profile = config.get("profile") or summary.get("profile")
    attempts = _latest(records, tier, platform, profile)
    label = label or default_label(path)
    if kind == "generate":
        ops, k = _generate_ops(path, config, summary, records, tier, platform)
    else:
        ops, k = {}, None
        for rec in attempts:  # eval/agent: one label per operator; the latest record is the verdict
            ops[str(rec.get("op"))] = _from_record(rec)
    where = f"{platform}/{profile}" if profile else str(platform)
    return Run(path=path, label=label, kind=kind, platform=where, tier=tier, tiers=tuple(tiers), ops=ops,
               attempts=attempts, k=k, config=config)


def _generate_ops(path: Path, config: dict[str, Any], summary: dict[str, Any], records: list[dict[str, Any]],
                  tier: str | None, platform: str | None) -> tuple[dict[str, OpResult], int]:
    """The verdicts of a ``kgb generate`` run, scored by :func:`kernelgenbench.llm.summary.summarize_run`
    from ``samples.jsonl`` and the records (not from ``summary.json``, which a resumed or interrupted run
    may not have brought up to date)."""
    from ..llm.summary import summarize_run

    samples = _read_jsonl(path / "samples.jsonl")
    k = int(config.get("k") or 1)
    early = bool(config.get("early_stop", True))
    sources: dict[str, str] = {}
    for obj in [*samples, *records]:
        if obj.get("op"):
            sources.setdefault(str(obj["op"]), str(obj.get("source") or str(obj["op"]).split("::", 1)[0]))
    for op_id, o in (summary.get("operators") or {}).items():
        sources.setdefault(op_id, str(o.get("source") or op_id.split("::", 1)[0]))
    scored = summarize_run(sorted(sources.items()), samples, records, k=k, early_stop=early, tier=str(tier),
                           platform=str(platform))
    by_label = {(r.get("op"), r.get("label")): r for r in _latest(records, tier, platform)}
    ops: dict[str, OpResult] = {}
    for op_id, o in scored["operators"].items():
        status = {"solved": "passed", "failed": "failed", "unsupported": "unsupported"}.get(o["status"])
        if status is None:  # not_run: no sample was judged (a request error): no verdict
            continue
        label = o.get("solved_by") if status == "passed" else None
        rec = by_label.get((op_id, label)) if label else None
        if rec is None and status != "passed":  # the verdict record of a failure: its last judged round
            judged = [s for s in o["per_sample"] if s["status"] in ("failed", "unsupported")]
            if judged:
                last = judged[-1]
                rec = by_label.get((op_id, f"s{last['sample']}r{last['rounds'] - 1}"))
        res = _from_record(rec) if rec is not None else OpResult(op=op_id, source=o["source"], status=status)
        res.status = status
        res.speedup = o.get("speedup") if status == "passed" else None
        lf = o.get("last_failure") or {}
        res.failure_class = lf.get("failure_class") if status == "failed" else None
        res.pass_at_1, res.pass_at_k = o.get("pass_at_1"), o.get("pass_at_k")
        tk = o.get("tokens") or {}
        res.tokens_in, res.tokens_out = tk.get("input_tokens"), tk.get("output_tokens")
        res.tokens_cache_read, res.tokens_cache_write = tk.get("cached_input_tokens"), tk.get("cache_write_tokens")
        res.wall_s = o.get("wall_s")
        res.solved_by = o.get("solved_by")
        ops[op_id] = res
    return ops, k
