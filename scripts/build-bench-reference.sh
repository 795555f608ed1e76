#!/usr/bin/env bash
# Builds the acp-parse benchmark's reference (bench/reference: simd-json for
# WebAssembly SIMD, not part of the package) into
# bench/reference/pkg/simd_json_lines.wasm. Its own target directory: its
# RUSTFLAGS (+simd128) would otherwise rebuild the package's crates.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
target="${CARGO_TARGET_DIR:-target}/bench-reference"
RUSTFLAGS="-C target-feature=+simd128" cargo build --quiet --release --target wasm32-unknown-unknown \
  --manifest-path bench/reference/Cargo.toml --target-dir "$target"
mkdir -p bench/reference/pkg
cp "$target/wasm32-unknown-unknown/release/agent_context_bench_reference.wasm" bench/reference/pkg/simd_json_lines.wasm
