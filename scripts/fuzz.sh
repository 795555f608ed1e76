#!/usr/bin/env bash
# npm run fuzz [-- SECONDS]: runs every cargo-fuzz target for SECONDS (default
# 60), all at once, and prints the executions. Works on the stable toolchain:
# libFuzzer's coverage guidance without a sanitizer (--sanitizer none); the
# targets check properties with assertions, and Rust checks bounds itself.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
seconds="${1:-60}"
targets=(assemble context_builder agent_output)

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz (once)" >&2
  cargo install --quiet cargo-fuzz --version =0.13.2 --locked >&2
fi
cd fuzz
build_log=$(mktemp)
cargo fuzz build -s none >"$build_log" 2>&1 || { cat "$build_log"; exit 1; }
rm -f "$build_log"
# The targets run at once (libFuzzer uses one core each; -max_total_time is
# wall time): the step takes SECONDS, not SECONDS per target.
logs=()
pids=()
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  log=$(mktemp)
  logs+=("$log")
  cargo fuzz run -s none "$target" -- -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1 &
  pids+=($!)
done
total=0
failed=0
for i in "${!targets[@]}"; do
  target=${targets[$i]}
  log=${logs[$i]}
  if ! wait "${pids[$i]}"; then
    tail -40 "$log"
    echo "fuzz: $target FAILED; the crashing input is in fuzz/artifacts/$target/" >&2
    failed=1
    continue
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "fuzz: $target: ${runs:-?} executions in ${seconds}s, ${cov:-cov: ?}"
  total=$((total + ${runs:-0}))
done
rm -f "${logs[@]}"
[ "$failed" = 0 ] || exit 1
echo "fuzz: $total executions in all, no failure"
