#!/usr/bin/env bash
# The fork server on a platform (issue 18 item 2; sandbox/forkserver.py): the same eval with forked children and
# with fresh ones must give the same verdicts, and the start-up it saves is measured. Run before flipping the
# fork server's default on GPUs (forkserver.enabled), on the device machine:
#     OUT=<dir> PLATFORM=cuda bash bench/fork_server_check.sh
# Locally (CPU interpreter, smoke tier): PLATFORM=interpreter TIER=smoke bash bench/fork_server_check.sh
# Prints per operator: status, cases, import_s (the child's start to its Ready) each way, and a verdict line;
# exit 1 when a verdict differs. Runs directories and logs are packed into $OUT/fork-server-check.tgz.
set -u
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
PY=${PY:-python3}
PLATFORM=${PLATFORM:-cuda}
TIER=${TIER:-heldout}
JOBS=${JOBS:-6}
LIMIT=${LIMIT:-80}                  # seconds for each eval
OUT=${OUT:-/tmp/kgb-fscheck}; mkdir -p "$OUT"
OPS=${OPS:-"aten::neg aten::mm aten::cumsum vllm::rms_norm vllm::topk_softmax cublas::cublasDgemv_v2"}
W=$(mktemp -d /tmp/kgb-fscheck.XXXX)
SEL=""; for o in $OPS; do SEL="$SEL --op $o"; done
for mode in fork-server no-fork-server; do
  t=$(date +%s)
  timeout "$LIMIT" $PY -m kernelgenbench.cli eval solutions $SEL --tier "$TIER" --platform "$PLATFORM" --jobs "$JOBS" \
      --$mode --out "$W/$mode" > "$W/$mode.log" 2>&1
  echo "$mode: rc $? wall $(( $(date +%s) - t )) s"
done
timeout 120 $PY bench/forkserver_bench.py --platform "$PLATFORM" --n 5 > "$W/start.log" 2>&1; tail -3 "$W/start.log"
tar czf "$OUT/fork-server-check.tgz" -C "$W" . 2>/dev/null
$PY - "$W" <<'PY'
import json, sys
from pathlib import Path
w = Path(sys.argv[1])
runs = {}
for mode in ("fork-server", "no-fork-server"):
    p = w / mode / "results.jsonl"
    runs[mode] = {json.loads(l)["op"]: json.loads(l) for l in p.read_text().splitlines()} if p.exists() else {}
ops = sorted(set(runs["fork-server"]) | set(runs["no-fork-server"]))
same = bool(ops)
print(f"{'operator':28s} {'forked':>14s} {'fresh':>14s} {'import_s forked/fresh':>24s}")
for op in ops:
    a, b = runs["fork-server"].get(op), runs["no-fork-server"].get(op)
    va = (a["status"], a["failure_class"], a["cases_passed"]) if a else None
    vb = (b["status"], b["failure_class"], b["cases_passed"]) if b else None
    same &= va == vb
    ia = (a or {}).get("time_s", {}).get("import_s"); ib = (b or {}).get("time_s", {}).get("import_s")
    print(f"{op:28s} {str(va and f'{va[0]} {va[2]}'):>14s} {str(vb and f'{vb[0]} {vb[2]}'):>14s} {ia!s:>11s} / {ib!s:<11s}")
print("verdicts", "IDENTICAL" if same else "DIFFER (or a run is missing)")
sys.exit(0 if same else 1)
PY
