#!/usr/bin/env bash
# Builds pkg/node (CommonJS + an ESM wrapper, synchronous, no init) and
# pkg/web (ES module, `await init()`), size-optimised, and prints the .wasm sizes.
#
# Two WebAssembly modules come out of the one crate (Cargo features, see
# Cargo.toml): the main module, agent_context_bg.wasm in both builds, and the
# Node-only module, agent_context_node_bg.wasm in pkg/node only (the session
# engine behind runAgent, sessions, teams and the Gemini tool, the platform
# functions, the MCP tools), which the Node entry loads on the first call that
# needs it (docs/development.md says why there are two).
set -euo pipefail
cd "$(dirname "$0")/.."

crate=agent_context
tool=${crate}_node # the Node-only module
release="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release"
build() { cargo build --quiet --release --lib --target wasm32-unknown-unknown "$@"; }

# Both builds write $crate.wasm, so the Node-only one has a target folder of its
# own, and the two compile at once (each links with one codegen unit, on one
# core); it is kept under its own name, which is also the name wasm-bindgen
# gives its output. The runners' module is Node only, where size matters
# less than the speed of reading a long stream (runAgent's benchmark):
# compiled for speed.
node_target="${CARGO_TARGET_DIR:-target}/node-module"
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
CARGO_TARGET_DIR="$node_target" build --no-default-features --features node --config 'profile.release.opt-level=3' &
node_build=$!
build
wait "$node_build"
cp "$node_target/wasm32-unknown-unknown/release/$crate.wasm" "$release/$tool.wasm"
raw="$release/$crate.wasm"
# No multi-value returns at the boundary: V8 then calls every export through
# its generic wrapper instead of compiling one per signature (cold start; see
# the script).
node scripts/without-multivalue.mjs "$raw" "$release/$tool.wasm"

rm -rf pkg/node pkg/web
wasm-bindgen --target nodejs --out-dir pkg/node "$raw"
wasm-bindgen --target web --out-dir pkg/web "$raw"
# Internal (only the Node runners in pkg/node require it): no declarations.
wasm-bindgen --target nodejs --no-typescript --out-dir pkg/node "$release/$tool.wasm"

# One parameter list for every import of a module (and the glue's import
# functions to match): V8 compiles a wrapper per import signature when it
# compiles the module (cold start; see the script).
node scripts/canonical-imports.mjs "pkg/node/${crate}_bg.wasm" pkg/node/${crate}.js \
  -- "pkg/web/${crate}_bg.wasm" pkg/web/${crate}.js \
  -- "pkg/node/${tool}_bg.wasm" pkg/node/${tool}.js

# The Rust toolchain emits these post-MVP features by default (multi-value
# aside, turned off above); wasm-opt must be told, or it rejects the module.
features=(--enable-bulk-memory --enable-mutable-globals --enable-sign-ext
  --enable-nontrapping-float-to-int --enable-reference-types)
# --low-memory-unused: Rust puts the stack at the bottom of memory and the
# data above it, so no pointer is below 1 KiB and wasm-opt may fold constant
# offsets into loads and stores; --converge repeats -Oz until nothing shrinks
# (together about 2 KB of the main module).
# The main module's two copies are the same bytes (wasm-bindgen writes one
# module for both targets): optimised once and copied. The passes of the
# two modules run at once (each on one core mostly).
main_copies=("pkg/web/${crate}_bg.wasm")
cmp -s "pkg/node/${crate}_bg.wasm" "pkg/web/${crate}_bg.wasm" || main_copies+=("pkg/node/${crate}_bg.wasm")
opts=()
for wasm in "${main_copies[@]}"; do
  node_modules/.bin/wasm-opt -Oz --converge --low-memory-unused --strip-debug --strip-producers "${features[@]}" -o "$wasm" "$wasm" &
  opts+=($!)
done
# The runners' module for speed here too: -O3 measured runAgent's 10 MB
# bench 1.08-1.16x against 1.17-1.33x with -Oz, for 3 KB more.
node_modules/.bin/wasm-opt -O3 --low-memory-unused --strip-debug --strip-producers "${features[@]}" -o "pkg/node/${tool}_bg.wasm" "pkg/node/${tool}_bg.wasm" &
opts+=($!)
for pid in "${opts[@]}"; do wait "$pid"; done
[ "${#main_copies[@]}" = 2 ] || cp "pkg/web/${crate}_bg.wasm" "pkg/node/${crate}_bg.wasm"

# templates, the JS fast paths, the Gemini tool's wiring, the ESM entry and the module kinds.
node scripts/finish-pkg.mjs

size() { stat -c %s "$1"; }
if [ -f "pkg/node/${crate}_bg.wasm" ]; then
  echo "wasm size: raw $(size "$raw") bytes; pkg/node $(size "pkg/node/${crate}_bg.wasm") bytes; pkg/web $(size "pkg/web/${crate}_bg.wasm") bytes (after wasm-opt -Oz)"
else
  echo "wasm size: raw $(size "$raw") bytes; pkg/web $(size "pkg/web/${crate}_bg.wasm") bytes (after wasm-opt -Oz; the one copy both builds read)"
fi
echo "Node-only module wasm size (loaded on first use): raw $(size "$release/$tool.wasm") bytes; pkg/node $(size "pkg/node/${tool}_bg.wasm") bytes (after wasm-opt -O3)"
