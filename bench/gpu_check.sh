#!/usr/bin/env bash
# A partial GPU check for a session whose device time cannot hold the whole gate (bench/gpu_gate.sh): the GPU-only
# tests beside the held-out tier of the operators named in OPS, then the full tier of FULL_OPS; a table at the end.
# Not a gate: its record says which parts ran. Run from the repository root on the GPU machine.
set -u
OUT=${OUT:-/tmp/kgb-check}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
T_TESTS=${T_TESTS:-280}; T_HELD=${T_HELD:-280}; T_FULL=${T_FULL:-120}
W=$(mktemp -d /tmp/kgb-check.XXXX)
SEL=""; for o in ${OPS:-}; do SEL="$SEL --op $o"; done
FSEL=""; for o in ${FULL_OPS:-}; do FSEL="$FSEL --op $o"; done
( KGB_TEST_PLATFORM=cuda timeout "$T_TESTS" python3 -m pytest -q -p no:cacheprovider -n 8 \
      tests/test_timing_gpu.py tests/test_legal_submissions.py tests/test_bad_submissions.py \
      tests/test_interpreter_source.py tests/test_cublas_binding.py > "$W/gpu-tests.log" 2>&1
  echo "rc $?" >> "$W/gpu-tests.log" ) &
if [ -n "$SEL" ]; then
  ( timeout "$T_HELD" python3 -m kernelgenbench.cli eval solutions $SEL --tier heldout --platform cuda --jobs 6 \
        --out "$W/heldout" > "$W/heldout.log" 2>&1; echo "rc $?" >> "$W/heldout.log" ) &
fi
wait
if [ -n "$FSEL" ]; then
  timeout "$T_FULL" python3 -m kernelgenbench.cli eval solutions $FSEL --tier full --platform cuda --jobs 4 \
      --reps 10 --warmup-ms 10 --out "$W/full" > "$W/full.log" 2>&1; echo "rc $?" >> "$W/full.log"
fi
tar czf "$OUT/check-logs.tgz" -C "$W" . 2>/dev/null
echo "== GPU-only tests"; tail -15 "$W/gpu-tests.log"
[ -n "$SEL" ] && { echo "== held-out"; grep -E "^(✗|~)|overall|rc " "$W/heldout.log" | tail -40; }
[ -n "$FSEL" ] && { echo "== full"; grep -E "│ (aten|vllm|cublas)::|overall|rc " "$W/full.log" | tail -20; }
