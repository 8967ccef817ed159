#!/usr/bin/env bash
# Builds commlab (release wasm) and serves the playground on 127.0.0.1.
# Usage: scripts/serve.sh [PORT]     (default 8080; rebuilds on file changes)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${1:-${PORT:-8080}}
"$ROOT/scripts/setup.sh"
# shellcheck source=/dev/null
source "$ROOT/.toolchain/env"
cd "$ROOT"
printf '\n\033[1m==> commlab will be served at http://127.0.0.1:%s/ (Ctrl-C stops)\033[0m\n\n' "$PORT"
exec env PATH="${COMMLAB_WASM_PATH}$PATH" trunk serve --release --address 127.0.0.1 --port "$PORT" --no-autoreload
