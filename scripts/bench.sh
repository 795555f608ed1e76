#!/usr/bin/env bash
# npm run bench [-- --smoke]: builds, then runs bench/run.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/setup.sh --postgres
bash scripts/build.sh >&2
bash scripts/build-bench-reference.sh >&2
exec node bench/run.mjs "$@"
