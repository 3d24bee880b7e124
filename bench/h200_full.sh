#!/usr/bin/env bash
# The slice's full tier twice, for speedups and their run-to-run spread (issue 2's last figures).
# On nvidia-h200-x2 the two runs go in parallel, one per GPU (MODE=parallel, the default); on one
# GPU, MODE=sequential runs them one after the other on GPU 0. Records are copied flat into $OUT.
# Usage: [OPS="aten::add ..."] [TIER=full] bench/h200_full.sh [reps] [warmup_ms]
# OPS defaults to issue 2's 12-operator slice; OPS=all evaluates every file in solutions/.
set -u
REPS=${1:-20}
WARM=${2:-10}
MODE=${MODE:-parallel}
OUT=${OUT:-/tmp/kgb-out}
TIER=${TIER:-full}
OPS=${OPS:-"aten::add aten::_softmax aten::sum aten::mm aten::cumsum aten::index_select vllm::rms_norm
  vllm::fused_add_rms_norm vllm::topk_softmax cublas::cublasSaxpy_v2 cublas::cublasSgemm_v2 cublas::cublasStrsv_v2"}
SEL=""
if [ "$OPS" != all ]; then for o in $OPS; do SEL="$SEL --op $o"; done; fi
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
one() {  # $1 = run index, $2 = GPU
  CUDA_VISIBLE_DEVICES=$2 python3 -m kernelgenbench.cli eval solutions $SEL --tier "$TIER" --name full$1 \
      --runs-root /tmp/kgb-full$1 --reps "$REPS" --warmup-ms "$WARM" > "$OUT/full$1.log" 2>&1
  d=$(ls -d /tmp/kgb-full$1/*-full$1 | tail -1)
  cp "$d/results.jsonl" "$OUT/results-full$1.jsonl"; cp "$d/summary.json" "$OUT/summary-full$1.json" 2>/dev/null
  cp "$d/env.json" "$OUT/env-full$1.json"
}
start=$(date +%s)
if [ "$MODE" = parallel ]; then one 0 0 & one 1 1 & wait; else one 0 0; one 1 0; fi
echo "wall $(( $(date +%s) - start )) s ($MODE)"
grep -E "job time|summary ·" "$OUT/full0.log"
sed -n '/operators/,$p' "$OUT/full0.log" | grep -E "│" | head -30
python3 bench/spread.py "$OUT/results-full0.jsonl" "$OUT/results-full1.jsonl"
