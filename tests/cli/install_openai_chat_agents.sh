#!/usr/bin/env bash
# Installs the agent CLIs pinned in tests/cli/openai_chat_agents.json (Qwen
# Code, GitHub Copilot CLI, opencode, Cline, Factory Droid) (exact versions) outside the project, one
# folder each under AGENT_CLI_ROOT (default ~/.cache/agent-context/agents):
#
#   bash tests/cli/install_openai_chat_agents.sh
#
# A release found there at its version is kept: a warm machine installs
# nothing, and CI keeps that folder between runs like the npm cache.
#
# They are not in a lock file: a lock written where the registry serves only
# this platform's optional packages (opencode's, Cline's and
# @teddyzhu/clipboard's per-platform builds) lacks the others, and `npm ci`
# refuses it ("Missing: @cline/cli-darwin-arm64@ from lock file").
# Factory Droid is its platform package itself (the wrapper `@factory/cli`
# finds no binary here): it installs on linux-x64 only and is skipped
# elsewhere.
set -euo pipefail
root="${AGENT_CLI_ROOT:-$HOME/.cache/agent-context/agents}"
cd "$(dirname "$0")"
# One line per CLI: package, version, executable (its path inside the
# package when the package declares no bin); a version that is not exact (a
# range, a tag) is refused, a CLI for other platforms left out.
node -e '
  const { agents } = require("./openai_chat_agents.json");
  for (const [cli, a] of Object.entries(agents)) {
    if (!/^\d+\.\d+\.\d+$/.test(a.version)) {
      console.error(`openai_chat_agents.json: ${cli}.version must be an exact version, got ${JSON.stringify(a.version)}`);
      process.exit(2);
    }
    if (a.platforms && !a.platforms.includes(`${process.platform}-${process.arch}`)) continue;
    console.log(`${a.package} ${a.version} ${a.binPath ? `${a.package}/${a.binPath}` : `.bin/${a.bin}`}`);
  }
' | while read -r pkg version exe; do
  dir="$root/${pkg/\//+}@$version"
  installed="$dir/node_modules/$pkg/package.json"
  if [ -x "$dir/node_modules/$exe" ] && [ -f "$installed" ] &&
    [ "$(node -p "require('$installed').version")" = "$version" ]; then
    continue
  fi
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  echo "installing $pkg@$version into $dir" >&2
  npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "$pkg@$version" >&2
done
