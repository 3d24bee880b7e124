#!/usr/bin/env bash
# The GPU gate (DESIGN.md "Verified on the GPU, every time"): what a change to code running on GPUs (sandbox,
# verify, run, suite, solutions) must pass on the commit that lands. Two device calls of at most 9 minutes each
# on one H200 (since the suite grew past ~120 oracles, the held-out tier of every oracle beside the GPU-only
# tests fills one call; the full tier needs the GPU alone, so it gets its own):
#   PART=1  the held-out tier of every oracle in solutions/ (nothing timed), and at the same time the GPU-only
#           tests (timing protocol, launch-rule / ghost / timing / out-of-bounds fixtures on CUDA); writes
#           $OUT/gate-part1-<commit>.json (a summary: statuses, failures, test outcome).
#   PART=2  the full tier of a fixed set of operators from all three sources (GATE_OPS), alone on the GPU, timed
#           with REPS/WARM; then the legal-submission tests (smoke and held-out on the GPU); then the record: bench/gate_report.py reads part 1's summary (PART1=path, which must
#           name the same commit), compares the speedups with the last recorded gate's and writes
#           $OUT/gpu-gate-<date>-<commit>.txt (verdict, tables, a JSON block the next gate compares against).
# Locally, the two calls to send through the device tool (the device's copy of the tree may not know HEAD:
# always pass COMMIT):
#     COMMIT=<sha> PART=1 bash bench/gpu_gate.sh
#     cp <files_at>/gate-part1-*.json bench/results/gpu-gate/pending/       # untracked: travels with the tree
#     COMMIT=<sha> PART=2 PART1=bench/results/gpu-gate/pending/gate-part1-<sha10>.json bash bench/gpu_gate.sh
# On an H100 (80 GB: fewer slots) part 1 does not fit one call any more (3fe7849: 6 of 210 oracles cut at 546 s);
# run it as two calls, each workload alone (HSLOTS_ALONE=8 held-out slots, TSLOTS_ALONE=10 test workers):
#     COMMIT=<sha> PART=1h bash bench/gpu_gate.sh                  # writes $OUT/gate-heldout-<sha10>.json
#     cp <files_at>/gate-heldout-*.json bench/results/gpu-gate/pending/
#     COMMIT=<sha> PART=1t HELDOUT=bench/results/gpu-gate/pending/gate-heldout-<sha10>.json bash bench/gpu_gate.sh
#     (writes gate-part1-<sha10>.json as PART=1 does; then PART=2 as above)
# A PART=1h cut by its deadline (NOT JUDGED operators; a slower host at aadd375 left 10 of 210) resumes in the next
# call: extract heldout/ of its gate-logs-part1h.tgz into the tree (untracked) and pass RESUME=that folder.
# then install the record (copies it into bench/results/gpu-gate/ and writes the commit into LAST):
#     python3 bench/gate_report.py --install <files_at>/gpu-gate-*.txt
# PLATFORM=interpreter runs the same plumbing on the CPU (smoke instead of held-out/full, no GPU tests;
# OPS/GATE_OPS narrow the sets) to check the script itself; PART=all runs both parts in one go.
set -u
OUT=${OUT:-/tmp/kgb-gate}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 COLUMNS=170
PLATFORM=${PLATFORM:-cuda}
PART=${PART:-all}
PY=${PY:-python3}                   # the Python that has torch (the GPU image: python3)
REPS=${REPS:-10}; WARM=${WARM:-10}
# part 2 judges the gate set's jobs of more than FSHARD cases in case shards (kgb eval --shard-cases: rms_norm 60
# cases, moe_sum 48 and cumsum 25 split; the others whole), so every gate runs shards and their merge on the GPU
FSHARD=${FSHARD:-20}
DEADLINE=${DEADLINE:-540}            # seconds for this call
# the gate set: 8 operators from the three sources (issue 11 asks for at least 8), 134 timed cases (cumsum 25,
# index_select 18, mm 18, neg 18, rms_norm 16 of 60, moe_sum 12 of 48, cublasDgemv_v2 18 of 30, cublasDasum_v2 9),
# sized to finish in one call at the ~2.5 s of wall per timed case 9659a83's part 2 saw
# (185 timed cases with _softmax's 36 and topk_softmax's 36 would need about 460 s of the 525 s a call leaves).
GATE_OPS=${GATE_OPS:-"aten::cumsum aten::index_select aten::mm aten::neg vllm::rms_norm vllm::moe_sum cublas::cublasDgemv_v2 cublas::cublasDasum_v2"}
# the device's copy of the tree carries git metadata that can be older than the tree (a session's gate at 5aa46ce
# read f57781c from it): on a GPU the commit must be given
if [ "${PLATFORM:-cuda}" = cuda ] && [ -z "${COMMIT:-}" ]; then
  echo "COMMIT=<sha> is required on the GPU (git rev-parse HEAD can name an older commit than the tree copied here)"
  exit 2
