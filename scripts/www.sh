#!/usr/bin/env bash
# npm run www: installs what is missing, builds, and serves the playground on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/setup.sh
bash scripts/build.sh >&2
exec node scripts/serve-www.mjs "$@"
