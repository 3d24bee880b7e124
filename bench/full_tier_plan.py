"""A plan that packs the operators whose full tier is still to judge into device calls of bench/full_tier.sh.

    PYTHONPATH=src .venv/bin/python bench/full_tier_plan.py --source cublas

Each operator's full-tier and timed case counts come from the suite (what ``kgb eval --tier full`` judges); the
operators with a passed record in ``--run`` and in the plan's own ``<keep>-*`` folders are skipped; the rest are
projected (:func:`project`) in bench/full_tier_account.py's terms (exclusive seconds serialised, shared seconds over
the slots, a drain per exclusive entry) and packed (:func:`pack`) into calls of ``--deadline`` seconds, each printed
as its full_tier.sh command. Every number for work not yet done is a PROJECTION, labelled with its basis.
One run directory holds one configuration (kgb eval refuses another operator list there), so each group of
operators gets its own OPS list and KEEP folder (named by a hash of the list), run by as many consecutive calls as
its projection needs: each call resumes the group's records, and case shards carry an operator across calls.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import math
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/full_tier_account.py, also when imported
from full_tier_account import JobCost, entries, job_cost, read_records  # noqa: E402

#: Records whose costs the projection reads by default (vLLM calls 1-6, the 12-operator slice, ATen's 107).
DEFAULT_COSTS = ("bench/results/vllm-full-tier/*.jsonl", "bench/results/2026-12-06-h200-slice-full/results.jsonl.gz",
                 "bench/results/2026-11-30-h200-aten-full/results-full*.jsonl.gz",
                 "bench/results/*-full-*/results.jsonl")  # the planner's KEEP folders (and session 43's vllm-full-s43)


#: what timing.method adds where a job's compiled baselines were made ahead of its exclusive hold (verify/timing.py)
AHEAD_CLAUSE = "compiled baseline made before the job's first timed case"


def suite_counts(source: str | None = None) -> dict[str, tuple[int, int, str]]:
    """op -> (full-tier cases, timed cases, category), built by the suite as ``kgb eval --tier full`` builds them
    (``Operator.cases("full")``; run/job.py's JobSpec.cases, a shard's being ``cases[i::n]`` of them)."""
    from kernelgenbench.suite.registry import all_operators

    out = {}
    for op in (o for o in all_operators() if source in (None, o.source)):
        cases = op.cases("full")
        out[op.id] = (len(cases), sum(1 for c in cases if c.timed), op.category)
    return out


def shards(cases: int, shard: int) -> int:
    """How many case shards ``kgb eval --shard-cases shard`` judges a job of ``cases`` cases in (run/shards.py)."""
    return 1 if shard <= 0 or cases <= shard else math.ceil(cases / shard)


@dataclass
class Projection:
    """A remaining operator's projected seconds, judged whole (``excl``, ``shared``), the per-job constants that
    each further case shard adds (``fix_excl``, ``fix_shared``: the source's fitted intercepts) and the basis."""

    op: str
    cases: int
    timed: int
    excl: float
    shared: float
    basis: str
    fix_excl: float = 0.0
    fix_shared: float = 0.0

    def wall_share(self, slots: int, drain: float = 0.0, hold: str = "job", n: int = 1) -> float:
        """What the operator, judged as ``n`` case shards, adds to a call's modelled wall (:func:`model_wall`)."""
        k = entries(hold, self.timed) * (n if hold == "job" else 1)
        return self.excl + (n - 1) * self.fix_excl + (self.shared + (n - 1) * self.fix_shared) / slots + drain * k


def fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least squares ``y = a + b x`` with ``a, b >= 0`` (a negative one is dropped and the other refitted)."""
    if not xs:
        return 0.0, 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    vx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / vx if vx else 0.0
    if b < 0:
        return max(0.0, my), 0.0
    if my - b * mx < 0:
        return 0.0, sum(x * y for x, y in zip(xs, ys)) / max(1e-9, sum(x * x for x in xs))
    return my - b * mx, b


def measured_rates(gate: str | None, logs: list[str]) -> dict[str, tuple[float, str]]:
    """op -> (timing seconds per timed case, where from): the newest GPU gate's cost table (``timing_s`` per timed
    case, HOLD=job, the GPU alone), else the newest console log's progress bar of a job cut while timing
    (``X/N`` timed cases after ``h:mm:ss``: a slot's seconds per timed case, other slots' waits included)."""
    out: dict[str, tuple[float, str]] = {}
    for log in sorted(logs):  # eval-call<N>.log: a later call's bar replaces an earlier one's
        for m in re.finditer(r"^\s+(\S+::\S+) · timed cases\s.*?\s(\d+)/(\d+)\s+(\d+):(\d\d):(\d\d)",
                             Path(log).read_text(), re.M):
            done, secs = int(m[2]), 3600 * int(m[4]) + 60 * int(m[5]) + int(m[6])
            if done:
                out[m[1]] = (secs / done, f"progress bar of {Path(log).name}: {done} timed in {secs} s")
    if gate and Path(gate).is_file():
        for m in re.finditer(r"^(\S+::\S+)\s+(\d+)\s+(\d+\.\d+)\s+\d", Path(gate).read_text(), re.M):
            out[m[1]] = (float(m[3]), f"timing_s per timed case in {Path(gate).name}")
    return out


def _excl(c: JobCost, hold: str) -> float:
    return c.excl_case if hold == "case" else c.excl_job


def project(op: str, cases: int, timed: int, category: str, source: str, costs: dict[str, JobCost],
            cats: dict[str, str], hold: str, rates: dict[str, tuple[float, str]] | None = None) -> Projection:
    """Project an operator's seconds: exclusive from a measured rate per timed case (:func:`measured_rates`; with
    HOLD=case counted as shared work) else its own latest record (scaled to today's case counts), else a fit (a
    per-job constant plus a per-case rate: exclusive on timed cases, shared on cases) over its source's recorded
    operators of the same category (at least 3), else over all of its source's; shared from its own record or
    the fit."""
    every = [c for o, c in costs.items() if o.split("::")[0] == source and c.cases]
    fe, _ = fit([c.timed for c in every], [_excl(c, hold) for c in every])
    fs, _ = fit([c.cases for c in every], [c.work - _excl(c, hold) for c in every])
    own = costs.get(op)
    if rates and op in rates and timed:
        r, where = rates[op]
        base = project(op, cases, timed, category, source, costs, cats, hold)
        ex = r * timed
        return Projection(op, cases, timed, 0.0 if hold == "case" else ex,
                          base.shared + (ex if hold == "case" else 0.0),
                          f"{r:.2f} s/timed case: {where}; shared: {base.basis}", fe, fs)
    if own is not None and own.cases and (own.timed or not timed):
        ex = _excl(own, hold) * (timed / own.timed if own.timed else 0.0)
        sh = (own.work - _excl(own, hold)) * cases / own.cases
        return Projection(op, cases, timed, ex, max(0.0, sh), f"own record ({own.commit or 'old'} "
                          f"{own.device[-4:]}, {own.cases} cases {own.timed} timed)", fe, fs)
    peers = [c for o, c in costs.items() if o.split("::")[0] == source and cats.get(o) == category and c.cases]
    basis = f"fit over {len(peers)} recorded {source} '{category}' operators"
    if len(peers) < 3:
        peers, basis = every, f"fit over all {len(every)} recorded {source} operators"
    a_e, b_e = fit([c.timed for c in peers], [_excl(c, hold) for c in peers])
    a_s, b_s = fit([c.cases for c in peers], [c.work - _excl(c, hold) for c in peers])
    return Projection(op, cases, timed, (a_e + b_e * timed) if timed else 0.0, a_s + b_s * cases, basis, fe, fs)


@dataclass(frozen=True)
class Params:
    """How the calls run: slots, HOLD, the default SHARD, the model's drain per exclusive entry, one call's budget."""

    slots: int = 4
    hold: str = "job"
    shard: int = 300
    drain: float = 4.0
    budget: float = 510.0  # full_tier.sh: kgb eval gets DEADLINE - 30 s; less its start-up

    def share(self, p: Projection, shard: int | None = None) -> float:
        """What operator ``p`` adds to a call's modelled wall under SHARD ``shard`` (default: this plan's)."""
        return p.wall_share(self.slots, self.drain, self.hold, shards(p.cases, self.shard if shard is None
                                                                          else shard))

    def shard_for(self, p: Projection) -> int:
        """The largest SHARD (at most the default) whose shards of ``p`` each add at most budget/slots to a call:
        the slots' concurrent jobs then finish inside one call, so a cut loses at most one call's in-flight work
        (with bigger jobs every call cuts all of them and records nothing, as vLLM's call 5 did)."""
        size = self.shard if self.shard > 0 and p.cases > self.shard else p.cases
        for n in range(shards(p.cases, size), p.cases + 1):  # the fewest shards that fit, or one case a shard
            size = math.ceil(p.cases / n)
            if self.share(p, size) / shards(p.cases, size) <= self.budget / self.slots:
                break
        return max(1, size)


@dataclass
class Group:
    """Operators that share one OPS list, KEEP folder and SHARD, run by ``calls`` consecutive device calls."""

    par: Params
    ops: list[Projection] = field(default_factory=list)

    @property
    def shard(self) -> int:
        """The group's SHARD: the default, or the smallest that one of its operators needs (:meth:`Params.shard_for`;
        the group's other operators of more cases are split as finely)."""
        return min([self.par.shard] + [s for p in self.ops if (s := self.par.shard_for(p)) < p.cases])

    def load(self) -> float:
        """The group's modelled wall (:func:`model_wall`'s terms, summed over its operators and their shards)."""
        return sum(self.par.share(p, self.shard) for p in self.ops)

    def jobs(self) -> int:
        """How many jobs (case shards) the group runs."""
        return sum(shards(p.cases, self.shard) for p in self.ops)

    @property
    def calls(self) -> int:
        """Calls needed: every call but the last is cut at its deadline, losing about half of its slots' in-flight
        jobs (``slots / 2`` average jobs' share), which the next call judges again."""
        lost = self.par.slots / 2 * self.load() / max(1, self.jobs())
        return next(n for n in range(1, 10_000) if self.load() + (n - 1) * lost <= n * self.par.budget)


def pack(projs: list[Projection], par: Params) -> list[Group]:
    """First-fit decreasing over the operators' shares (each split as :meth:`Params.shard_for` says): an operator
    goes to the first group where it adds no call, is split no finer than alone and splits no other operator finer
    (else it opens a group)."""
    groups: list[Group] = []
    for p in sorted(projs, key=lambda p: (-par.share(p, par.shard_for(p)), p.op)):
        alone = shards(p.cases, par.shard_for(p))
        g = next((g for g in groups if shards(p.cases, g.shard) == alone and Group(par, g.ops + [p]).shard == g.shard
                  and Group(par, g.ops + [p]).calls == g.calls), None)
        groups += [] if g else [g := Group(par)]
        g.ops.append(p)
    # then merge groups where that saves a call, even if it splits an operator finer (a few more shards cost a few
    # drains; a call costs its cold start, start-up and deadline margin: aten's last four groups were 35-68 s each)
    merged = True
    while merged:
        merged = False
        order = sorted(groups, key=lambda g: g.load())
        for a, b in ((a, b) for i, a in enumerate(order) for b in order[i + 1:]):
            both = Group(par, a.ops + b.ops)
            if both.calls < a.calls + b.calls:
                groups = [g for g in groups if g is not a and g is not b] + [both]
                merged = True
                break
    return groups


def recorded(run: Path) -> tuple[set[str], dict[str, float]]:
    """A run folder's operators with a passed full-tier record (results.jsonl; a failed one is judged again), and
    of the others the share of their cases in passed case shards (shards.jsonl: kept only while SHARD gives the
    same shards, and only those this package would keep: their ``harness_tree`` is this checkout's)."""
    from kernelgenbench.run.rundir import harness_tree

    tree = harness_tree()
    latest = {r["op"]: r for r in read_records(run / "results.jsonl") if r.get("tier") == "full"}
    done = {o for o, r in latest.items() if r.get("status") == "passed"}
    part: dict[str, dict[tuple[int, ...], int]] = {}
    for r in read_records(run / "shards.jsonl"):
        if (r.get("tier") == "full" and r.get("status") == "passed" and r.get("shard") and r["op"] not in done
                and r.get("harness_tree") == tree):
            part.setdefault(r["op"], {})[tuple(r["shard"])] = int(r.get("cases_total") or 0)
    return done, {o: sum(v.values()) for o, v in part.items()}


def plan(args: argparse.Namespace) -> str:
    """The plan's text: per group and call the full_tier.sh command, then the summary."""
    counts = suite_counts(args.source)
    keep = args.keep or f"bench/results/{args.source}-full"
    runs = sorted(set(args.run) | {Path(d) for d in glob.glob(f"{keep}-*") if Path(d).is_dir()})
    done, part = set(), {}
    for d in runs:
        dd, pp = recorded(d)
        done |= dd
        part.update(pp)
    files = [f for pat in (args.costs or DEFAULT_COSTS) for f in sorted(glob.glob(pat))]
    recs = [r for f in files if "failed" not in f for r in read_records(f) if r.get("tier") == "full"]
    costs: dict[str, JobCost] = {}
    for r in sorted(recs, key=lambda r: float(r.get("started_at") or 0.0)):
        if r.get("status") == "passed" and not r.get("shards"):
            costs[r["op"]] = job_cost(r)  # the latest passed whole-job record of each operator
    cats = {o: c[2] for o, c in suite_counts().items()}
    rates = measured_rates(args.gate, args.logs)
    # vLLM baselines made ahead (bc42, 795d779) moved the compile out of the GPU's exclusive hold: once the source has
    # records timed that way, its projection reads only those, and no rate measured before (the gate's table, a
    # progress bar: both held the compile)
    ahead = {r["op"] for r in recs if AHEAD_CLAUSE in str((r.get("timing") or {}).get("method", ""))}
    if any(o.split("::")[0] == args.source for o in ahead):
        costs = {o: c for o, c in costs.items() if o.split("::")[0] != args.source or o in ahead}
        rates = {o: r for o, r in rates.items() if o.split("::")[0] != args.source}
    todo = [project(o, n, t, cat, args.source, costs, cats, args.hold, rates)
            for o, (n, t, cat) in sorted(counts.items()) if o not in done]
    for p in todo:  # --scale: the harness's per-case cost since the records (the gate's table measures it)
        if "s/timed case" not in p.basis and args.scale != 1.0:
            p.excl, p.shared, p.basis = p.excl * args.scale, p.shared * args.scale, f"x{args.scale:g} {p.basis}"
    for p in todo:
        if part.get(p.op):  # its recorded shards' cases are not judged again
            f = 1 - part[p.op] / max(1, p.cases)
            p.excl, p.shared, p.basis = p.excl * f, p.shared * f, f"{part[p.op]} cases in shards.jsonl; {p.basis}"
    par = Params(args.slots, args.hold, args.shard, args.drain, args.deadline - 30 - args.startup)
    groups = pack(todo, par)
    where = ", ".join(map(str, runs)) or "-"
    lines = [f"{args.source}: {len(counts)} operators, {sum(c[0] for c in counts.values())} full-tier cases "
             f"({sum(c[1] for c in counts.values())} timed), {len(done)} recorded in {where}, {len(todo)} to run "
             f"({sum(p.cases for p in todo)} cases, {sum(p.timed for p in todo)} timed)",
             f"PROJECTION (not a measurement): {par.slots} slots, HOLD={par.hold}, SHARD={par.shard}, drain "
             f"{par.drain:g} s per exclusive entry, DEADLINE={args.deadline} (budget {par.budget:.0f} s of kgb eval "
             f"per call), {args.cold:.0f} s cold start per call"]
    call = 0
    for gi, g in enumerate(groups, 1):
        names = " ".join(sorted(p.op for p in g.ops))
        tag = hashlib.sha1(f"{names} {g.shard}".encode()).hexdigest()[:8]  # a group re-planned keeps its folder
        cmd = (f"COMMIT=<sha> OPS=\"{names}\" KEEP={keep}-{tag} DEADLINE={args.deadline} SHARD={g.shard} "
               f"HOLD={par.hold} JOBS={par.slots} OUT=$OUT bash bench/full_tier.sh")
        for i in range(g.calls):
            call += 1
            lines.append(f"call {call} (group {gi}, {i + 1} of {g.calls}): {cmd}")
        lines.append(f"  projected {g.load():.0f} s of kgb eval work in {g.jobs()} jobs over {g.calls} call(s):")
        for p in sorted(g.ops, key=lambda p: (-par.share(p, g.shard), p.op)):
            lines.append(f"    {p.op:40} {p.cases:5d} cases {p.timed:5d} timed {shards(p.cases, g.shard):3d} shards"
                         f"  excl {p.excl:6.1f}  shared {p.shared:6.1f}  adds {par.share(p, g.shard):6.1f} s  "
                         f"[{p.basis}]")
    work = sum(g.load() for g in groups)
    device = sum(g.load() + g.calls * (30 + args.startup + args.cold) for g in groups)
    lines.append(f"summary ({args.source}, PROJECTED): {call} calls, {work:.0f} s of modelled kgb eval wall; device "
                 f"time about {device:.0f} s (work + per call {30 + args.startup + args.cold:.0f} s: start-up, the "
                 f"deadline's margin, cold start), at most {call * (args.deadline + args.cold):.0f} s "
                 f"({call} x (DEADLINE + cold start))")
    return "\n".join(lines)


def last_gate(folder: str = "bench/results/gpu-gate") -> str | None:
    """The record of the last passed GPU gate (the folder's LAST names its commit), None when there is none."""
    last = Path(folder, "LAST")
    files = sorted(glob.glob(f"{folder}/gpu-gate-*-{last.read_text().strip()[:10]}.txt")) if last.is_file() else []
    return files[-1] if files else None


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    p = argparse.ArgumentParser(prog="full_tier_plan.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--source", required=True, choices=("aten", "vllm", "cublas"))
    p.add_argument("--run", type=Path, nargs="*", default=[], help="KEEP folders whose records are skipped (and "
                   "always the plan's own <keep>-* folders)")
    p.add_argument("--costs", nargs="*", default=None, help="record files the projection reads (default: the repo's)")
    p.add_argument("--gate", default=last_gate(),
                   help="a GPU gate record whose cost table gives timing s per timed case (default: the last PASS)")
    p.add_argument("--logs", nargs="*", default=sorted(glob.glob("bench/results/vllm-full-tier/eval-call*.log")),
                   help="kgb eval console logs whose progress bars give a cut job's seconds per timed case")
    for flag, kind, default, what in (
            ("--deadline", int, 560, "full_tier.sh's DEADLINE"), ("--shard", int, 300, "the default SHARD"),
            ("--slots", int, 4, "JOBS"), ("--drain", float, 4.0, "model seconds per exclusive entry (see account)"),
            ("--startup", float, 20.0, "kgb eval's seconds before its first job"),
            ("--cold", float, 100.0, "a device call's cold start outside the command"),
            ("--scale", float, 1.0, "factor on seconds projected from records (not on the gate's or logs' rates)")):
        p.add_argument(flag, type=kind, default=default, help=what)
    p.add_argument("--hold", choices=("job", "case"), default="job")
    p.add_argument("--keep", default=None, help="KEEP prefix (default bench/results/<source>-full; -<hash> added)")
    args = p.parse_args(argv)
    print(plan(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