fi
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
export KGB_COMMIT=$COMMIT  # stamped on every record (harness_commit) and in env.json
C10=${COMMIT:0:10}
W=$(mktemp -d /tmp/kgb-gate.XXXX)
trap 'rm -rf "$W"' EXIT  # its logs leave packed in $OUT/gate-logs-part*.tgz; every call left one behind
t0=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - t0) )); }
if [ "$PLATFORM" = cuda ]; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$W/gpu.txt"
  MEM=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1 | tr -d ' ')
  if [ "${MEM:-0}" -lt 100000 ]; then
    # an 80 GB H100 at 5aa46ce: 8 held-out slots beside 12 test workers ran out of memory (19 oracles, 9 tests)
    echo "warning: ${MEM} MiB of GPU memory; part 1 was sized for an H200 (139 GB): fewer slots here"
    # (the legal tests of part 2 run alone: 16 workers passed 123 fixtures in 228 s on an H100 at df55ad0, but at
    # 1cf9293 four of 126 ran out of memory (held-out rms_norm and sort, smoke Sscal and fused_add_rms_norm);
    # 12 workers passed all 126 in 284 s)
    HSLOTS=${HSLOTS:-6}; TSLOTS=${TSLOTS:-6}; LSLOTS=${LSLOTS:-12}
  fi
  HTIER=heldout; FTIER=full; HSLOTS=${HSLOTS:-12}; TSLOTS=${TSLOTS:-10}; FSLOTS=${FSLOTS:-4}; LSLOTS=${LSLOTS:-16}
else
  echo "dry run on $PLATFORM" | tee "$W/gpu.txt"; HTIER=smoke; FTIER=smoke; HSLOTS=2; FSLOTS=2
fi
SEL=""; [ -n "${OPS:-}" ] && for o in $OPS; do SEL="$SEL --op $o"; done
FSEL=""; for o in $GATE_OPS; do FSEL="$FSEL --op $o"; done
pack() { tar czf "$OUT/gate-logs-part$1.tgz" --exclude=triton-cache --exclude=cwd -C "$W" . 2>/dev/null; }

