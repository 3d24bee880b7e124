#!/usr/bin/env bash
# A long run (the full tier of a whole source: issues 14, 15, 18) spread over device calls and sessions: each call
# resumes the run from the records kept in the repository, runs until its DEADLINE (SIGINT: the run records what
# finished; a job, or a case shard of one (SHARD below), cut mid-way is judged again from its first case next time),
# and hands its records back in $OUT.
# A device machine is fresh every session (and after 30 s idle), so the records travel through git:
#     device:  COMMIT=<sha> SOURCE=vllm KEEP=bench/results/<dir> DEADLINE=560 OUT=$OUT bash bench/full_tier.sh
#     here:    cp <files_at>/{results.jsonl,shards.jsonl,config.json,env*.json} bench/results/<dir>/ && git add ...
# KEEP is the folder of the records so far (results.jsonl, shards.jsonl, config.json, env.json; absent: a new run).
# The run directory is runs/<basename of KEEP> on the device. OPS="a b c" instead of SOURCE names operators (one KEEP
# holds one operator list: kgb eval refuses another list there, so each OPS list needs its own KEEP, and a SOURCE run
# cannot go on with OPS; bench/full_tier_plan.py packs what is left into such lists and prints the calls); HOLD=case
# times with kgb eval --timing-hold case (each record's timing.method says which hold timed it).
# A resume on a later commit mixes harness versions in one run: keep each call's env-<commit10>.json from $OUT
# beside the records (a record's started_at tells which call wrote it) and say so beside the numbers.
# On the CPU: PY=.venv/bin/python PLATFORM=interpreter TIER=smoke OPS="aten::neg aten::add" KEEP=/tmp/x \
#     bash bench/full_tier.sh   (the plumbing; a second call resumes). The exit status is kgb eval's (130: cut by
# DEADLINE, resumable); 2 and above: nothing was judged (the message is printed).
# SHARD (default 300) is passed as kgb eval --shard-cases: an operator of more cases is judged as ceil(cases/SHARD)
# case shards, each recorded in shards.jsonl as it finishes, so that an operator of thousands of cases (cublasCsyrkEx:
# 13,860) progresses across calls instead of being judged again from its first case; keep shards.jsonl with the
# records (a shard recorded on another device or by another package tree, harness_tree, is judged again). SHARD=0 judges every operator whole.
set -u
OUT=${OUT:-/tmp/kgb-full-tier}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
PY=${PY:-python3}
PLATFORM=${PLATFORM:-cuda}; TIER=${TIER:-full}
REPS=${REPS:-10}; WARM=${WARM:-10}; JOBS=${JOBS:-4}
HOLD=${HOLD:-job}                   # kgb eval --timing-hold (case: a vLLM case's compile overlaps other slots' work)
SHARD=${SHARD:-300}                 # kgb eval --shard-cases (0: off)
DEADLINE=${DEADLINE:-560}
: "${KEEP:?KEEP=<the folder of the records so far> is required}"
if [ "$PLATFORM" = cuda ] && [ -z "${COMMIT:-}" ]; then
  echo "COMMIT=<sha> is required on the GPU (the device's git metadata can be older than its tree)"; exit 2
fi
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
export KGB_COMMIT=$COMMIT  # stamped on every record (harness_commit) and in env.json
SEL=""
if [ -n "${OPS:-}" ]; then for o in $OPS; do SEL="$SEL --op $o"; done
elif [ -n "${SOURCE:-}" ]; then SEL="--source $SOURCE"
else echo "SOURCE=<aten|vllm|cublas> or OPS=\"...\" is required"; exit 2; fi
RUN=runs/$(basename "$KEEP")
mkdir -p "$RUN"
if ! $PY -c "import torch, typer" 2>/dev/null; then
  echo "$PY cannot import torch and typer: set PY to the Python of the project (PY=.venv/bin/python here)"; exit 2
