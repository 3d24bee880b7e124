#!/usr/bin/env bash
# Issue 3 on the H200: the held-out tier, then the full tier, of the ATen oracles, the operators split
# into one part per GPU (bench/split_ops.py; nvidia-h200-x2 -> two halves run at once). Time-boxed
# and resumable across calls: the run directories are runs/h200/{heldout,full}<gpu> (carry runs/h200),
# so a later call, on the same or a fresh machine, runs only the jobs not yet recorded. Held-out jobs
# share a GPU (SLOTS each: nothing is timed); full-tier jobs too (FSLOTS each), but a job times its
# cases with the GPU to itself (run/gate.py).
# What comes back in $OUT: records.tgz (results.jsonl, config, env, summary of every run directory)
# and the logs. Usage: [DEADLINE=540] [SLOTS=5] [ROOT=runs/h200] [TIERS="heldout full"] bench/h200_aten.sh [reps] [warmup_ms]
# (TIERS=heldout: the held-out tier only; ROOT: another set of run directories, e.g. a re-run on a newer harness).
set -u
REPS=${1:-10}; WARM=${2:-10}; DEADLINE=${DEADLINE:-540}; SLOTS=${SLOTS:-5}; FSLOTS=${FSLOTS:-3}
OUT=${OUT:-/tmp/kgb-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
ROOT=${ROOT:-runs/h200}; TIERS=${TIERS:-heldout full}; mkdir -p $ROOT
NGPU=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
t0=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - t0) )); }
# A run directory made in another checkout (a fresh machine) names another absolute submissions path;
# the submissions are the same files (job keys hold their sha256), so the path is updated.
python3 - "$ROOT" "$PWD/solutions" <<'PY'
import json, pathlib, sys
for c in pathlib.Path(sys.argv[1]).glob("*/config.json"):
    d = json.loads(c.read_text()); d["submissions"] = sys.argv[2]; c.write_text(json.dumps(d, indent=2))
PY
one() {  # $1 = GPU index
  local g=$1 sel
  sel=$(python3 bench/split_ops.py aten "$NGPU" "$g" | sed 's/^/--op /' | tr '\n' ' ')
  if [[ " $TIERS " == *" heldout "* ]]; then
    CUDA_VISIBLE_DEVICES=$g timeout "$(left)" python3 -m kernelgenbench.cli eval solutions $sel --tier heldout \
        --jobs "$SLOTS" --out $ROOT/heldout$g >> "$OUT/heldout$g.log" 2>&1
  fi
  [[ " $TIERS " == *" full "* ]] && [ "$(left)" -gt 20 ] || return
  # REST=name: the full-tier jobs no full* directory has recorded yet, split again over the GPUs into
  # full-<name><gpu> (when one half ran slower than the other).
  local fdir=$ROOT/full$g
  if [ -n "${REST:-}" ]; then
    fdir=$ROOT/full-$REST$g
    sel=$(python3 bench/split_ops.py aten "$NGPU" "$g" --rest "$ROOT" | sed 's/^/--op /' | tr '\n' ' ')
    [ -n "$sel" ] || return
  fi
  CUDA_VISIBLE_DEVICES=$g timeout "$(left)" python3 -m kernelgenbench.cli eval solutions $sel --tier full \
      --jobs "$FSLOTS" --reps "$REPS" --warmup-ms "$WARM" --out $fdir >> "$OUT/full$g.log" 2>&1
}
for g in $(seq 0 $((NGPU - 1))); do one "$g" & done
wait
echo "wall $(( $(date +%s) - t0 )) s"
tar czf "$OUT/records.tgz" $(ls $ROOT/*/{results.jsonl,config.json,env.json,summary.json} 2>/dev/null)
python3 - "$ROOT" "$NGPU" "$TIERS" <<'PY'
import json, pathlib, sys
from kernelgenbench.metrics import latest_records
root, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
sys.path.insert(0, "bench")
from split_ops import parts
want = sum(len(p) for p in parts("aten", n))
for tier in sys.argv[3].split():
    recs = []
    for f in sorted(root.glob(f"{tier}*/results.jsonl"), key=lambda p: p.stat().st_mtime):
        recs += [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    recs = latest_records(recs)
    ok = [r for r in recs if r["status"] == "passed"]
    print(f"{tier}: {len(recs)}/{want} jobs recorded, {len(ok)} passed, "
          f"{sum(r.get('wall_s') or 0 for r in recs):.0f} s of jobs")
    for r in recs:
        if r["status"] != "passed":
            ff = r.get("first_failure") or {}
            print("  FAILED", r["op"], r["failure_class"], ff.get("case_id"), (ff.get("message") or "")[:240].replace("\n", " | "))
PY
