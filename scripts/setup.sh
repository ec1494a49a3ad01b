#!/usr/bin/env bash
# One-time, idempotent set-up for mha-wasm on Debian 12 (bookworm).
# Installs only what is missing: clang 14 with libFuzzer (the fuzz smoke test),
# clang-format (the C++ lint), xsimd >= 12.1 headers (Debian 13's package,
# unpacked into .deps/), Debian 13's Emscripten 3.1.69 in a chroot for every
# wasm build (.deps/trixie-root; not when the em++ on the PATH is >= 3.1.69),
# the npm devDependencies; then builds what is out of date. Debian 12's own
# Emscripten (3.1.6) is not used.
# Usage: bash scripts/setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

apt_install() {
  if [ "$(id -u)" != 0 ]; then
    echo "mha-wasm setup: missing system packages: $*" >&2
    echo "Run this once as root, then run the command again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends $*" >&2
    exit 1
  fi
  echo "mha-wasm setup: apt-get install $*"
  # The package lists are read once a run.
  [ -n "${apt_updated:-}" ] || DEBIAN_FRONTEND=noninteractive apt-get update -qq
  apt_updated=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}
# A job started in the background: its pid and its log in the variables named $1 and $2. Waits for it,
# prints its output and returns its status, once (the pid's variable is emptied).
job_done() {
  local pid=${!1} log=${!2} status=0
  [ -n "$pid" ] || return 0
  wait "$pid" || status=$?
  cat "$log"
  rm -f "$log"
  printf -v "$1" '%s' ''
  return "$status"
}

# The wasm builds' compiler: Debian 13's Emscripten 3.1.69 (clang 19, binaryen
# 120) in a chroot in .deps/trixie-root, made by debootstrap from the Debian
# archive the apt sources name (about 2 minutes and 2.5 GB, once), unless the
# em++ on the PATH is already >= 3.1.69 (emsdk). scripts/emscripten.sh says why.
# Made in the background while the other packages install, npm installs and
# the native test trees build: debootstrap mostly waits on the network and the disk.
# debootstrap itself comes first, alone.
chroot_pid="" chroot_log=""
if ! bash scripts/emscripten.sh describe >/dev/null 2>&1; then
  # Here, not in scripts/emscripten.sh install: its own apt-get would contend for dpkg's lock with the one below.
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  chroot_log=$(mktemp)
  bash scripts/emscripten.sh install >"$chroot_log" 2>&1 &
  chroot_pid=$!
fi
chroot_ready() { job_done chroot_pid chroot_log; }
# A failure before the wait still waits for it: no debootstrap left running on its own.
trap 'chroot_ready >/dev/null 2>&1 || true' EXIT

need_apt=()
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
# Native tests of the core (CTest): GoogleTest, and nlohmann-json to read the fixtures.
# The fuzz targets (tests/fuzz) and the sanitizer build of the core (build/asan)
# are built with Debian 12's clang 14 and link libFuzzer and the sanitizer
# runtimes from libclang-rt-14-dev; where clang cannot, the sanitizer build uses
# g++ 12's, libasan8 and libubsan1 (g++ pulls them in; named here so that a
# missing one is installed; scripts/native-builds.sh chooses). Under CI
# scripts/test.sh fails without them instead of skipping.
for pkg in libgtest-dev nlohmann-json3-dev clang-14 libclang-rt-14-dev libasan8 libubsan1; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
# clang-format (14 on Debian 12) checks the C++ layout (`npm run lint`, .clang-format).
command -v clang-format-14 >/dev/null 2>&1 || command -v clang-format >/dev/null 2>&1 || need_apt+=(clang-format)

