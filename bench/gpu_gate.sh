#!/usr/bin/env bash
# The GPU gate (DESIGN.md "Verified on the GPU, every time"): one device call of at most 9 minutes on one
# H200 that a change to code running on GPUs (sandbox, verify, run, suite, solutions) must pass on the commit
# that lands. Three parts:
#   1. the held-out tier of every oracle in solutions/ (nothing timed), and at the same time the GPU-only
#      tests (timing protocol, legal fixtures, launch-rule / ghost / timing / out-of-bounds fixtures on CUDA);
#   2. then, alone on the GPU, the full tier of a fixed set of operators from all three sources (GATE_OPS),
#      timed with REPS/WARM;
#   3. a record: bench/gate_report.py compares the speedups with the last recorded gate's and writes
#      <date>-<commit>.txt (verdict, tables, a JSON block the next gate compares against).
# Run from the repository root on the GPU machine (device tool), passing the commit being gated:
#     COMMIT=$(git rev-parse HEAD) bash bench/gpu_gate.sh            # locally: the command to send
# $OUT (the device tool's folder) receives the record and a tarball of the logs and run records; copy the
# record into bench/results/gpu-gate/ and write its commit into bench/results/gpu-gate/LAST:
#     python3 bench/gate_report.py --install <files_at>/gpu-gate-*.txt
# PLATFORM=interpreter runs the same plumbing on the CPU (smoke instead of held-out/full, no GPU tests;
# OPS/GATE_OPS narrow the sets) to check the script itself.
set -u
OUT=${OUT:-/tmp/kgb-gate}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
PLATFORM=${PLATFORM:-cuda}
PY=${PY:-python3}                   # the Python that has torch (the GPU image: python3)
REPS=${REPS:-10}; WARM=${WARM:-10}
DEADLINE=${DEADLINE:-540}            # seconds for the whole gate
GATE_OPS=${GATE_OPS:-"aten::_softmax aten::cumsum aten::index_select aten::mm aten::sum vllm::rms_norm vllm::topk_softmax cublas::cublasSgemm_v2"}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
W=$(mktemp -d /tmp/kgb-gate.XXXX)
t0=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - t0) )); }
if [ "$PLATFORM" = cuda ]; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$W/gpu.txt"
  HTIER=heldout; FTIER=full; HSLOTS=${HSLOTS:-12}; TSLOTS=${TSLOTS:-6}; FSLOTS=${FSLOTS:-4}
else
  echo "dry run on $PLATFORM" | tee "$W/gpu.txt"; HTIER=smoke; FTIER=smoke; HSLOTS=2; FSLOTS=2
fi
SEL=""; [ -n "${OPS:-}" ] && for o in $OPS; do SEL="$SEL --op $o"; done
FSEL=""; for o in $GATE_OPS; do FSEL="$FSEL --op $o"; done

# 1. held-out of every oracle, beside the GPU-only tests (neither times anything that the other could disturb:
#    the tests' timing fixtures judge classes, not speeds)
( timeout $(( $(left) - 200 )) $PY -m kernelgenbench.cli eval solutions $SEL --tier $HTIER \
      --platform $PLATFORM --jobs $HSLOTS --out "$W/heldout" > "$W/heldout.log" 2>&1
  echo "rc $?" >> "$W/heldout.log" ) &
if [ "$PLATFORM" = cuda ]; then
  ( KGB_TEST_PLATFORM=cuda timeout $(( $(left) - 200 )) $PY -m pytest -q -vv --tb=short -p no:cacheprovider -n $TSLOTS \
        tests/test_timing_gpu.py tests/test_legal_submissions.py tests/test_bad_submissions.py \
        tests/test_interpreter_source.py tests/test_cublas_binding.py > "$W/gpu-tests.log" 2>&1
    echo "rc $?" >> "$W/gpu-tests.log" ) &
else
  echo "rc skipped (no GPU)" > "$W/gpu-tests.log"
fi
wait
echo "part 1 done after $(( $(date +%s) - t0 )) s"
# 2. the gate set's full tier, alone on the GPU
timeout $(( $(left) - 15 )) $PY -m kernelgenbench.cli eval solutions $FSEL --tier $FTIER --platform $PLATFORM \
    --jobs $FSLOTS --reps $REPS --warmup-ms $WARM --out "$W/full" > "$W/full.log" 2>&1
echo "rc $?" >> "$W/full.log"
WALL=$(( $(date +%s) - t0 ))
echo "gate wall $WALL s"
# 3. the record
NAME="gpu-gate-$(date -u +%Y-%m-%d)-${COMMIT:0:10}.txt"
$PY bench/gate_report.py --commit "$COMMIT" --wall "$WALL" --reps "$REPS" --warmup-ms "$WARM" \
    --gpu "$W/gpu.txt" --heldout "$W/heldout" --full "$W/full" --tests "$W/gpu-tests.log" \
    --ops "$GATE_OPS" --previous bench/results/gpu-gate --out "$OUT/$NAME"
rc=$?
tar czf "$OUT/gate-logs.tgz" -C "$W" . 2>/dev/null
exit $rc
