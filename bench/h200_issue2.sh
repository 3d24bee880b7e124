#!/usr/bin/env bash
# Issue 2's H200 figures in one device call on nvidia-h200-x2: the slice's full tier twice (one run
# per GPU, concurrently), then — if time is left — the GPU-only tests (bad submissions incl. the
# out-of-bounds kernel, legal styles, the cuBLAS binding). Usage: bench/h200_issue2.sh [reps] [warmup_ms]
set -u
OUT=${OUT:-/tmp/kgb-out}; mkdir -p "$OUT"
t0=$(date +%s)
MODE=parallel bash bench/h200_full.sh "${1:-20}" "${2:-10}" 2>&1 | tee "$OUT/full-summary.txt"
left=$(( 560 - ($(date +%s) - t0) ))
echo "full tier done after $(( $(date +%s) - t0 )) s; $left s left for GPU tests"
if [ "$left" -gt 60 ]; then
  KGB_TEST_PLATFORM=cuda PYTHONPATH=$PWD/src timeout "$left" python3 -m pytest -q -x -p no:cacheprovider \
    tests/test_cublas_binding.py tests/test_bad_submissions.py > "$OUT/gpu-tests.log" 2>&1
  echo "gpu tests rc=$?"; tail -5 "$OUT/gpu-tests.log"
fi