if [ "$PART" = 1h ]; then
  # part 1 as two calls (an H100, where the held-out run beside the tests did not fit one call: 3fe7849's part 1
  # cut 6 of 210 oracles at 546 s): first the held-out run of every oracle alone, with the CPU to itself
  [ "${MEM:-0}" -lt 100000 ] && [ "$PLATFORM" = cuda ] && HSLOTS=${HSLOTS_ALONE:-8}
  if [ -n "${RESUME:-}" ]; then
    # a held-out run of this commit that a call's deadline cut (its NOT JUDGED operators): the folder of a
    # gate-logs-part1h.tgz's heldout/ (results.jsonl, config.json) copied into the tree; the run judges only the
    # operators without a record, and gate_report.py refuses records of another commit
    if [ ! -f "$RESUME/results.jsonl" ]; then echo "RESUME=$RESUME has no results.jsonl"; exit 2; fi
    mkdir -p "$W/heldout" && cp "$RESUME/results.jsonl" "$RESUME/config.json" "$W/heldout/" || exit 2
    echo "resuming the held-out run of $RESUME: $(wc -l < "$RESUME/results.jsonl") records"
  fi
  timeout $(( $(left) - 15 )) $PY -m kernelgenbench.cli eval solutions $SEL --tier $HTIER \
      --platform $PLATFORM --jobs $HSLOTS --out "$W/heldout" > "$W/heldout.log" 2>&1
  erc=$?
  echo "rc $erc" >> "$W/heldout.log"
  if [ "$erc" = 2 ]; then
    # kgb eval refused to run (RESUME= a folder of another configuration: other operators, tier or platform): the
    # records copied from there, and their config.json's selection, are not this call's run (rt40: they were
    # summarised as the held-out run, 1/1 not failed where the call selected two operators)
    tail -n 12 "$W/heldout.log"; pack 1h
    echo "the held-out run did not start (kgb eval exit 2): no held-out summary written"; exit 2
  fi
  $PY bench/gate_report.py --commit "$COMMIT" --heldout "$W/heldout" --wall "$(( $(date +%s) - t0 ))" \
      --heldout-out "$OUT/gate-heldout-$C10.json"
  rc1=$?
  pack 1h
  echo "wrote $OUT/gate-heldout-$C10.json (HELDOUT= of PART=1t) and the logs $OUT/gate-logs-part1h.tgz"
  exit $rc1
fi
if [ "$PART" = 1t ]; then
  # then the GPU-only tests alone; they write part 1's summary with the held-out run's (HELDOUT=its JSON)
  if [ ! -f "${HELDOUT:-}" ]; then echo "HELDOUT=${HELDOUT:-} is not a file: run PART=1h on $COMMIT first"; exit 2; fi
  [ "${MEM:-0}" -lt 100000 ] && [ "$PLATFORM" = cuda ] && TSLOTS=${TSLOTS_ALONE:-10}
  if [ "$PLATFORM" = cuda ]; then
    KGB_TEST_PLATFORM=cuda KGB_FAILURE_LOG="$W/gpu-test-failures.log" timeout $(( $(left) - 15 )) $PY -m pytest -q \
        -vv --tb=short -p no:cacheprovider --durations=25 -n $TSLOTS tests/test_timing_gpu.py \
        tests/test_bad_submissions.py tests/test_interpreter_source.py tests/test_cublas_binding.py tests/test_autotune_kinds.py \
        > "$W/gpu-tests.log" 2>&1
    echo "rc $?" >> "$W/gpu-tests.log"
  else
    echo "rc skipped (no GPU)" > "$W/gpu-tests.log"
  fi
  $PY bench/gate_report.py --commit "$COMMIT" --heldout "$HELDOUT" --tests "$W/gpu-tests.log" \
      --wall "$(( $(date +%s) - t0 ))" --part1-out "$OUT/gate-part1-$C10.json"
  rc1=$?
  pack 1t
  echo "wrote $OUT/gate-part1-$C10.json (PART1= of PART=2) and the logs $OUT/gate-logs-part1t.tgz"
  exit $rc1
