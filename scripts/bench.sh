#!/usr/bin/env bash
# Benchmarks (numbers for BENCHMARKS.md; nothing here passes or fails on time):
# criterion natively, then the browser timing harness on the release build.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh" >/dev/null
# shellcheck source=/dev/null
source "$ROOT/.toolchain/env"
cd "$ROOT"
cargo bench -p commlab-core --locked --bench model --bench reduce --bench swizzle --bench barrier --bench net -- --warm-up-time 1 --measurement-time 3
cargo bench -p commlab-api --locked --bench timeline --bench winner_map -- --warm-up-time 1 --measurement-time 3
# The timing hooks are a cargo feature, left out of the shipped page: build them
# into a separate dist, so dist/ stays what `scripts/serve.sh` serves.
wasm_env trunk build --release --features bench --dist "$CARGO_TARGET_DIR/dist-bench"
DIST="$CARGO_TARGET_DIR/dist-bench" node tests/e2e/bench.mjs "${ROUNDS:-60}"
