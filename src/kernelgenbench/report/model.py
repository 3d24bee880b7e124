"""Every number of ``kgb report``, computed once into :class:`Table` s that every renderer (Markdown, CSV,
LaTeX, HTML, the terminal) writes as it is: one model, several renderers.

Definitions (each table's notes repeat the ones it uses):

* **Systems.** Each run directory is a system, named by ``--label`` (default: the run's name). The same
  label on two platforms is one system on two platforms (the portability table); a system's key is then
  ``label@platform``.
* **Operators of a set.** *Judged*: passed or failed. Operators no case of which the platform could judge
  (``unsupported``) are left out of accuracy and counted apart, as in ``kgb eval``.
* **Accuracy** = passed / judged. ``kgb generate`` systems add Pass@1 and Pass@k (averaged over judged
  operators, :mod:`kernelgenbench.llm.summary`).
* **Speedups** (GPU platforms, tiers with timed cases): an operator's speedup over its production baseline
  is the geometric mean over its timed cases (first level, per job); a set scores the geometric mean of the
  speedups of its *solved* operators (second level, :func:`kernelgenbench.metrics.geomean`), beside their
  median and interquartile mean. These are over each system's own solved set, so they are not comparable
  across systems: the matched-set table is. ``src-balanced`` (overall rows) is the geometric mean of the
  per-source geomeans, so that ATen's 110 operators do not outweigh vLLM's and cuBLAS's few.
* **fast_p** = the share of *all* judged operators of the set that are correct and at least p times as fast
  as the baseline (fast_0 = accuracy); a correct operator without a timed case counts as not fast; None
  when the system timed nothing.
* **Matched set** of systems A and B: the operators both solved and both timed; the ratio is the geometric
  mean of speedup_A / speedup_B over them (> 1: A is faster), with a percentile bootstrap confidence
  interval over operators (``--bootstrap`` resamples, ``--seed``).
* **Difficulty**: per operator, how many systems solve it, of those that judged it.
* **Failure taxonomy**: judged attempts by failure class (one attempt per operator for ``kgb eval`` and
  ``kgb agent``, one per sample round for ``kgb generate``), split into the submission's classes and the
  platform's (``platform``, ``infrastructure``: not the submission's fault), with the model-side classes
  the paper names marked (dispatch recursion, missing overloads, signatures, replies without code).
* **Anti-hack interceptions**: failed attempts stopped by L1 (the static scan: ``static_scan``, and
  ``dispatch_recursion`` found by the scan), L2 (``ghost``), L3 (``profile``: dispatch trace, kernel list,
  launch rule; ``dispatch_recursion`` found at run time) and the timing checks (``timer_tampering``).
* **Cost**: tokens (input, cache reads included, + output), dollars and wall-clock summed over all the
  operators of the set, and per solved operator (that sum / solved operators).
* **Portability tax**: for one label on two platforms, on the operators both judged: accuracy and speedup
  side by side, and the ratios (second platform / first) of tokens and wall-clock per solved operator.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ..metrics import geomean, iqm, median
from ..tables import plural
from .load import OpResult, Run, RunDirError

#: The p of fast_p.
FAST_P = (0.0, 1.0, 1.5, 2.0)
SOURCES = ("aten", "vllm", "cublas")
#: Failure classes the paper attributes to the model's side of the pipeline (they show what a model
#: misunderstood about the task rather than a kernel that computes wrongly).
MODEL_SIDE = ("dispatch_recursion", "missing_wrapper", "signature", "no_code", "truncated")
#: Anti-hack tiers and the failure classes they intercept (see :func:`interception`).
ANTI_HACK_TIERS = ("L1", "L2", "L3", "timing")


# -- tables ------------------------------------------------------------------------------------------------
@dataclass
class Column:
    """One column: ``key`` in each row dict, a title, and how its values are written (:func:`fmt`)."""

    key: str
    title: str
    kind: str = "text"


@dataclass
class Table:
    """One table of a report. ``rows`` hold raw values (numbers unrounded, None for "no value");
    renderers format them with :func:`fmt` by column kind. ``notes`` say what the numbers are."""

    name: str
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title,
                "columns": [{"key": c.key, "title": c.title, "kind": c.kind} for c in self.columns],
                "rows": self.rows, "notes": self.notes}


def fmt(value: Any, kind: str) -> str:
    """A cell as text. Kinds: ``text``, ``int``, ``pct`` (a share in [0, 1] -> ``83.3%``), ``x`` (a speedup
    or ratio -> ``1.234x``), ``float``, ``tokens`` (``12,345``, ``1.20M``), ``seconds`` (``12.3 s``), ``usd``
    (``$0.1234``), ``list`` (comma-joined). None is ``—``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "x":
        return f"{value:.3f}x"
    if kind == "float":
        return f"{value:.3f}"
    if kind == "int":
        return str(int(value))
    if kind == "tokens":
        from ..llm.summary import fmt_tokens

        return fmt_tokens(value)
    if kind == "seconds":
        return f"{value:.1f} s"
    if kind == "usd":
        return f"${value:.4f}"
    if kind == "list":
        return ", ".join(str(v) for v in value) if value else "—"
    return str(value)


@dataclass
class Report:
    """A whole report: the systems, the tables, banners every renderer shows first (mixed tiers), and the
    options it was made with."""

    systems: list[dict[str, Any]]
    tables: list[Table]
    banners: list[str]
    options: dict[str, Any]
    operators: dict[str, dict[str, Any]]
    title: str = "KernelGenBench report"

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {"schema": "kgb-report/1", "title": self.title, "systems": self.systems, "banners": self.banners,
                "options": self.options,
                "tables": [t.to_json() for t in self.tables], "operators": self.operators}


