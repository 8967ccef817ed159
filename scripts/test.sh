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
# budget in gzipped KB; one over it fails the run.
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
bundle_size "UI bundle" 400 "${ui_files[@]}"
# 510 KB since the expected curve past 128 ranks comes from the steady
# engine in the worker (BENCHMARKS.md, 2026-12-06 seventh session: +11 KB;
# the flow engine takes minutes a size there).
bundle_size "worker bundle" 510 dist/worker_bg.wasm dist/worker.js dist/worker_loader.js dist/engine-fallback.js
# The Chooser's bundle: 524 KB since custom systems and the System control
# are on the page (BENCHMARKS.md, 2026-12-06 "One System control": +21.5 KB;
# the room to make is the Chooser's half of the simulation protocol, 23 KB);
# 526 KB since the fit reads p from the run and the libraries are compared
# among their own algorithms (BENCHMARKS.md, 2026-12-06 third session: +1.5 KB);
# 530 KB since NCCL's gain on a System is among its own algorithms under its
# per-step costs and the chart's units are the api's (fourth session: +3.4 KB).
# 536 KB since the expected table says which rows are the steady state and
# runs one of them by the flow engine beside it (seventh session: +6.3 KB).
# 540 KB since it draws a System of 129 to 1 024 nodes by its expected curve
# alone (eleventh session: +5.0 KB: its mode, its exports and its notes).
bundle_size "lazy views bundle (Chooser)" 540 dist/views_bg.wasm dist/views.js dist/views-loader.js
bundle_size "timeline bundle (Schedule, swizzle, lab)" 500 dist/timeline_bg.wasm dist/timeline.js
[ ${#over_budget[@]} -eq 0 ] || { printf 'over its budget: %s\n' "${over_budget[@]}" >&2; exit 1; }

step "native CLI for the browser suite (release)"
cargo build --locked --release -p commlab-cli

step "URL codec soak: 10^6 random and mutated links (release)"
cargo test --locked --release -q -p commlab-web soak -- --ignored

step "browser E2E (headless Chromium)"
node tests/e2e/run.mjs

step "all checks passed in $((SECONDS - started)) s"
du -sh "$CARGO_TARGET_DIR" | sed 's/^/build cache size: /'
