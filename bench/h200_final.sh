#!/usr/bin/env bash
# Issue 3, session 5 on one H200: the held-out tier of all 110 ATen oracles on this session's harness
# (launch-argument rule, gate change) into runs/h200-final2, and at the same time the GPU-only tests
# (timing cheats, legal fixtures, launch-rule and ghost fixtures on CUDA). Held-out times nothing, so
# the tests' timing shares the GPU only with untimed work. Usage: bench/h200_final.sh
set -u
OUT=${OUT:-/tmp/kgb-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
t0=$(date +%s)
(ROOT=runs/h200-final2 TIERS=heldout DEADLINE=${DEADLINE:-470} SLOTS=${SLOTS:-8} bash bench/h200_aten.sh \
    > "$OUT/heldout-summary.log" 2>&1) &
(KGB_TEST_PLATFORM=cuda timeout 470 python3 -m pytest -q -p no:cacheprovider tests/test_timing_gpu.py \
    tests/test_legal_submissions.py tests/test_bad_submissions.py -k "launch or ghost or timing or legal" \
    > "$OUT/gpu-tests.log" 2>&1; echo "gpu tests rc $?" >> "$OUT/gpu-tests.log") &
wait
echo "wall $(( $(date +%s) - t0 )) s"
tail -4 "$OUT/gpu-tests.log"
tail -6 "$OUT/heldout-summary.log"