# -- statistics -------------------------------------------------------------------------------------------
def fast_p(results: Sequence[OpResult], p: float) -> float | None:
    """The share of the judged operators of ``results`` that are correct and at least ``p`` times as fast
    as their baseline. fast_0 is the accuracy; for p > 0, None when no operator of ``results`` was timed."""
    judged = [r for r in results if r.judged]
    if not judged:
        return None
    if p <= 0:
        return sum(r.solved for r in judged) / len(judged)
    if not any(r.speedup for r in judged):
        return None
    return sum(1 for r in judged if r.solved and r.speedup is not None and r.speedup >= p) / len(judged)


def bootstrap_ratio(pairs: Sequence[tuple[float, float]], n: int, seed: int | str,
                    ci: float = 0.95) -> tuple[float | None, float | None, float | None]:
    """The geometric mean of ``a / b`` over ``pairs`` and its percentile bootstrap interval.

    Resamples the pairs (operators) with replacement ``n`` times with ``random.Random(seed)``; each resample
    scores the geometric mean of its ratios; the interval is the ``(1 - ci) / 2`` and ``(1 + ci) / 2``
    quantiles of those scores (sorted, the values at ``round(q * (n - 1))``). Returns ``(ratio, low, high)``;
    all None without pairs, and the interval None when ``n < 1``.
    """
    logs = [math.log(a / b) for a, b in pairs if a and b and a > 0 and b > 0]
    if not logs:
        return None, None, None
    point = math.exp(sum(logs) / len(logs))
    if n < 1:
        return point, None, None
    rng = random.Random(seed)
    m = len(logs)
    means = sorted(math.exp(sum(logs[rng.randrange(m)] for _ in range(m)) / m) for _ in range(n))
    lo_q, hi_q = (1 - ci) / 2, (1 + ci) / 2
    return point, means[round(lo_q * (n - 1))], means[round(hi_q * (n - 1))]


def interception(rec: dict[str, Any]) -> str | None:
    """Which anti-hack tier stopped a failed attempt: ``L1``, ``L2``, ``L3``, ``timing``, or None (a failure
    of another kind). ``dispatch_recursion`` is L1's when the static scan found it (the record's message
    says so, or its L1 verdict is not ok), else L3's (the dispatcher recursed at run time)."""
    if rec.get("status") != "failed":
        return None
    cls = rec.get("failure_class")
    if cls == "static_scan":
        return "L1"
    if cls == "dispatch_recursion":
        msg = str((rec.get("first_failure") or {}).get("message") or "")
        l1 = ((rec.get("anti_hack") or {}).get("L1") or {})
        return "L1" if msg.startswith("L1 ") or l1.get("ok") is False else "L3"
    if cls == "ghost":
        return "L2"
    if cls == "profile":
        return "L3"
    if cls == "timer_tampering":
        return "timing"
    return None


def failure_side(cls: str) -> str:
    """``platform`` for the classes that are not the submission's fault, else ``submission``."""
    from ..verify.failures import NOT_SUBMISSION_FAULT

    return "platform" if cls in NOT_SUBMISSION_FAULT else "submission"


def failure_meaning(cls: str) -> str:
    from ..llm.extract import LLM_FAILURE_CLASSES
    from ..verify.failures import FAILURE_CLASSES

    return FAILURE_CLASSES.get(cls) or LLM_FAILURE_CLASSES.get(cls) or "(a class this version does not describe)"


def _sum_reported(values: Iterable[float | int | None]) -> float | int | None:
    vals = [v for v in values if v is not None]
    return sum(vals) if vals else None


def _per(total: float | int | None, n: int) -> float | None:
    return (total / n) if (total is not None and n) else None


def group_stats(results: Sequence[OpResult]) -> dict[str, Any]:
    """Accuracy, speedup statistics over the solved set and fast_p of one group of verdicts."""
    judged = [r for r in results if r.judged]
    solved = [r for r in judged if r.solved]
    speeds = [float(r.speedup) for r in solved if r.speedup]
    p1 = [r.pass_at_1 for r in judged if r.pass_at_1 is not None]
    pk = [r.pass_at_k for r in judged if r.pass_at_k is not None]
    out = {"operators": len(judged), "passed": len(solved),
           "accuracy": (len(solved) / len(judged)) if judged else None,
           "pass_at_1": (sum(p1) / len(p1)) if p1 else None, "pass_at_k": (sum(pk) / len(pk)) if pk else None,
           "unsupported": sum(1 for r in results if r.status == "unsupported"),
           "timed": len(speeds), "geomean": geomean(speeds), "median": median(speeds), "iqm": iqm(speeds)}
    for p in FAST_P:
        out[f"fast_{p:g}"] = fast_p(results, p)
    return out


def cost_stats(results: Sequence[OpResult]) -> dict[str, Any]:
    """Tokens, dollars and wall-clock summed over ``results`` (every operator, solved or not) and per solved
    operator."""
    solved = sum(1 for r in results if r.solved)
    tok = {a: _sum_reported(getattr(r, a) for r in results)
           for a in ("tokens_in", "tokens_out", "tokens_cache_read", "tokens_cache_write", "tokens_total")}
    usd = _sum_reported(r.cost_usd for r in results)
    wall = _sum_reported(r.wall_s for r in results)
    return {"operators": len(results), "solved": solved, **tok, "tokens_per_solved": _per(tok["tokens_total"], solved),
            "cost_usd": usd, "cost_per_solved": _per(usd, solved), "wall_s": wall,
            "wall_per_solved": _per(wall, solved)}


