#!/usr/bin/env bash
# Runs every commlab check, as CI does: formatting, clippy with warnings denied
# (native and wasm32), native tests, the release wasm build, its gzipped size,
# and the browser E2E suite in headless Chromium.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
# shellcheck source=/dev/null
source "$ROOT/.toolchain/env"
cd "$ROOT"

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
started=$SECONDS

step "rustfmt"
cargo fmt --all -- --check

step "clippy (native, warnings denied)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "clippy (wasm32, warnings denied)"
wasm_env cargo clippy -p commlab-web -p commlab-core -p commlab-plot --features commlab-web/bench --target wasm32-unknown-unknown --locked -- -D warnings

step "native tests"
cargo test --workspace --locked

step "release wasm build (trunk)"
build_started=$SECONDS
wasm_env trunk build --release
echo "built in $((SECONDS - build_started)) s"

step "shipped size"
total_raw=0; total_gz=0
for f in dist/*.wasm dist/*.js; do
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  printf '    %-50s %8d B raw %8d B gzipped\n' "$(basename "$f")" "$raw" "$gz"
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
done
printf '    wasm + JS: %d B raw, %d B gzipped (%.1f KB; budget 400 KB)\n' "$total_raw" "$total_gz" "$(awk "BEGIN { print $total_gz / 1000 }")"

step "browser E2E (headless Chromium)"
node tests/e2e/run.mjs

step "all checks passed in $((SECONDS - started)) s"