fi
if [ "$PART" = 1 ] || [ "$PART" = all ]; then
  # held-out of every oracle, beside the GPU-only tests (neither times anything that the other could disturb:
  # the tests' timing fixtures judge classes, not speeds)
  RESERVE=$([ "$PART" = all ] && echo 200 || echo 15)
  ( timeout $(( $(left) - RESERVE )) $PY -m kernelgenbench.cli eval solutions $SEL --tier $HTIER \
        --platform $PLATFORM --jobs $HSLOTS --out "$W/heldout" > "$W/heldout.log" 2>&1
    echo "rc $?" >> "$W/heldout.log" ) &
  if [ "$PLATFORM" = cuda ]; then
    ( KGB_TEST_PLATFORM=cuda KGB_FAILURE_LOG="$W/gpu-test-failures.log" timeout $(( $(left) - RESERVE )) $PY -m pytest -q -vv --tb=short -p no:cacheprovider --durations=25 \
          -n $TSLOTS tests/test_timing_gpu.py tests/test_bad_submissions.py \
          tests/test_interpreter_source.py tests/test_cublas_binding.py tests/test_autotune_kinds.py > "$W/gpu-tests.log" 2>&1
      echo "rc $?" >> "$W/gpu-tests.log" ) &
  else
    echo "rc skipped (no GPU)" > "$W/gpu-tests.log"
  fi
  wait
  P1WALL=$(( $(date +%s) - t0 ))
  echo "part 1 done after $P1WALL s"
  $PY bench/gate_report.py --commit "$COMMIT" --heldout "$W/heldout" --tests "$W/gpu-tests.log" --wall "$P1WALL" \
      --part1-out "$OUT/gate-part1-$C10.json"
  rc1=$?
  PART1=${PART1:-$OUT/gate-part1-$C10.json}
  pack 1
  echo "wrote $OUT/gate-part1-$C10.json (PART1= of PART=2) and the logs $OUT/gate-logs-part1.tgz"
  [ "$PART" = 1 ] && exit $rc1
fi

# part 2: the gate set's full tier, alone on the GPU, then the record
t2=$(date +%s)
if [ ! -f "${PART1:-}" ]; then echo "PART1=${PART1:-} is not a file: run part 1 on $COMMIT first"; exit 2; fi
LEGAL_RESERVE=$([ "$PLATFORM" = cuda ] && echo 250 || echo 15)
timeout $(( $(left) - LEGAL_RESERVE )) $PY -m kernelgenbench.cli eval solutions $FSEL --tier $FTIER \
    --platform $PLATFORM --jobs $FSLOTS --reps $REPS --warmup-ms $WARM --shard-cases $FSHARD --out "$W/full" > "$W/full.log" 2>&1
echo "rc $?" >> "$W/full.log"
echo "full tier done after $(( $(date +%s) - t2 )) s"
# then the legal submissions (smoke and held-out tiers on the GPU), when nothing is timed any more: an H100 run at
# 5aa46ce spent 55-110 s per legal fixture, two thirds of part 1's test time
if [ "$PLATFORM" = cuda ]; then
  KGB_TEST_PLATFORM=cuda KGB_FAILURE_LOG="$W/gpu-legal-failures.log" timeout $(( $(left) - 15 )) $PY -m pytest -q \
      -vv --tb=short -p no:cacheprovider --durations=15 -n $LSLOTS tests/test_legal_submissions.py \
      > "$W/gpu-legal-tests.log" 2>&1
  echo "rc $?" >> "$W/gpu-legal-tests.log"
  grep -E "^FAILED|passed|failed" "$W/gpu-legal-tests.log" | tail -12
  [ -s "$W/gpu-legal-failures.log" ] && head -c 4000 "$W/gpu-legal-failures.log"
else
  echo "rc skipped (no GPU)" > "$W/gpu-legal-tests.log"
fi
WALL=$(( $(date +%s) - t2 ))
echo "part 2 wall $WALL s"
NAME="gpu-gate-$(date -u +%Y-%m-%d)-$C10.txt"
$PY bench/gate_report.py --commit "$COMMIT" --wall "$WALL" --reps "$REPS" --warmup-ms "$WARM" \
    --gpu "$W/gpu.txt" --part1 "$PART1" --full "$W/full" --ops "$GATE_OPS" --previous bench/results/gpu-gate \
    --tests2 "$W/gpu-legal-tests.log" --out "$OUT/$NAME"
rc=$?
pack 2
echo "wrote the record $OUT/$NAME (a PASS is installed with bench/gate_report.py --install) and the logs $OUT/gate-logs-part2.tgz"
exit $rc
