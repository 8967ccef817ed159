#!/usr/bin/env bash
# Idempotent setup for commlab, run by scripts/serve.sh and scripts/test.sh.
#
# Installs only what is missing or of the wrong version:
#   1. the wasm32-unknown-unknown standard library: rustup's target when it is
#      installed or installable (with a timeout), otherwise Debian's Rust 1.96
#      (rustc-web, cargo-web, rust-web-src, rust-web-clippy, lld-22) with
#      build-std, behind a small `cargo` wrapper (written below);
#   2. Trunk 0.21.14 and the wasm-bindgen CLI whose version equals Cargo.lock's,
#      from crates.io;
#   3. wasm-opt 132, playwright-core and axe-core from npm (versions in tests/e2e/package.json),
#      Chromium and ChromeDriver from Debian (never a downloaded browser);
#   4. every crate, with `cargo fetch` (Trunk builds offline).
# It writes .toolchain/env, which the other scripts source.
#
# COMMLAB_FORCE_FALLBACK=1 takes the Debian path even when rustup works (to test it).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS="$ROOT/.toolchain"
TRUNK_VERSION=0.21.14
WASM_TARGET=wasm32-unknown-unknown
mkdir -p "$TOOLS"
cd "$ROOT"

step() { printf '\033[1m==> %s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }
fail() { printf '\033[31msetup failed: %s\033[0m\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    fail "need root to run: $* (run as root or install sudo)"; fi
}

APT_UPDATED=
apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  note "apt-get install ${missing[*]}"
  if [ -z "$APT_UPDATED" ]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || fail "apt-get update failed"
    APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
    || fail "apt-get install ${missing[*]} failed"
}

command -v cargo >/dev/null || fail "cargo not found: install the Rust toolchain (rustup) first"
export PATH="$HOME/.cargo/bin:$PATH"

# --- 1. wasm32 standard library ------------------------------------------------
has_rustup_wasm_std() {
  local dir
  dir=$(rustc --print target-libdir --target "$WASM_TARGET" 2>/dev/null) || return 1
  compgen -G "$dir/libstd-*.rlib" >/dev/null
}

write_fallback_wrapper() {
  local bin="$TOOLS/debian-rust/bin"
  mkdir -p "$bin"
  # Debian's cargo must use Debian's rustc (rustup's proxies come first on PATH),
  # and build-std plus lld only for wasm invocations: enabled natively, build-std
  # rebuilds the host std on every test run.
  cat > "$bin/cargo" <<'WRAP'
#!/usr/bin/env bash
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
case " $* " in
  *wasm32-unknown-unknown*)
    export RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
      CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22 ;;
esac
exec /usr/bin/cargo "$@"
WRAP
  for tool in rustc rustdoc cargo-clippy clippy-driver; do
    ln -sf "/usr/bin/$tool" "$bin/$tool"
  done
  chmod +x "$bin/cargo"
}

WASM_MODE=
if [ "${COMMLAB_FORCE_FALLBACK:-0}" != 1 ]; then
  step "wasm32 standard library (rustup)"
  if has_rustup_wasm_std; then
    note "installed"
    WASM_MODE=rustup
  elif timeout 120 rustup target add "$WASM_TARGET" && has_rustup_wasm_std; then
    note "installed with rustup target add"
    WASM_MODE=rustup
  else
    note "rustup could not install $WASM_TARGET; falling back to Debian's Rust"
  fi
fi
if [ -z "$WASM_MODE" ]; then
  step "wasm32 standard library (Debian fallback: Rust 1.96 + build-std + lld-22)"
  apt_install rustc-web cargo-web rust-web-src rust-web-clippy lld-22
  [ -d /usr/lib/rustlib/src/rust/library ] || fail "rust-web-src did not install /usr/lib/rustlib/src/rust/library"
  write_fallback_wrapper
  WASM_MODE=debian
  note "wasm builds use $TOOLS/debian-rust/bin/cargo"
fi

# --- 2. Trunk and wasm-bindgen ------------------------------------------------
step "Trunk $TRUNK_VERSION"
if trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
  note "installed"
else
  note "cargo install trunk (about 11 minutes on 2 cores)"
  cargo install trunk --version "=$TRUNK_VERSION" --locked || fail "cargo install trunk $TRUNK_VERSION failed"
fi

WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$WBG_VERSION" ] || fail "no wasm-bindgen in Cargo.lock"
grep -q "wasm_bindgen = \"$WBG_VERSION\"" Trunk.toml || fail "Trunk.toml [tools] wasm_bindgen must be $WBG_VERSION (Cargo.lock)"
step "wasm-bindgen-cli $WBG_VERSION"
if wasm-bindgen --version 2>/dev/null | grep -q "^wasm-bindgen $WBG_VERSION\b"; then
  note "installed"