# -- the report ------------------------------------------------------------------------------------------------
def system_keys(runs: Sequence[Run]) -> list[str]:
    """One key per run: its label, or ``label@platform`` where a label names runs on several platforms.

    Raises:
        RunDirError: two runs of one label on one platform (give them distinct ``--label`` s).
    """
    seen: dict[tuple[str, str], str] = {}
    for r in runs:
        if (r.label, r.platform) in seen:
            raise RunDirError(f"{seen[(r.label, r.platform)]} and {r.path} are both labelled {r.label!r} on platform "
                              f"{r.platform}: give each run its own --label (the same label on two platforms is "
                              f"one system on two platforms, for the portability table)")
        seen[(r.label, r.platform)] = str(r.path)
    plats: dict[str, set[str]] = {}
    for r in runs:
        plats.setdefault(r.label, set()).add(r.platform)
    return [f"{r.label}@{r.platform}" if len(plats[r.label]) > 1 else r.label for r in runs]


def check_tiers(runs: Sequence[Run], allow_mixed: bool) -> list[str]:
    """Banners about tiers: none when every run's verdicts cover the same tiers.

    Raises:
        RunDirError: the runs cover different tiers (or one mixes tiers) and ``allow_mixed`` is False.
    """
    from ..suite.tiers import tier_label

    tiers = {r.tier for r in runs}
    if len(tiers) == 1 and None not in tiers:
        return []
    desc = "; ".join(f"{r.label} ({r.path.name}): {tier_label(r.tier) if r.tier else 'mixed tiers'}" for r in runs)
    if not allow_mixed:
        raise RunDirError(f"the runs' verdicts cover different tiers ({desc}): a verdict on other cases is not "
                          f"comparable (accuracy on the smoke tier says little about the full grid). Compare runs of "
                          f"one tier selection, or pass --allow-mixed-tiers to report them anyway, labelled as mixed")
    return [f"MIXED TIERS (--allow-mixed-tiers): the systems' verdicts cover different cases ({desc}); accuracy, "
            f"speedups and the matched set are not comparable across them"]


def build_report(runs: Sequence[Run], *, matched: bool = False, bootstrap: int = 1000, seed: int = 0,
                 ci: float = 0.95, allow_mixed_tiers: bool = False,
                 prices: dict[str, tuple[float, float, float]] | None = None) -> Report:
    """The report over ``runs`` (each a system).

    Args:
        runs: the systems, in the order they are shown.
        matched: score every system on the common set only (the operators every system judged), so that the
            per-system tables compare like with like.
        bootstrap: resamples of the matched-set intervals (0: no interval).
        seed: the bootstrap's seed (the report is deterministic for a seed).
        ci: the confidence level of the intervals.
        allow_mixed_tiers: report runs whose verdicts cover different tiers (labelled) instead of refusing.
        prices: label -> (USD per million input tokens, per million output tokens, per million cached input
            tokens), pricing the tokens of operators whose records carry no ``cost_usd``.

    Raises:
        RunDirError: no runs, two runs of one label on one platform, or mixed tiers not allowed.
    """
    from ..suite.tiers import tier_label, verdict_scope

    if not runs:
        raise RunDirError("kgb report needs at least one run directory")
    keys = system_keys(runs)
    banners = check_tiers(runs, allow_mixed_tiers)
    if prices:
        unknown = sorted(set(prices) - {r.label for r in runs})
        if unknown:
            raise RunDirError(f"--price names no system: {', '.join(unknown)} (labels: "
                              f"{', '.join(r.label for r in runs)})")
        for r in runs:
            if r.label in prices:
                _price(r, *prices[r.label])
    sets: dict[str, dict[str, OpResult]] = {k: dict(r.ops) for k, r in zip(keys, runs)}
    scope = "each system's own operators"
    common: set[str] | None = None
    if matched:
        common = set.intersection(*({o for o, v in ops.items() if v.judged} for ops in sets.values()))
        sets = {k: {o: v for o, v in ops.items() if o in common} for k, ops in sets.items()}
        scope = f"the common set: the {plural(len(common), 'operator')} every system judged (--matched)"
        if not common:
            banners.append("--matched: no operator was judged by every system; the per-system tables are empty")
    else:
        judged = [{o for o, v in ops.items() if v.judged} for ops in sets.values()]
        if any(j != judged[0] for j in judged[1:]):
            common = set.intersection(*judged)
            scope += (f", which differ ({plural(len(common), 'operator')} judged by every system): accuracies over "
                      "different sets do not compare; --matched scores every system on those only")
    all_ops = sorted({o for r in runs for o in r.ops})
    source_of = {o: v.source for r in runs for o, v in r.ops.items()}
    sources = [s for s in SOURCES if any(source_of[o] == s for o in all_ops)] + sorted(
        {source_of[o] for o in all_ops} - set(SOURCES))

    systems = []
    for k, r in zip(keys, runs):
        d = r.describe()
        d.update(key=k, tier_label=tier_label(r.tier) if r.tier else "mixed", scope=verdict_scope(r.tier) if r.tier
                 else "the records mix tiers: each verdict covers its own record's tier")
        systems.append(d)
    tables = [_systems_table(systems, runs, keys),
              _accuracy_table(runs, keys, sets, sources, scope),
              _cost_table(runs, keys, sets, scope, prices or {}),
              _matched_table(runs, keys, bootstrap, seed, ci),
              *_difficulty_tables(runs, keys, all_ops, source_of),
              # --matched: per system, the common set's attempts only, as the accuracy table counts (fresh user 44:
              # 210 judged attempts of the demo under an accuracy table of its 3 operators in common)
              _failure_table(runs, keys, common if matched else None, scope),
              _anti_hack_table(runs, keys, sources, common if matched else None, scope),
              _portability_table(runs, keys),
              _platforms_table(runs),
              _portable_table(runs),
              _operators_table(runs, keys, all_ops, source_of)]
    operators = {k: {o: v.to_json() for o, v in r.ops.items()} for k, r in zip(keys, runs)}
    return Report(systems=systems, tables=tables, banners=banners, operators=operators,
                  options={"matched": matched, "bootstrap": bootstrap, "seed": seed, "ci": ci,
                           "allow_mixed_tiers": allow_mixed_tiers, "fast_p": list(FAST_P),
                           "prices": {k: list(v) for k, v in (prices or {}).items()}})


