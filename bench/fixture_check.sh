#!/usr/bin/env bash
# Fixtures new or changed since the last GPU gate, on the GPU, before the gate (one short device call).
#
# A fixture written and tested on the CPU interpreter can be wrong on a GPU: the gate at ae9b2b6 failed on two
# such legal fixtures (an fp32 `/`, approximate on NVIDIA, where the spec compares scales bit-exactly; a combine
# function passed as tl.constexpr, which Triton's compiler cannot unwrap), and a whole gate (about 900 s of device
# time on an H100) ran again for a change to tests only. This runs just the fixtures that changed, with the GPU
# expectations of tests/test_legal_submissions.py and tests/test_bad_submissions.py, in a minute or two.
#
# Locally, list the fixtures that changed since the last gate's commit (bench/results/gpu-gate/LAST):
#     bash bench/fixture_check.sh --list
# then send the run through the device tool (the device's copy of the tree has no usable git history):
#     FIXTURES="<names printed by --list>" DEADLINE=300 bash bench/fixture_check.sh
# Writes $OUT/fixture-check.log; prints the pytest summary last. Exit status: pytest's.
set -u
OUT=${OUT:-/tmp/kgb-fixture-check}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
PY=${PY:-python3}
DEADLINE=${DEADLINE:-300}
SLOTS=${SLOTS-8}                    # pytest-xdist workers; SLOTS= (empty) runs without xdist
if [ "${1:-}" = "--list" ]; then
  # BASE=<rev> lists those changed since another commit whose fixtures already ran on a GPU (a failed gate's)
  base=${BASE:-$(cat bench/results/gpu-gate/LAST)}
  # fixture names: the file's stem (a .patch.py keeps its kind__source__op stem), as the tests' ids show them
  git diff --name-only --diff-filter=AM "$base" HEAD -- tests/good tests/bad tests/bad_timing \
    | sed -e 's#.*/##' -e 's#\.patch\.py$##' -e 's#\.py$##' | sort -u | tr '\n' ' '
  echo
  exit 0
fi
if [ -z "${FIXTURES:-}" ]; then
  echo "FIXTURES=<names> is required (bash bench/fixture_check.sh --list prints them)"; exit 2
fi
SEL=""
# by kind (the name's part before the first "__"): tests/test_bad_submissions.py names its cases by kind, and a
# kind's other fixtures (another operator) run too; tests/bad_timing/ fixtures run through tests/test_timing_gpu.py
# (the session-34 check ran 3 of 6 named fixtures before it was listed here)
for f in $FIXTURES; do SEL="${SEL:+$SEL or }${f%%__*}"; done
KGB_TEST_PLATFORM=${KGB_TEST_PLATFORM:-cuda} timeout "$DEADLINE" $PY -m pytest -q -vv --tb=short -p no:cacheprovider \
    ${SLOTS:+-n $SLOTS} tests/test_legal_submissions.py tests/test_bad_submissions.py \
    tests/test_timing_gpu.py -k "$SEL" > "$OUT/fixture-check.log" 2>&1
rc=$?
grep -E " (PASSED|FAILED|XFAIL|XPASS|ERROR)" "$OUT/fixture-check.log" | sed -e 's/^\[gw[0-9]*\] \[ *[0-9]*%\] //' \
    -e 's/ *\[ *[0-9]*%\]$//'
tail -1 "$OUT/fixture-check.log"
exit $rc
