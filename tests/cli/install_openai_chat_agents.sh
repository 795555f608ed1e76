#!/usr/bin/env bash
# Installs the agent CLIs pinned in tests/cli/openai_chat_agents.json (Qwen
# Code, GitHub Copilot CLI, opencode, Cline, Factory Droid, pi, Kimi Code)
# (exact versions) outside the project, one folder each under
# AGENT_CLI_ROOT (default ~/.cache/agent-context/agents), with the packages
# its `with` names beside it (pi's ACP adapter, Kimi Code's Node.js 22):
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
# package when the package declares no bin), then each `with` package as
# name@version; a version that is not exact (a range, a tag) is refused, a
# CLI for other platforms left out.
node -e '
  const { agents } = require("./openai_chat_agents.json");
  const exact = (cli, what, v) => {
    if (!/^\d+\.\d+\.\d+$/.test(v)) {
      console.error(`openai_chat_agents.json: ${cli}.${what} must be an exact version, got ${JSON.stringify(v)}`);
      process.exit(2);
    }
  };
  for (const [cli, a] of Object.entries(agents)) {
    exact(cli, "version", a.version);
    for (const [name, v] of Object.entries(a.with ?? {})) exact(cli, `with["${name}"]`, v);
    if (a.platforms && !a.platforms.includes(`${process.platform}-${process.arch}`)) continue;
    const beside = Object.entries(a.with ?? {}).map(([name, v]) => `${name}@${v}`);
    console.log([a.package, a.version, a.binPath ? `${a.package}/${a.binPath}` : `.bin/${a.bin}`, ...beside].join(" "));
  }
' | while read -r pkg version exe beside; do
  dir="$root/${pkg/\//+}@$version"
  # Installed when the executable is there at its version, and each package
  # beside it at its own.
  at() { [ -f "$dir/node_modules/$1/package.json" ] && [ "$(node -p "require('$dir/node_modules/$1/package.json').version")" = "$2" ]; }
  ready=1
  [ -x "$dir/node_modules/$exe" ] && at "$pkg" "$version" || ready=0
  for spec in $beside; do
    at "${spec%@*}" "${spec##*@}" || ready=0
  done
  [ "$ready" = 1 ] && continue
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  echo "installing $pkg@$version $beside into $dir" >&2
  # shellcheck disable=SC2086 # one word per package
  npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "$pkg@$version" $beside >&2
done