def _price(run: Run, usd_in: float, usd_out: float, usd_cached: float) -> None:
    """Set ``cost_usd`` of the run's operators that report tokens but no dollars: (input - cached) x the input
    price + cached x the cached price + output x the output price, per million tokens."""
    for r in run.ops.values():
        if r.cost_usd is not None or r.tokens_total is None:
            continue
        cached = r.tokens_cache_read or 0
        r.cost_usd = ((max(0, (r.tokens_in or 0) - cached)) * usd_in + cached * usd_cached
                      + (r.tokens_out or 0) * usd_out) / 1e6


def _agent_notes(systems: list[dict[str, Any]], runs: Sequence[Run]) -> list[str]:
    """What a reader must know of each ``kgb agent`` system: its isolation, and the operators whose session files
    held the oracle solution's text (the records' ``oracle_overlap`` canary)."""
    notes = []
    for d, r in zip(systems, runs):
        if r.kind != "agent":
            continue
        level = r.config.get("isolation") or "not recorded"
        note = f"{d['key']} (kgb agent): isolation {level}"
        if level != "namespace":
            note += " (not the jail: the agent could read files of this machine, the oracle solutions among them)"
        if r.config.get("expose"):
            note += f"; --expose {', '.join(map(str, r.config['expose']))}"
        canary = sorted(o.op for o in r.ops.values() if o.oracle_text_found)
        if canary:
            solved = sum(1 for o in canary if r.ops[o].solved)
            note += (f"; WARNING: the session files of {len(canary)} operator(s) ({solved} solved) hold the oracle "
                     f"solution's text (oracle_overlap): {', '.join(canary)}: not the agent's own work")
        notes.append(note)
    return notes


def _systems_table(systems: list[dict[str, Any]], runs: Sequence[Run], keys: list[str]) -> Table:
    rows = []
    for d, r in zip(systems, runs):
        rows.append({"system": d["key"], "kind": {"eval": "kgb eval", "generate": "kgb generate",
                                                   "agent": "kgb agent"}[r.kind],
                     "platform": r.platform, "tier": d["tier_label"], "covers": d["scope"],
                     "operators": d["operators"], "judged": d["judged"],
                     "unsupported": sum(1 for o in r.ops.values() if o.status == "unsupported"),
                     "run": str(r.path)})
    return Table("systems", "Systems (one run directory each)", [
        Column("system", "system"), Column("kind", "run of"), Column("platform", "platform"),
        Column("tier", "tier"), Column("covers", "what the verdicts cover"), Column("operators", "operators", "int"),
        Column("judged", "judged", "int"), Column("unsupported", "unsupported", "int"), Column("run", "run directory")],
        rows, ["judged: operators passed or failed; unsupported: operators none of whose cases the platform can judge "
               "(on the CPU interpreter: cases over its size budget), or whose kernels made some cases unjudgeable "
               "there while the rest passed, left out of accuracy as in kgb eval",
               "held-out cases are judged in runs of the heldout or all tiers, but their parameters are never shown",
               *_agent_notes(systems, runs)])


def _accuracy_table(runs: Sequence[Run], keys: list[str], sets: dict[str, dict[str, OpResult]],
                    sources: list[str], scope: str) -> Table:
    rows = []
    untimed = []
    for k, r in zip(keys, runs):
        ops = list(sets[k].values())
        per_source = {}
        for src in sources:
            group = [o for o in ops if o.source == src]
            if not group:
                continue
            s = group_stats(group)
            per_source[src] = s
            rows.append({"system": k, "source": src, **s, "geomean_src_balanced": None})
        s = group_stats(ops)
        s["geomean_src_balanced"] = geomean(v["geomean"] for v in per_source.values())
        rows.append({"system": k, "source": "overall", **s})
        if s["timed"] == 0:
            untimed.append(f"{k} ({r.platform}"
                           f"{': timing not applicable' if r.platform.split('/')[0] == 'interpreter' else ''})")
    cols = [Column("system", "system"), Column("source", "source"), Column("operators", "judged", "int"),
            Column("passed", "passed", "int"), Column("accuracy", "accuracy", "pct")]
    if any(r.kind == "generate" for r in runs):
        ks = sorted({r.k for r in runs if r.k})
        cols.append(Column("pass_at_1", "Pass@1", "pct"))
        if ks != [1]:  # with k = 1 for every sampling run, Pass@k is Pass@1
            cols.append(Column("pass_at_k", f"Pass@{ks[0]}" if len(ks) == 1 else "Pass@k (each run's k)", "pct"))
    cols += [Column("geomean", "geomean", "x"), Column("geomean_src_balanced", "src-balanced", "x"),
             Column("median", "median", "x"), Column("iqm", "IQM", "x"), Column("timed", "timed", "int")]
    cols += [Column(f"fast_{p:g}", f"fast_{p:.1f}", "pct") for p in FAST_P]
    cols.append(Column("unsupported", "unsupp.", "int"))
    notes = [f"over {scope}",
             "accuracy = passed / judged; Pass@1 and Pass@k: kgb generate systems only "
             "(averaged over judged operators)",
             "geomean, median, IQM: speedup over the production baseline over the system's own solved set (operator "
             "speedup = geomean over its timed cases; set = geomean over solved operators): not comparable across "
             "systems, see the matched set; src-balanced: the geomean of the per-source geomeans",
             "fast_p: share of all judged operators that are correct and at least p x as fast as the baseline "
             "(fast_0 = accuracy; correct but untimed operators count as not fast; — when nothing was timed)"]
    if untimed:
        notes.append(f"no timed operators (speedups and fast_p for p > 0 have no value): {', '.join(untimed)}")
    return Table("accuracy", "Accuracy and speedup per system and source", cols, rows, notes)


