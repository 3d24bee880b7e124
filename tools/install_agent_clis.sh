#!/usr/bin/env bash
# Install the agent CLIs that the agent-track tests drive, at pinned versions, from the npm registry,
# into .agents/<cli>/ under the checkout (ignored by git; a second run finds them and does nothing).
#
#   tools/install_agent_clis.sh [claude-code] [codex] [opencode] [gemini]   (default: all four)
#
# Each CLI gets its own prefix, so one failing install never hides the others: the tests skip a CLI
# whose binary is not there, with the reason. Times of each install are printed (and kept in
# .agents/<cli>/INSTALLED, with the version). KGB_AGENTS_DIR overrides the folder (kgb agent looks there too).
set -uo pipefail
cd "$(dirname "$0")/.."
DIR="${KGB_AGENTS_DIR:-.agents}"
declare -A PKG=(
  [claude-code]="@anthropic-ai/claude-code@2.1.328"
  [codex]="@openai/codex@0.171.0"
  [opencode]="opencode-ai@1.18.33"
  [gemini]="@google/gemini-cli@0.61.0"
)
declare -A BIN=([claude-code]=claude [codex]=codex [opencode]=opencode [gemini]=gemini)
want=("$@")
[ ${#want[@]} -eq 0 ] && want=(claude-code codex opencode gemini)
if ! command -v npm >/dev/null; then
  echo "install_agent_clis: npm not found: the agent-track tests will skip every CLI (install Node.js >= 20)" >&2
  exit 0
fi
status=0
for cli in "${want[@]}"; do
  pkg="${PKG[$cli]:-}"
  if [ -z "$pkg" ]; then echo "install_agent_clis: unknown CLI $cli (known: ${!PKG[*]})" >&2; status=2; continue; fi
  prefix="$DIR/$cli"
  if [ -x "$prefix/node_modules/.bin/${BIN[$cli]}" ] && grep -qxF "$pkg" "$prefix/INSTALLED" 2>/dev/null; then
    echo "install_agent_clis: $pkg already in $prefix"
    continue
  fi
  rm -rf "$prefix"; mkdir -p "$prefix"
  t0=$(date +%s%N)
  if npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$pkg" >"$prefix/install.log" 2>&1; then
    ms=$(( ($(date +%s%N) - t0) / 1000000 )); t="$((ms / 1000)).$(printf %03d $((ms % 1000)))"
    echo "$pkg" >"$prefix/INSTALLED"
    echo "install_agent_clis: $pkg installed in $prefix in ${t}s ($(du -sh "$prefix" | cut -f1))"
  else
    ms=$(( ($(date +%s%N) - t0) / 1000000 )); t="$((ms / 1000)).$(printf %03d $((ms % 1000)))"
    echo "install_agent_clis: $pkg FAILED after ${t}s (the tests of $cli will skip; see $prefix/install.log):" >&2
    tail -5 "$prefix/install.log" >&2
  fi
done
exit $status