if [ ${#need_apt[@]} -gt 0 ]; then apt_install "${need_apt[@]}"; fi
echo "mha-wasm setup: the build's packages ready at $SECONDS s"

# What only the Jest suites need, installed in the background while the native trees build (the set-up's
# largest packages: 146 MB to fetch, 373 MB unpacked, about 15 s here before their libraries): the end-to-end tests drive Debian's Chromium with playwright-core
# (browser downloads are not used), its headless shell, not the desktop browser (tests/e2e/chromium.mjs says
# why); CJK glyphs for the page's screenshots (test-output/, docs/).
need_browser=()
command -v chromium-headless-shell >/dev/null 2>&1 || need_browser+=(chromium-headless-shell)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need_browser+=(fonts-noto-cjk)
browser_pid="" browser_log=""
if [ ${#need_browser[@]} -gt 0 ]; then
  browser_log=$(mktemp)
  apt_install "${need_browser[@]}" >"$browser_log" 2>&1 &
  browser_pid=$!
fi
browser_ready() { job_done browser_pid browser_log; }
trap 'browser_ready >/dev/null 2>&1 || true; chroot_ready >/dev/null 2>&1 || true' EXIT

# xsimd: Debian 12 ships 8.1, which has no WebAssembly backend. Debian 13 (trixie)
# ships 13.x as a header-only package; fetch that .deb with a private apt state
# (the system's sources stay untouched) and unpack it into .deps/xsimd.
# A developer may point XSIMD_INCLUDE_DIR at any xsimd >= 12.1 instead.
xsimd_dir="$root/.deps/xsimd"
xsimd_ok() {
  local inc="${XSIMD_INCLUDE_DIR:-$xsimd_dir/usr/include}"
  local v="$inc/xsimd/config/xsimd_config.hpp"
  [ -f "$v" ] || return 1
  local major minor
  major=$(sed -n 's/^#define XSIMD_VERSION_MAJOR \([0-9]*\).*/\1/p' "$v")
  minor=$(sed -n 's/^#define XSIMD_VERSION_MINOR \([0-9]*\).*/\1/p' "$v")
  [ "$major" -gt 12 ] || { [ "$major" -eq 12 ] && [ "$minor" -ge 1 ]; }
}
if ! xsimd_ok; then
  echo "mha-wasm setup: fetching xsimd headers (Debian trixie libxsimd-dev) into .deps/xsimd"
  tmp=$(mktemp -d)
  mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
  cat >"$tmp/sources.list" <<SRC
deb http://deb.debian.org/debian trixie main
SRC
  aptopts=(-o "Dir::State::Lists=$tmp/lists" -o "Dir::Etc::SourceList=$tmp/sources.list"
           -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::Cache::Archives=$tmp/archives"
           -o "APT::Get::List-Cleanup=0" -o "Debug::NoLocking=1")
  apt-get "${aptopts[@]}" update -qq
  (cd "$tmp" && apt-get "${aptopts[@]}" download libxsimd-dev)
  rm -rf "$xsimd_dir"; mkdir -p "$xsimd_dir"
  dpkg -x "$tmp"/libxsimd-dev_*.deb "$xsimd_dir"
  rm -rf "$tmp"
  xsimd_ok || { echo "mha-wasm setup: xsimd in $xsimd_dir is older than 12.1" >&2; exit 1; }
fi

# npm devDependencies: installed when node_modules is missing, lacks a tool
# the scripts run, or is older than package-lock.json (npm writes
# node_modules/.package-lock.json at every install).
npm_ok() {
  [ -f node_modules/.package-lock.json ] || return 1
  [ node_modules/.package-lock.json -nt package-lock.json ] || return 1
  local bin
  for bin in jest tsc eslint prettier webpack rollup esbuild; do [ -x "node_modules/.bin/$bin" ] || return 1; done
}
# In the background too, beside the native builds (it mostly waits on the registry); waited for before
# the wasm build, whose tokenizer worker esbuild bundles.
npm_pid="" npm_log=""
if ! npm_ok; then
  echo "mha-wasm setup: npm ci (its output when it is done)"
  npm_log=$(mktemp)
  npm ci --no-audit --no-fund >"$npm_log" 2>&1 &
  npm_pid=$!
fi
npm_ready() { job_done npm_pid npm_log; }
trap 'npm_ready >/dev/null 2>&1 || true; browser_ready >/dev/null 2>&1 || true; chroot_ready >/dev/null 2>&1 || true' EXIT

if [ "${1:-}" != "--no-build" ]; then
  # While the chroot is made: the native trees `npm test` runs (the sanitizers' and the fuzzers'; the plain one
  # where they cannot link), in the background; with the chroot's Emscripten, the wasm builds beside them as soon
  # as it is ready rather than after them. (Little changed here: the set-up is CPU-bound on two cores, 450 s
  # against 453 in CI; a machine with more cores gains.)
  native_log=$(mktemp)
  (source scripts/configure.sh && source scripts/native-builds.sh && build_test_trees &&
    echo "mha-wasm setup: the native test trees built at $SECONDS s") >"$native_log" 2>&1 &
  native_pid=$!
  native_ready() { job_done native_pid native_log; }
  trap 'native_ready >/dev/null 2>&1 || true; npm_ready >/dev/null 2>&1 || true; browser_ready >/dev/null 2>&1 || true; chroot_ready >/dev/null 2>&1 || true' EXIT
  npm_ready
  chroot_ready
  echo "mha-wasm setup: npm and the chroot ready at $SECONDS s"
  MHA_SKIP_NATIVE=1 bash scripts/build.sh
  echo "mha-wasm setup: the wasm builds made at $SECONDS s"
  native_ready
else
  npm_ready
  chroot_ready
fi
browser_ready
echo "mha-wasm setup: done in $SECONDS s"