def _cost_table(runs: Sequence[Run], keys: list[str], sets: dict[str, dict[str, OpResult]], scope: str,
                prices: dict[str, tuple[float, float, float]]) -> Table:
    rows = []
    for k, r in zip(keys, runs):
        c = cost_stats(list(sets[k].values()))
        rows.append({"system": k, "kind": r.kind, **c})
    notes = [f"over {scope}; sums over every operator of the set (solved or not), per solved = sum / solved",
             "tokens: input (cache reads included) + output (reasoning included), as the provider reported them; "
             "— where a system reports none (kgb eval; kgb agent --agent command without --stream-format)",
             "wall-clock: each operator's own, summed (jobs that ran in parallel slots overlap: the sum exceeds the "
             "run's elapsed time); kgb eval: judging only; kgb generate: requests (retries included) + judging of "
             "every sample; kgb agent: the session + judging"]
    if prices:
        notes.append("cost priced by --price (USD per million input/output/cached-input tokens): " + "; ".join(
            f"{k}: {a:g}/{b:g}/{c:g}" for k, (a, b, c) in prices.items()))
    return Table("cost", "Tokens, wall-clock and cost per solved operator", [
        Column("system", "system"), Column("operators", "operators", "int"), Column("solved", "solved", "int"),
        Column("tokens_in", "tokens in", "tokens"), Column("tokens_cache_read", "cached in", "tokens"),
        Column("tokens_out", "tokens out", "tokens"), Column("tokens_total", "tokens", "tokens"),
        Column("tokens_per_solved", "tokens/solved", "tokens"), Column("wall_s", "wall", "seconds"),
        Column("wall_per_solved", "wall/solved", "seconds"), Column("cost_usd", "cost", "usd"),
        Column("cost_per_solved", "cost/solved", "usd")], rows, notes)


def _matched_table(runs: Sequence[Run], keys: list[str], bootstrap: int, seed: int, ci: float) -> Table:
    rows = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            a, b = runs[i].ops, runs[j].ops
            both = sorted(o for o in a if o in b and a[o].judged and b[o].judged)
            both_solved = [o for o in both if a[o].solved and b[o].solved]
            timed = [o for o in both_solved if a[o].speedup and b[o].speedup]
            ratio, lo, hi = bootstrap_ratio([(a[o].speedup, b[o].speedup) for o in timed], bootstrap,
                                            f"{seed}|{keys[i]}|{keys[j]}", ci)
            rows.append({"a": keys[i], "b": keys[j], "both_judged": len(both), "both_solved": len(both_solved),
                         "only_a": sum(1 for o in both if a[o].solved and not b[o].solved),
                         "only_b": sum(1 for o in both if b[o].solved and not a[o].solved),
                         "matched": len(timed), "geomean_a": geomean(a[o].speedup for o in timed),
                         "geomean_b": geomean(b[o].speedup for o in timed), "ratio": ratio, "ci_low": lo, "ci_high": hi,
                         "operators": timed})
    notes = ["matched: the operators both systems solved and both timed; ratio = geomean of speedup_A / speedup_B over "
             f"them (> 1: A faster); CI: {ci:.0%} percentile bootstrap over operators ({bootstrap} resamples, seed "
             f"{seed})",
             "only A / only B: operators both judged that only one of them solved"]
    if len(runs) < 2:
        notes.append("one system: no pairs")
    return Table("matched", "Matched sets: pairs of systems on the operators both solved", [
        Column("a", "A"), Column("b", "B"), Column("both_judged", "both judged", "int"),
        Column("both_solved", "both solved", "int"), Column("only_a", "only A", "int"),
        Column("only_b", "only B", "int"),
        Column("matched", "matched (timed)", "int"), Column("geomean_a", "geomean A", "x"),
        Column("geomean_b", "geomean B", "x"), Column("ratio", "A/B", "x"), Column("ci_low", "CI low", "x"),
        Column("ci_high", "CI high", "x")], rows, notes)


