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
wasm_env cargo clippy -p commlab-web -p commlab-core -p commlab-plot -p commlab-api --features commlab-web/bench --target wasm32-unknown-unknown --locked -- -D warnings

step "native tests"
cargo test --workspace --locked

step "release wasm build (trunk)"
build_started=$SECONDS
wasm_env trunk build --release
echo "built in $((SECONDS - build_started)) s"

step "shipped size"
# Four bundles: the UI (first paint), the engine worker (loads beside it),
# and two lazy ones (loaded when one of their views first opens). Each has a
# budget in gzipped KB in scripts/budgets; one over it fails the run.
budget() { # bundle name → its budget in KB, from scripts/budgets
  awk -v name="$1" '$1 == name { print $2; found = 1 } END { if (!found) exit 1 }' "$ROOT/scripts/budgets" \
    || { echo "scripts/budgets has no budget for $1" >&2; exit 1; }
}
# Assignments, so that a missing budget stops the run (set -e).
ui_budget=$(budget ui); worker_budget=$(budget worker); views_budget=$(budget views); timeline_budget=$(budget timeline)
over_budget=()
bundle_size() { # label, budget KB, files...
  local label=$1 budget=$2 raw=0 gz=0 f r g; shift 2
  for f in "$@"; do
    r=$(stat -c %s "$f"); g=$(gzip -9 -c "$f" | wc -c)
    printf '    %-50s %8d B raw %8d B gzipped\n' "$(basename "$f")" "$r" "$g"
    raw=$((raw + r)); gz=$((gz + g))
  done
  printf '    %s wasm + JS: %d B raw, %d B gzipped (%.1f KB; budget %d KB)\n' "$label" "$raw" "$gz" "$(awk "BEGIN { print $gz / 1000 }")" "$budget"
  [ "$gz" -le $((budget * 1000)) ] || over_budget+=("$label: $gz B gzipped, budget $budget KB")
}
ui_files=(); for f in dist/*.wasm dist/*.js; do case "$(basename "$f")" in worker*|engine-fallback.js|views*|timeline*) ;; *) ui_files+=("$f") ;; esac; done
bundle_size "UI bundle" "$ui_budget" "${ui_files[@]}"
bundle_size "worker bundle" "$worker_budget" dist/worker_bg.wasm dist/worker.js dist/worker_loader.js dist/engine-fallback.js
bundle_size "lazy views bundle (Chooser)" "$views_budget" dist/views_bg.wasm dist/views.js dist/views-loader.js
bundle_size "timeline bundle (Schedule, swizzle, lab)" "$timeline_budget" dist/timeline_bg.wasm dist/timeline.js
[ ${#over_budget[@]} -eq 0 ] || { printf 'over its budget: %s\n' "${over_budget[@]}" >&2; exit 1; }

step "native CLI for the browser suite (release)"
cargo build --locked --release -p commlab-cli

step "URL codec soak: 10^6 random and mutated links (release)"
cargo test --locked --release -q -p commlab-web soak -- --ignored

step "browser E2E (headless Chromium)"
node tests/e2e/run.mjs

step "all checks passed in $((SECONDS - started)) s"
du -sh "$CARGO_TARGET_DIR" | sed 's/^/build cache size: /'
