#!/usr/bin/env bash
# Installs what the build (and, with flags, the tests) need, skipping
# whatever is already there. Safe to run again and again.
#   rustup target wasm32-unknown-unknown
#   wasm-bindgen-cli, the exact version Cargo.toml pins for wasm-bindgen
#   npm dependencies (binaryen's wasm-opt, TypeScript, playwright-core, the
#   MCP client for the tests), from package-lock.json
#   --browser: Debian's chromium and chromium-driver
#   --agents: Claude Code, Codex and Gemini CLI for the live tests, from their
#     own manifest (tests/agents/package-lock.json), installed once per lock
#     file outside the clone (~/.cache/agent-context/npm) and hard-linked
#     into tests/agents/node_modules. `npm run demo` never
#     passes it: no agent CLI is installed for the demo.
#   --bundlers: Vite, esbuild, webpack and electron-vite for the bundler tests,
#     from tests/bundlers/package-lock.json into tests/bundlers/node_modules.
#   --remote: Debian's openssh-server and docker.io, for the tests of agents on
#     other machines (tests/remote/: an sshd and a dockerd of the tests' own;
#     neither is started here).
#   --postgres: Debian's postgresql, for the PostgreSQL store's tests and its
#     bench (tests/postgres/: a server of the tests' own, made by initdb in a
#     temporary folder; none is started here, and Debian's own cluster is
#     left alone).
set -euo pipefail
browser=0 agents=0 bundlers=0 remote=0 postgres=0
for arg in "$@"; do
  case "$arg" in
    --browser) browser=1 ;;
    --agents) agents=1 ;;
    --bundlers) bundlers=1 ;;
    --remote) remote=1 ;;
    --postgres) postgres=1 ;;
    *) echo "setup: unknown option $arg (known: --browser --agents --bundlers --remote --postgres)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

log() { echo "setup: $*" >&2; }

command -v cargo >/dev/null || { log "cargo not found: install Rust with rustup first"; exit 1; }
command -v npm >/dev/null || { log "npm not found: install Node.js 18 or newer first"; exit 1; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown >&2
fi

wb_version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
[ -n "$wb_version" ] || { log "no exact wasm-bindgen pin found in Cargo.toml"; exit 1; }
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
  log "installing wasm-bindgen-cli $wb_version (once; several minutes)"
  # Not --locked: the lockfile published with 0.2.130 pins a webpki-roots
  # release the registry does not serve; the CLI's own version requirements
  # resolve to served releases.
  cargo install --quiet wasm-bindgen-cli --version "=$wb_version" >&2
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

# npm ci into DIR unless DIR/node_modules is already at DIR's lock file.
install_locked() {
  local dir=$1 what=$2
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    log "installing $what ($dir/package-lock.json)"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
  fi
}
# The agent CLIs (2 GB, a minute to install): installed once per lock file
# into the cache outside the clone, and DIR/node_modules made of hard links
# to it (a second; a copy where the two are on different file systems), so
# a fresh clone of an unchanged lock file installs nothing. Not a symbolic
# link: a live test runs an agent as another user, who cannot reach the
# cache under this HOME but can the clone.
install_cached() {
  local dir=$1 what=$2 hash keep
  hash=$(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -c1-16)
  keep="${AGENT_CONTEXT_CACHE:-$HOME/.cache/agent-context}/npm/${dir//\//+}-$hash"
  if [ ! -f "$keep/installed" ]; then
    log "installing $what ($dir/package-lock.json) into $keep"
    rm -rf "$keep"
    mkdir -p "$keep"
    cp "$dir/package.json" "$dir/package-lock.json" "$keep/"
    npm ci --prefix "$keep" --no-audit --no-fund --loglevel=error >&2
    touch "$keep/installed"
    # Installs of older lock files of the same folder go.
    for old in "${keep%-*}"-*; do
      [ "$old" = "$keep" ] || rm -rf "$old"
    done
  fi
  if [ "$(cat "$dir/node_modules/.installed-from" 2>/dev/null)" != "$keep" ]; then
    rm -rf "$dir/node_modules"
    cp -al "$keep/node_modules" "$dir/node_modules" 2>/dev/null || {
      rm -rf "$dir/node_modules"
      cp -a "$keep/node_modules" "$dir/node_modules"
    }
    printf '%s\n' "$keep" >"$dir/node_modules/.installed-from"
  fi
}
[ "$agents" = 1 ] && install_cached tests/agents "the agent CLIs for the live tests"
# The registry entry's live test runs Gemini CLI through `npx` offline: npx
# resolves the package from the npm cache, which `npm ci` fills with
# tarballs but not with the registry's metadata. Cached here (quick when it
# is there already).
if [ "$agents" = 1 ]; then
  gemini_version=$(node -p "require('./tests/agents/node_modules/@google/gemini-cli/package.json').version")
  npm cache add "@google/gemini-cli@$gemini_version" --loglevel=error >&2 || log "could not cache @google/gemini-cli@$gemini_version for npx"
fi
# Qwen Code, Copilot and opencode for the live tests, outside the project
# (see the script for why); nothing to do once installed.
[ "$agents" = 1 ] && bash tests/cli/install_openai_chat_agents.sh
[ "$bundlers" = 1 ] && install_locked tests/bundlers "the bundlers for the bundler tests"

if [ "$browser" = 1 ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  log "installing Debian's chromium and chromium-driver"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >&2
fi

if [ "$remote" = 1 ] && { [ ! -x /usr/sbin/sshd ] || [ ! -x /usr/sbin/dockerd ]; }; then
  log "installing Debian's openssh-server and docker.io"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends openssh-server docker.io >&2
fi

if [ "$postgres" = 1 ] && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  log "installing Debian's postgresql"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  # No cluster of Debian's own (none made, none started): the tests make theirs.
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    $sudo mkdir -p /etc/postgresql-common
    echo 'create_main_cluster = false' | $sudo tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold postgresql >&2
fi