else
  # --locked fails for 0.2.130 (a pinned dependency is missing from the registry).
  note "cargo install wasm-bindgen-cli (about 3 minutes)"
  cargo install wasm-bindgen-cli --version "=$WBG_VERSION" || fail "cargo install wasm-bindgen-cli $WBG_VERSION failed"
fi

# --- 3. npm tools and the browser ---------------------------------------------
step "npm tools: binaryen (wasm-opt), playwright-core and axe-core"
command -v npm >/dev/null || apt_install nodejs npm
if [ -d tests/e2e/node_modules/playwright-core ] && [ -d tests/e2e/node_modules/binaryen ] && [ -d tests/e2e/node_modules/axe-core ] \
   && [ tests/e2e/node_modules/.package-lock.json -nt tests/e2e/package-lock.json ]; then
  note "installed"
else
  # PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: the system Chromium is used, nothing is downloaded.
  (cd tests/e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) \
    || fail "npm ci in tests/e2e failed"
fi
"$ROOT/tests/e2e/node_modules/.bin/wasm-opt" --version | grep -q "version 132" || fail "wasm-opt 132 missing from tests/e2e/node_modules"

step "SimGrid for the network tests (Debian python3-simgrid; tests only)"
apt_install python3-simgrid
/usr/bin/python3 -c "import simgrid" 2>/dev/null || fail "python3-simgrid did not install a module /usr/bin/python3 imports"
note "SimGrid $(dpkg-query -W -f='${Version}' python3-simgrid 2>/dev/null)"

step "Chromium and ChromeDriver (Debian)"
apt_install chromium chromium-driver
note "$(/usr/bin/chromium --version 2>/dev/null || echo 'chromium: version unknown')"

# --- 4. crates ----------------------------------------------------------------
step "crates (cargo fetch)"
cargo fetch --locked -q || fail "cargo fetch failed"

# --- build cache ------------------------------------------------------------------
# Every clone on this machine builds into one target directory under the user's
# cache, so a second clone (or CI's fresh clone) compiles only commlab's own
# crates; the registry's are already built. Cargo keeps each clone's own
# crates apart (their paths differ) and locks the directory while it builds.
# CARGO_TARGET_DIR set by the caller wins; COMMLAB_TARGET=local keeps target/
# in the clone; an unwritable cache falls back to it.
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
  TARGET_DIR=$CARGO_TARGET_DIR
elif [ "${COMMLAB_TARGET:-shared}" = local ]; then
  TARGET_DIR="$ROOT/target"
else
  TARGET_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/commlab/target"
  { mkdir -p "$TARGET_DIR" 2>/dev/null && [ -w "$TARGET_DIR" ]; } || TARGET_DIR="$ROOT/target"
fi
note "build cache: $TARGET_DIR"

cat > "$TOOLS/env" <<EOF2
# Written by scripts/setup.sh; sourced by scripts/serve.sh and scripts/test.sh.
export PATH="$ROOT/tests/e2e/node_modules/.bin:\$HOME/.cargo/bin:\$PATH"
export COMMLAB_WASM_MODE=$WASM_MODE
export CARGO_TARGET_DIR="$TARGET_DIR"
# Prefix for commands that build for wasm32: empty with rustup, the Debian wrapper otherwise.
COMMLAB_WASM_PATH="$( [ "$WASM_MODE" = debian ] && echo "$TOOLS/debian-rust/bin:" )"
wasm_env() { PATH="\${COMMLAB_WASM_PATH}\$PATH" "\$@"; }
# Clones share the cache's artifact names (cargo names a workspace's crates
# by their path inside it) and cargo judges them fresh by modification time:
# after another clone built, this clone's older sources would look built.
# So when the cache was last claimed by another clone, this clone's files are
# touched (its crates rebuild once; the registry's stay built).
if [ "\$(cat "\$CARGO_TARGET_DIR/.commlab-clone" 2>/dev/null)" != "$ROOT" ]; then
  find "$ROOT" \( -name .git -o -name node_modules -o -name .toolchain -o -name dist -o -path "$ROOT/target" \) -prune \
    -o -type f -print0 | xargs -0 touch
  mkdir -p "\$CARGO_TARGET_DIR" && printf '%s\n' "$ROOT" > "\$CARGO_TARGET_DIR/.commlab-clone"
fi
EOF2
step "setup complete (wasm toolchain: $WASM_MODE)"
