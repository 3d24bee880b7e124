#!/usr/bin/env bash
# The held-out tier (untimed) of the selected source on one GPU with several job slots sharing it,
# time-boxed so that whatever finished comes back: records are appended to $OUT/run/results.jsonl
# as jobs finish. Then, if time is left, the out-of-bounds bad submission on the GPU (cuda_fault).
# Usage: bench/h200_heldout.sh [source] [slots] [seconds]
set -u
SRC=${1:-aten}; SLOTS=${2:-4}; BUDGET=${3:-330}
OUT=${OUT:-/tmp/kgb-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=160
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout "$BUDGET" python3 -m kernelgenbench.cli eval solutions --source "$SRC" --tier heldout --jobs "$SLOTS" \
    --out "$OUT/run" > "$OUT/heldout.log" 2>&1
echo "heldout rc=$? after $(( $(date +%s) - t0 )) s"
python3 - "$OUT/run/results.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in recs if r["status"] == "passed"]
print(f"{len(recs)} jobs finished, {len(ok)} passed")
for r in recs:
    if r["status"] != "passed":
        ff = r.get("first_failure") or {}
        print("FAILED", r["op"], r["failure_class"], ff.get("case_id"), (ff.get("message") or "")[:300].replace("\n", " | "))
PY
left=$(( BUDGET + 60 - ($(date +%s) - t0) ))
if [ "$left" -gt 40 ]; then
  KGB_TEST_PLATFORM=cuda timeout "$left" python3 -m pytest -q -p no:cacheprovider tests/test_bad_submissions.py -k "oob or wrong_values or calls_own_op" 2>&1 | tail -3
fi
