#!/usr/bin/env bash
# Issue 3, session 4 on the H200 (nvidia-h200-x2): GPU 0 runs the anti-cheat tests that had only run on
# the interpreter (ghost fixtures, legal fixtures, timing cheats); GPU 1 the full tier of the three
# operators the last call did not reach plus aten::mm (the timing protocol changed: fresh inputs per
# timed repetition) and the red team's mm result cache. Usage: bench/h200_checks.sh [reps] [warmup_ms]
set -u
REPS=${1:-10}; WARM=${2:-10}; OUT=${OUT:-/tmp/kgb-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
t0=$(date +%s)
NGPU=$(nvidia-smi -L | wc -l); G1=$(( NGPU > 1 ? 1 : 0 ))
# one GPU: the evaluations first (they time), then the tests, one after the other
tests() { CUDA_VISIBLE_DEVICES=0 KGB_TEST_PLATFORM=cuda timeout 200 python3 -m pytest -q -p no:cacheprovider \
    tests/test_timing_gpu.py tests/test_legal_submissions.py "tests/test_bad_submissions.py" -k "ghost or timing or legal" \
    > "$OUT/gpu-tests.log" 2>&1; echo "gpu tests rc $?" >> "$OUT/gpu-tests.log"
}
evals() { CUDA_VISIBLE_DEVICES=$G1 timeout 270 python3 -m kernelgenbench.cli eval solutions --op aten::stack --op aten::unsafe_split \
    --op aten::zeros_like --op aten::mm --tier full --jobs 2 --reps "$REPS" --warmup-ms "$WARM" \
    --out runs/h200/full-s4 > "$OUT/full-s4.log" 2>&1
  mkdir -p /tmp/cache-sub && python3 -c 'import sys; from pathlib import Path; sys.path.insert(0, "tests"); \
from fixture_files import write_submission as w; w(Path("bench/redteam/mm_result_cache__aten__mm.patch.py"), \
Path("/tmp/cache-sub/aten__mm.py"))'
  CUDA_VISIBLE_DEVICES=$G1 timeout 80 python3 -m kernelgenbench.cli eval /tmp/cache-sub --op aten::mm --tier full \
    --reps "$REPS" --warmup-ms "$WARM" --out runs/h200/mm-cache > "$OUT/mm-cache.log" 2>&1
}
if [ "$NGPU" -gt 1 ]; then tests & evals & wait; else evals; tests; fi
echo "wall $(( $(date +%s) - t0 )) s"
tail -5 "$OUT/gpu-tests.log"
python3 bench/merge_runs.py runs/h200/full-s4 2>&1 | tail -12
python3 bench/merge_runs.py runs/h200/mm-cache 2>&1 | tail -6
tar czf "$OUT/records.tgz" runs/h200/full-s4 runs/h200/mm-cache 2>/dev/null