def _difficulty_tables(runs: Sequence[Run], keys: list[str], all_ops: list[str],
                       source_of: dict[str, str]) -> list[Table]:
    n = len(runs)
    rows = []
    for o in all_ops:
        judged = [k for k, r in zip(keys, runs) if o in r.ops and r.ops[o].judged]
        solvers = [k for k, r in zip(keys, runs) if o in r.ops and r.ops[o].solved]
        rows.append({"op": o, "source": source_of[o], "solved_by": len(solvers), "judged_by": len(judged),
                     "systems": solvers})
    rows.sort(key=lambda d: (d["solved_by"], -d["judged_by"], d["op"]))
    # judged by every system (the comparable set) apart from those fewer systems judged, which can never reach the
    # upper bars (fresh user 35: 205 operators of one run alone read "solved by 1 system")
    hist = [{"solved_by": c, "operators": sum(1 for d in rows if d["judged_by"] == n and d["solved_by"] == c),
             "operators_partial": sum(1 for d in rows if 0 < d["judged_by"] < n and d["solved_by"] == c)}
            for c in range(n + 1)]
    always = [d["op"] for d in rows if d["judged_by"] == n and d["solved_by"] == n]
    never = [d["op"] for d in rows if d["judged_by"] and d["solved_by"] == 0]
    some = [d["op"] for d in rows if d["solved_by"] and d["solved_by"] < d["judged_by"]]
    # solved wherever judged, but not judged by every system (an operator one run did not select): neither
    # "always" nor "some, not all" (fresh user 35: 205 oracle-only operators were listed as solved by some, not all)
    partial = [d["op"] for d in rows if d["solved_by"] and d["solved_by"] == d["judged_by"] < n]
    summary = [{"group": f"always solved (by all {n} systems)", "count": len(always), "operators": always},
               {"group": "never solved (by no system that judged it)", "count": len(never), "operators": never},
               {"group": "solved by some, not all that judged it", "count": len(some), "operators": some},
               {"group": f"solved by every system that judged it, judged by fewer than {n}", "count": len(partial),
                "operators": partial}]
    return [
        Table("difficulty", "Difficulty: how many systems solve each operator", [
            Column("op", "operator"), Column("source", "source"), Column("solved_by", "solved by", "int"),
            Column("judged_by", "judged by", "int"), Column("systems", "solved by systems", "list")], rows,
            [f"of the {n} systems; judged by: the systems that judged the operator (an operator a run did not select, "
             "or could not judge on its platform, is not counted against it)"]),
        Table("difficulty_histogram", "Difficulty histogram: operators by number of systems solving them",
              [Column("solved_by", "solved by N systems", "int"),
               Column("operators", f"operators judged by all {n}", "int"),
               Column("operators_partial", f"judged by fewer than {n}", "int")], hist,
              [f"operators: judged by all {n} systems; judged by fewer: judged by at least one system but not all "
               "(an operator a run did not select or could not judge), counted apart"]),
        Table("difficulty_summary", "Always and never solved", [
            Column("group", "group"), Column("count", "operators", "int"), Column("operators", "which", "list")],
            summary, []),
    ]


def _attempts(run: Run, only: set[str] | None) -> list[dict[str, Any]]:
    """The run's attempts, of the operators in ``only`` where given (``--matched``: the common set)."""
    return [a for a in run.attempts if only is None or a.get("op") in only]


def _failure_table(runs: Sequence[Run], keys: list[str], only: set[str] | None = None, scope: str = "") -> Table:
    counts: dict[str, dict[str, int]] = {}
    attempts = {k: 0 for k in keys}
    for k, r in zip(keys, runs):
        for rec in _attempts(r, only):
            if rec.get("status") not in ("passed", "failed"):
                continue
            attempts[k] += 1
            if rec.get("status") == "failed":
                cls = str(rec.get("failure_class") or "unknown")
                counts.setdefault(cls, {}).setdefault(k, 0)
                counts[cls][k] += 1
    cols = [Column("class", "failure class"), Column("side", "whose"), Column("model_side", "model-side"),
            Column("meaning", "meaning")]
    cols += [Column(f"n{i}", k, "int") for i, k in enumerate(keys)]
    rows = []
    order = sorted(counts, key=lambda c: (failure_side(c) == "platform", -sum(counts[c].values()), c))
    for cls in order:
        row = {"class": cls, "side": failure_side(cls), "model_side": "yes" if cls in MODEL_SIDE else "",
               "meaning": failure_meaning(cls)}
        row.update({f"n{i}": counts[cls].get(k, 0) for i, k in enumerate(keys)})
        rows.append(row)
    for side in ("submission", "platform"):
        row = {"class": f"all of the {side}'s", "side": side, "model_side": "", "meaning": ""}
        row.update({f"n{i}": sum(v.get(k, 0) for c, v in counts.items() if failure_side(c) == side)
                    for i, k in enumerate(keys)})
        rows.append(row)
    row = {"class": "judged attempts", "side": "", "model_side": "", "meaning": "passed + failed"}
    row.update({f"n{i}": attempts[k] for i, k in enumerate(keys)})
    rows.append(row)
    return Table("failures", "Failure taxonomy: failed attempts by class", cols, rows, [
        *([f"over {scope}"] if only is not None else []),
        "an attempt: one per operator for kgb eval and kgb agent, one per judged sample round for kgb generate",
        "whose: platform = not the submission's fault (platform, infrastructure: re-run on resume); model-side: the "
        "classes the paper attributes to the model (dispatch recursion, missing overloads, signatures, replies "
        "without code)"])


