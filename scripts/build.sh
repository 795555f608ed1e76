#!/usr/bin/env bash
# Builds pkg/node (CommonJS + an ESM wrapper, synchronous, no init) and
# pkg/web (ES module, `await init()`), size-optimised, and prints the .wasm sizes.
set -euo pipefail
cd "$(dirname "$0")/.."

crate=agent_context
cargo build --quiet --release --lib --target wasm32-unknown-unknown
raw="target/wasm32-unknown-unknown/release/$crate.wasm"

rm -rf pkg/node pkg/web
wasm-bindgen --target nodejs --out-dir pkg/node "$raw"
wasm-bindgen --target web --out-dir pkg/web "$raw"

# The Rust toolchain emits these post-MVP features by default; wasm-opt must
# be told, or it rejects the module.
features=(--enable-bulk-memory --enable-mutable-globals --enable-sign-ext
  --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue)
for dir in pkg/node pkg/web; do
  node_modules/.bin/wasm-opt -Oz --strip-debug --strip-producers "${features[@]}" -o "$dir/${crate}_bg.wasm" "$dir/${crate}_bg.wasm"
done

# templates, the JS fast paths, the ESM entry and the module kinds.
node scripts/finish-pkg.mjs

raw_size=$(stat -c %s "$raw")
echo "wasm size: raw $raw_size bytes; pkg/node $(stat -c %s pkg/node/${crate}_bg.wasm) bytes; pkg/web $(stat -c %s pkg/web/${crate}_bg.wasm) bytes (after wasm-opt -Oz)"
