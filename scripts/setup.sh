#!/usr/bin/env bash
# Installs what the build (and, with --browser, the browser tests) need,
# skipping whatever is already there. Safe to run again and again.
#   rustup target wasm32-unknown-unknown
#   wasm-bindgen-cli, the exact version Cargo.toml pins for wasm-bindgen
#   npm dependencies (binaryen's wasm-opt; Claude Code, Codex and Gemini CLI
#   for the live tests), from package-lock.json
#   --browser: Debian's chromium and chromium-driver
set -euo pipefail
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

# Qwen Code, Copilot and opencode for the live tests, outside the project
# (see the script for why); nothing to do once installed.
bash tests/cli/install_openai_chat_agents.sh

if [ "${1:-}" = "--browser" ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  log "installing Debian's chromium and chromium-driver"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >&2
fi
