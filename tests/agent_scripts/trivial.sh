#!/bin/sh
# A trivial agent for `kgb agent --agent command` (the issue's done-when): it copies the kernel of the task
# from KERNELS (a folder it is given, e.g. solutions/) into the workspace, runs the self-check, and stops.
# The command runs in the operator's workspace, not in the checkout: give both paths absolute. From the checkout:
#
#   kgb agent --agent command --command "sh $PWD/tests/agent_scripts/trivial.sh $PWD/solutions {submission}" --op aten::add
set -u
kernels="$1"
submission="$2"
cp "$kernels/$(basename "$submission")" "$submission" || exit 1
./check
exit 0
