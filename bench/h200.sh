#!/usr/bin/env bash
# Runs the slice on an NVIDIA GPU machine (the device tool's H200): binding tests, then kgb eval on
# the requested tiers. Usage: bench/h200.sh "smoke heldout full" [reps] [extra kgb args]
# Logs and run records are copied flat into $OUT (the device tool returns at most 8 files).
set -u
TIERS=${1:-"smoke heldout full"}
REPS=${2:-30}
EXTRA=${3:-}
OUT=${OUT:-/tmp/kgb-out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
for t in $TIERS; do
  start=$(date +%s)
  python3 -m kernelgenbench.cli eval solutions --tier "$t" --name "h200-$t" --runs-root /tmp/kgb-runs \
      --reps "$REPS" $EXTRA 2>&1 | tee "$OUT/eval-$t.log" | grep -vE "^(✓|✗|~) " | tail -45
  echo "tier $t wall: $(( $(date +%s) - start )) s"
  d=$(ls -d /tmp/kgb-runs/*-h200-$t | tail -1)
  cp "$d/results.jsonl" "$OUT/results-$t.jsonl"; cp "$d/summary.json" "$OUT/summary-$t.json"
  cp "$d/env.json" "$OUT/env.json"
done
