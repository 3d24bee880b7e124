#!/usr/bin/env bash
# Issue 11's remaining figure: the full tier of the 12 operators of the first slice (6 ATen, 3 vLLM, 3 cuBLAS) on
# one GPU, timed as the gate times (REPS 10, warm-up 10 ms), then a table per operator (status, cases, speedup,
# median % SOL, harness seconds per timed case) and the spread against the last recorded speedups of the same
# slice (bench/results/2026-11-30-h200-slice-full, commit 40e20ae, H200, reps 10).
# Resumable: the run directory is runs/slice-<commit10> (git-ignored; a warm device keeps it between calls, or
# carry it): a call cut by its limit loses only the jobs in flight, and the same command resumes.
#     COMMIT=<sha> DEADLINE=560 OUT=$OUT bash bench/slice_full.sh          # one device call
#     PLATFORM=interpreter TIER=smoke bash bench/slice_full.sh             # the plumbing on the CPU
set -u
OUT=${OUT:-/tmp/kgb-slice}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
PY=${PY:-python3}
PLATFORM=${PLATFORM:-cuda}; TIER=${TIER:-full}
REPS=${REPS:-10}; WARM=${WARM:-10}; JOBS=${JOBS:-4}
DEADLINE=${DEADLINE:-560}
OPS=${OPS:-"aten::add aten::_softmax aten::sum aten::mm aten::cumsum aten::index_select vllm::rms_norm
  vllm::fused_add_rms_norm vllm::topk_softmax cublas::cublasSaxpy_v2 cublas::cublasSgemm_v2 cublas::cublasStrsv_v2"}
LASTREC=${LASTREC:-bench/results/2026-11-30-h200-slice-full/results-full0.jsonl.gz}
if [ "$PLATFORM" = cuda ] && [ -z "${COMMIT:-}" ]; then
  echo "COMMIT=<sha> is required on the GPU (the device's git metadata can be older than its tree)"; exit 2
fi
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
export KGB_COMMIT=$COMMIT  # stamped on every record (harness_commit) and in env.json
RUN=runs/slice-${COMMIT:0:10}-$PLATFORM-$TIER
SEL=""; for o in $OPS; do SEL="$SEL --op $o"; done
[ "$PLATFORM" = cuda ] && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
t0=$(date +%s)
# SIGINT first (the run records what finished and writes its summary), a hard kill 20 s later
timeout -s INT -k 20 $(( DEADLINE - 25 )) $PY -m kernelgenbench.cli eval solutions $SEL --tier "$TIER" \
    --platform "$PLATFORM" --jobs "$JOBS" --reps "$REPS" --warmup-ms "$WARM" --out "$RUN" > "$OUT/slice.log" 2>&1
echo "kgb eval rc $? after $(( $(date +%s) - t0 )) s (this call; $RUN resumes)"
tail -4 "$OUT/slice.log"
cp "$RUN/results.jsonl" "$OUT/slice-results.jsonl" 2>/dev/null
$PY bench/slice_table.py "$RUN/results.jsonl" "$LASTREC" --ops "$OPS" | tee "$OUT/slice-table.txt"
