#!/usr/bin/env bash
# Throughput of the harness on a fixed operator set (issue 18 item 5): the oracle solutions of OPS, evaluated twice
# into two fresh run directories, then bench/throughput.py prints, per run, the wall time, jobs per minute, where
# the jobs' time went, the harness's seconds per timed case beside the device time it measured, and the spread
# between the two runs (speedups per operator, job and run wall times).
#
#   bash bench/throughput.sh                                   # on a GPU machine: tier full, one slot per GPU
#   PLATFORM=interpreter TIER=smoke bash bench/throughput.sh   # the plumbing on the CPU (no timing figures)
#   BACKEND=ray bash bench/throughput.sh                       # the same through the Ray backend (a local instance)
#
# Knobs: PLATFORM (cuda), TIER (full), JOBS (the kgb eval default), REPS (30), BACKEND (local), ADDRESS (a Ray
# cluster), OPS (the fixed set below), PY (python3), OUT (where the run directories and throughput.json go),
# HOLD_A / HOLD_B (kgb eval --timing-hold of run a / run b, default job: HOLD_B=case compares the two holds).
# Timing figures (harness per timed case, speedup spread) exist on GPUs only: the interpreter times nothing.
set -u
PLATFORM=${PLATFORM:-cuda}
TIER=${TIER:-full}
REPS=${REPS:-30}
BACKEND=${BACKEND:-local}
PY=${PY:-python3}
OUT=${OUT:-/tmp/kgb-throughput}
# A fixed set of 12 operators of the three sources: pointwise, reductions, scans, softmax, matmuls, indexing.
OPS=${OPS:-"aten::neg aten::add aten::cos aten::sum aten::amin aten::cumsum aten::_softmax aten::mm aten::index_select vllm::rms_norm vllm::fused_add_rms_norm cublas::cublasSaxpy_v2"}
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH} COLUMNS=${COLUMNS:-160}
mkdir -p "$OUT"
SEL=""; for o in $OPS; do SEL="$SEL --op $o"; done
EXTRA=""; [ -n "${JOBS:-}" ] && EXTRA="$EXTRA --jobs $JOBS"
[ "$BACKEND" != local ] && EXTRA="$EXTRA --backend $BACKEND"
[ -n "${ADDRESS:-}" ] && EXTRA="$EXTRA --address $ADDRESS"
STAMP=$(date +%Y%m%d-%H%M%S)
for run in a b; do
  dir="$OUT/$STAMP-$run"
  if [ "$run" = a ]; then hold=${HOLD_A:-job}; else hold=${HOLD_B:-job}; fi
  echo "== run $run: $dir ($PLATFORM, tier $TIER, backend $BACKEND, timing hold $hold)"
  start=$(date +%s.%N)
  # exit status 1 means a job failed: the figures are still measured (and the verdicts compared below)
  $PY -m kernelgenbench.cli eval solutions $SEL --tier "$TIER" --platform "$PLATFORM" --reps "$REPS" \
      --out "$dir" --fresh --timing-hold "$hold" $EXTRA > "$dir.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "   exit $rc, $(awk "BEGIN{printf \"%.1f\", $end - $start}") s including start-up (log: $dir.log)"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then tail -20 "$dir.log"; exit "$rc"; fi
done
$PY bench/throughput.py "$OUT/$STAMP-a" "$OUT/$STAMP-b" --json "$OUT/$STAMP-throughput.json"
echo "figures: $OUT/$STAMP-throughput.json"
