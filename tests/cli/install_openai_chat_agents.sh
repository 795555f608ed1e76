#!/usr/bin/env bash
# Installs the Qwen Code, GitHub Copilot CLI and opencode versions the live
# tests pin (tests/cli/openai_chat_agents.cjs, AGENTS) outside the project,
# one folder each under AGENT_CLI_ROOT (default ~/.cache/agent-context/agents):
#
#   bash tests/cli/install_openai_chat_agents.sh
#
# They are not in the root package.json: a lock file written where the
# registry serves only this platform's optional packages (opencode's and
# @teddyzhu/clipboard's per-platform builds) makes `npm ci` fail elsewhere.
set -euo pipefail
root="${AGENT_CLI_ROOT:-$HOME/.cache/agent-context/agents}"
cd "$(dirname "$0")"
specs=$(node -e "const { AGENTS } = require('./openai_chat_agents.cjs'); for (const a of Object.values(AGENTS)) console.log(a.pkg + '@' + a.version)")
for spec in $specs; do
  dir="$root/${spec/\//+}"
  bin="$dir/node_modules/.bin/$(node -e "const { AGENTS } = require('./openai_chat_agents.cjs'); console.log(Object.values(AGENTS).find((a) => '$spec' === a.pkg + '@' + a.version).bin)")"
  if [ -x "$bin" ]; then continue; fi
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  echo "installing $spec into $dir" >&2
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$spec" >&2
done