fi
for f in results.jsonl shards.jsonl config.json env.json; do [ -f "$KEEP/$f" ] && cp "$KEEP/$f" "$RUN/$f"; done
# the kept configuration names the folder of submissions by absolute path: this tree's solutions/ (a resume from
# another checkout of the same commit is the same run; jobs are told apart by their files' sha256)
[ -f "$RUN/config.json" ] && $PY - "$RUN/config.json" "$PWD/solutions" <<'EOF'
import json, sys
from pathlib import Path
p = Path(sys.argv[1]); c = json.loads(p.read_text()); c["submissions"] = sys.argv[2]
p.write_text(json.dumps(c, indent=2))
EOF
before=$( [ -f "$RUN/results.jsonl" ] && wc -l < "$RUN/results.jsonl" || echo 0)
[ "$PLATFORM" = cuda ] && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
t0=$(date +%s)
# SIGINT first (the run records what finished and writes its summary), a hard kill 20 s later
timeout -s INT -k 20 $(( DEADLINE - 30 )) $PY -m kernelgenbench.cli eval solutions $SEL --tier "$TIER" \
    --platform "$PLATFORM" --jobs "$JOBS" --reps "$REPS" --warmup-ms "$WARM" --timing-hold "$HOLD" \
    --shard-cases "$SHARD" --out "$RUN" > "$OUT/eval.log" 2>&1
rc=$?
echo "kgb eval rc $rc after $(( $(date +%s) - t0 )) s on commit ${COMMIT:0:10} ($before records before this call)"
if [ "$rc" -ge 2 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 130 ]; then
  echo "kgb eval judged nothing in this call (rc $rc):"; grep -v "^\s*$" "$OUT/eval.log" | tail -12
else
  tail -4 "$OUT/eval.log"
fi
for f in results.jsonl shards.jsonl config.json; do cp "$RUN/$f" "$OUT/$f" 2>/dev/null; done
cp "$RUN/env.json" "$OUT/env-${COMMIT:0:10}.json" 2>/dev/null; cp "$RUN/env.json" "$OUT/env.json" 2>/dev/null
$PY - "$RUN/results.jsonl" "$RUN/config.json" <<'EOF' | tee "$OUT/table.txt"
import json, math, sys
from pathlib import Path
recs = {}
p = Path(sys.argv[1])
for line in (p.read_text().splitlines() if p.exists() else []):
    try:
        r = json.loads(line)
    except json.JSONDecodeError:
        continue
    recs[r["op"]] = r  # the latest record of each operator
cfg = json.loads(Path(sys.argv[2]).read_text()) if Path(sys.argv[2]).exists() else {}
wanted = cfg.get("ops") or sorted(recs)
done = [recs[o] for o in wanted if o in recs]
passed = [r for r in done if r["status"] == "passed"]
print(f"{len(done)} of {len(wanted)} operators recorded, {len(passed)} passed")
for r in done:
    base = str(r.get("baseline") or "").split(" (")[0]
    sp = f"{r['speedup']:.3f}x" if r.get("speedup") else "-"
    print(f"  {r['op']:42} {r['status']:8} {r.get('cases_passed')}/{r.get('cases_total')}  {sp:>10}  "
          f"{r.get('sol_pct') or '-':>6}  {base[:40]}  {r.get('wall_s')} s")
sps = [r["speedup"] for r in passed if r.get("speedup")]
if sps:
    print(f"geomean over {len(sps)} timed operators: {math.exp(sum(math.log(s) for s in sps) / len(sps)):.3f}x "
          f"(one level: the per-source two-level geomean is kgb summary's)")
missing = [o for o in wanted if o not in recs]
if missing:
    print(f"not recorded yet ({len(missing)}): {' '.join(missing)}")
EOF
[ "$rc" -eq 124 ] && rc=130  # cut by DEADLINE: resumable (124 would read as the device call's own time limit)
exit $rc