def _anti_hack_table(runs: Sequence[Run], keys: list[str], sources: list[str], only: set[str] | None = None,
                     scope: str = "") -> Table:
    rows = []
    for k, r in zip(keys, runs):
        att = _attempts(r, only)
        groups = [(src, [a for a in att if (a.get("source") or str(a.get("op")).split("::")[0]) == src])
                  for src in sources] + [("all", att)]
        for src, recs in groups:
            if not recs:
                continue
            row: dict[str, Any] = {"system": k, "source": src,
                                   "attempts": sum(1 for a in recs if a.get("status") in ("passed", "failed"))}
            for t in ANTI_HACK_TIERS:
                row[t] = sum(1 for a in recs if interception(a) == t)
            rows.append(row)
    return Table("anti_hack", "Anti-hack interceptions per tier and source", [
        Column("system", "system"), Column("source", "source"), Column("attempts", "judged attempts", "int"),
        Column("L1", "L1 static scan", "int"), Column("L2", "L2 ghost replay", "int"),
        Column("L3", "L3 trace/profile", "int"), Column("timing", "timer tampering", "int")], rows,
        [*([f"over {scope}"] if only is not None else []),
         "failed attempts stopped by each tier: L1 = static_scan and dispatch_recursion found by the scan; L2 = "
         "ghost (right results with every Triton launch a no-op); "
         "L3 = profile (PyTorch or vendor compute, kernel list, "
         "launch rule) and dispatch_recursion at run time; timing = timer_tampering"])


def _portability_table(runs: Sequence[Run], keys: list[str]) -> Table:
    by_label: dict[str, list[int]] = {}
    for i, r in enumerate(runs):
        by_label.setdefault(r.label, []).append(i)
    rows = []
    for label, idx in by_label.items():
        for j in idx[1:]:
            a, b = runs[idx[0]], runs[j]
            common = sorted(o for o in a.ops if o in b.ops and a.ops[o].judged and b.ops[o].judged)
            ga = group_stats([a.ops[o] for o in common])
            gb = group_stats([b.ops[o] for o in common])
            ca = cost_stats([a.ops[o] for o in common])
            cb = cost_stats([b.ops[o] for o in common])

            def ratio(x: float | None, y: float | None) -> float | None:
                return (y / x) if (x and y is not None) else None

            rows.append({"system": label, "platform_a": a.platform, "platform_b": b.platform, "common": len(common),
                         "accuracy_a": ga["accuracy"], "accuracy_b": gb["accuracy"],
                         "geomean_a": ga["geomean"], "geomean_b": gb["geomean"],
                         "tokens_per_solved_a": ca["tokens_per_solved"], "tokens_per_solved_b": cb["tokens_per_solved"],
                         "tokens_ratio": ratio(ca["tokens_per_solved"], cb["tokens_per_solved"]),
                         "wall_per_solved_a": ca["wall_per_solved"], "wall_per_solved_b": cb["wall_per_solved"],
                         "wall_ratio": ratio(ca["wall_per_solved"], cb["wall_per_solved"])})
    notes = ["one system label on two platforms (give runs of one system the same --label), on the operators both "
             "judged: accuracy and speedup (geomean over each platform's solved set) side by side; ratios = platform B "
             "/ platform A of tokens and wall-clock per solved operator (> 1: B costs more; the tax)"]
    if not rows:
        notes.append("no system label appears on two platforms")
    return Table("portability", "Portability tax: one system on two platforms", [
        Column("system", "system"), Column("platform_a", "platform A"), Column("platform_b", "platform B"),
        Column("common", "common ops", "int"), Column("accuracy_a", "accuracy A", "pct"),
        Column("accuracy_b", "accuracy B", "pct"), Column("geomean_a", "geomean A", "x"),
        Column("geomean_b", "geomean B", "x"), Column("tokens_per_solved_a", "tokens/solved A", "tokens"),
        Column("tokens_per_solved_b", "tokens/solved B", "tokens"), Column("tokens_ratio", "tokens B/A", "x"),
        Column("wall_per_solved_a", "wall/solved A", "seconds"),
        Column("wall_per_solved_b", "wall/solved B", "seconds"),
        Column("wall_ratio", "wall B/A", "x")], rows, notes)


def _platforms_table(runs: Sequence[Run]) -> Table:
    """The multi-chip view (the paper's Table 2 and Figure 2): per system label judged on several platforms, one
    row per platform over the operators every one of its platforms judged: accuracy, failed operators by side
    (the model's, the platform's: ``failure_side``), the speedup geomean, tokens and wall-clock per solved
    operator, and each as a ratio to the label's first platform (the reference row: 1.0)."""
    by_label: dict[str, list[Run]] = {}
    for r in runs:
        by_label.setdefault(r.label, []).append(r)
    rows = []
    for label, group in by_label.items():
        if len({r.platform for r in group}) < 2:
            continue
        common = sorted(set.intersection(*({o for o, v in r.ops.items() if v.judged} for r in group)))
        ref: dict[str, Any] = {}
        for i, r in enumerate(group):
            res = [r.ops[o] for o in common]
            g, c = group_stats(res), cost_stats(res)
            sides = Counter(failure_side(v.failure_class or "") for v in res if v.status == "failed")
            vals = {"accuracy": g["accuracy"], "geomean": g["geomean"], "tokens_per_solved": c["tokens_per_solved"],
                    "wall_per_solved": c["wall_per_solved"]}
            if i == 0:
                ref = vals
            row = {"system": label, "platform": r.platform, "reference": group[0].platform, "common": len(common),
                   **vals, "model_failures": sides["submission"], "platform_failures": sides["platform"]}
            for k, v in vals.items():
                x = ref.get(k)
                row[f"{k}_ratio"] = (v / x) if (x and v is not None) else None
            rows.append(row)
    notes = ["one row per platform of a system label judged on several (give its runs the same --label), over the "
             "operators every platform of the label judged; x ref = this platform / the label's first platform "
             "(accuracy, speedup < 1: lost on this platform; "
             "tokens, wall per solved operator > 1: the portability tax)",
             "model fail.: failed operators of the submission's classes; "
             "platform fail.: classes that are not its fault "
             "(platform: a compiler crash, missing intrinsic or device op named by the platform profile; "
             "infrastructure)",
             "interpreter/<vendor>: the CPU interpreter under that vendor's profile (kgb eval --as-profile): its "
             "dtype limits, tolerance scale, failure patterns and prompt, not its hardware, and no speedups"]
    if not rows:
        notes.append("no system label appears on two platforms")
    return Table("platforms", "Multi-chip view: one system per platform", [
        Column("system", "system"), Column("platform", "platform"), Column("common", "common ops", "int"),
        Column("accuracy", "accuracy", "pct"), Column("accuracy_ratio", "x ref", "x"),
        Column("model_failures", "model fail.", "int"), Column("platform_failures", "platform fail.", "int"),
        Column("geomean", "speedup", "x"), Column("geomean_ratio", "x ref", "x"),
        Column("tokens_per_solved", "tokens/solved", "tokens"), Column("tokens_per_solved_ratio", "x ref", "x"),
        Column("wall_per_solved", "wall/solved", "seconds"), Column("wall_per_solved_ratio", "x ref", "x")],
        rows, notes)


