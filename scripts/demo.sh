#!/usr/bin/env bash
# The main job on the embedded sample: installs what is missing, builds, and
# prints the prompt each agent type gets. Progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/setup.sh
bash scripts/build.sh >&2
exec node bin/agent-context.js demo