#: The portable verdicts of one operator of one system judged on several platforms (:func:`portable_verdict`).
PORTABLE_VERDICTS = ("portable", "platform_limited", "not_portable", "unsolved")


def portable_verdict(results: Sequence[OpResult | None]) -> str:
    """One operator's verdict across the platforms one system was judged on (README "Platform profiles").

    Args:
        results: the operator's verdict on each platform (None where that run has no record of it).

    Returns:
        ``portable``: solved on every platform; ``unsolved``: solved on none; ``platform_limited``: solved on
        some, and everywhere else it was unsupported, absent, or failed for a reason that is not the submission's
        (class ``platform``: a compiler crash, missing intrinsic or device op; ``infrastructure``), so the
        submission did all it could; ``not_portable``: solved on some and failed on another for a reason of the
        submission's own (a wrong result, a compile error of its code, ...).

    Raises:
        ValueError: ``results`` is empty.
    """
    if not results:
        raise ValueError("portable_verdict: no platform's verdict given")
    solved = [r is not None and r.solved for r in results]
    if all(solved):
        return "portable"
    if not any(solved):
        return "unsolved"
    own = [r for r in results if r is not None and r.status == "failed"
           and failure_side(r.failure_class or "") == "submission"]
    return "not_portable" if own else "platform_limited"


def _portable_table(runs: Sequence[Run]) -> Table:
    """Per system label judged on several platforms: how many of its operators are portable, limited by a
    platform, not portable through the submission's own failure, or unsolved everywhere
    (:func:`portable_verdict`), over the operators every platform of the label has a record of."""
    by_label: dict[str, list[Run]] = {}
    for r in runs:
        by_label.setdefault(r.label, []).append(r)
    rows = []
    for label, group in by_label.items():
        if len({r.platform for r in group}) < 2:
            continue
        ops = sorted(set.intersection(*(set(r.ops) for r in group)))
        verdicts = {o: portable_verdict([r.ops.get(o) for r in group]) for o in ops}
        counts = Counter(verdicts.values())
        row: dict[str, Any] = {"system": label, "platforms": " · ".join(r.platform for r in group),
                               "operators": len(ops), **{v: counts[v] for v in PORTABLE_VERDICTS}}
        row["portable_rate"] = (counts["portable"] / len(ops)) if ops else None
        row["not_portable_ops"] = ", ".join(o for o in ops if verdicts[o] == "not_portable") or "—"
        rows.append(row)
    notes = ["per system label judged on several platforms, over the operators every one of its runs has a record "
             "of: portable = solved on every platform; platform-limited = solved on some, and elsewhere unsupported "
             "or failed for the platform's reasons only (class platform or infrastructure); not portable = solved on "
             "some, failed on another for the submission's own reasons; unsolved = solved on none"]
    if not rows:
        notes.append("no system label appears on two platforms")
    return Table("portable", "Portable verdicts: one system's operators across its platforms", [
        Column("system", "system"), Column("platforms", "platforms"), Column("operators", "operators", "int"),
        Column("portable", "portable", "int"), Column("portable_rate", "portable %", "pct"),
        Column("platform_limited", "platform-limited", "int"), Column("not_portable", "not portable", "int"),
        Column("unsolved", "unsolved", "int"), Column("not_portable_ops", "not portable: operators")], rows, notes)


def verdict_text(o: OpResult | None) -> str:
    """An operator's verdict in one cell: ``passed 1.234x``, ``failed: wrong_result``, ``unsupported``, ``—``
    (the system has no verdict on it)."""
    if o is None:
        return "—"
    if o.solved:
        return "passed" + (f" {o.speedup:.3f}x" if o.speedup else "")
    if o.status == "failed":
        return f"failed: {o.failure_class or 'unknown'}"
    return o.status


def _operators_table(runs: Sequence[Run], keys: list[str], all_ops: list[str], source_of: dict[str, str]) -> Table:
    cols = [Column("op", "operator"), Column("source", "source")] + [Column(f"v{i}", k) for i, k in enumerate(keys)]
    rows = []
    for o in all_ops:
        row = {"op": o, "source": source_of[o]}
        row.update({f"v{i}": verdict_text(r.ops.get(o)) for i, r in enumerate(runs)})
        rows.append(row)
    return Table("operators", "Operators: each system's verdict", cols, rows,
                 ["passed with its speedup where timed; failed with its failure class; — : not in that run"])
