#!/usr/bin/env bash
# Builds what is out of date: the wasm builds into dist/ (Emscripten), the
# browsers' tokenizer worker into dist/ too, and the native core with its tests
# into build/native. `npm run build` runs this; with --bench (`npm run bench`)
# the benchmark's own builds too (build/wasm/bench/: the kernels and a model
# build that times its blocks), which no test loads; with --native the native
# core alone. (`npm test` runs the native tests on the sanitizers' tree that
# scripts/setup.sh builds: scripts/native-builds.sh.)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# configure (re-runs a failed or changed CMake configure), xsimd_found and xsimd_define
source scripts/configure.sh
xsimd_found || exit 1
xsimd=$(xsimd_define)

build_native() {
  configure build/native cmake -S . -DCMAKE_BUILD_TYPE=Release "$xsimd"
  cmake --build build/native -j "$jobs"
}
if [ "${1:-}" = --native ]; then
  build_native
  exit 0
fi

# Every wasm build, all five variants in one configure, comes from one
# Emscripten >= 3.1.69 (scripts/emscripten.sh): the em++ on the PATH when it
# is that recent, else Debian 13's in the chroot scripts/setup.sh makes (as
# root), else it says what to do. A folder another Emscripten configured (say
# Debian 12's 3.1.6, which built three variants here before) is started
# afresh: CMake does not notice that the compiler behind the same em++ path
# changed, and would link the other one's objects.
emscripten=$(bash scripts/emscripten.sh describe)
if [ -f build/wasm/CMakeCache.txt ] && ! grep -qxF "MHA_EMSCRIPTEN:STRING=$emscripten" build/wasm/CMakeCache.txt; then
  echo "mha-wasm: build/wasm was configured by another Emscripten; building it afresh with em++ $emscripten"
  rm -rf build/wasm
fi
# The relaxed builds' own folder when a second Emscripten made them, and
# 3.1.6's pthread worker scripts (NAME.worker.js), which no build makes now:
# left in dist/, npm pack would ship them.
rm -rf build/wasm-relaxed dist/mha-*.worker.js

bench=""
[ "${1:-}" = --bench ] &&
  bench="--target all mha-bench-simd mha-bench-model-simd mha-bench-relaxed-simd mha-bench-model-relaxed-simd"
bash scripts/emscripten.sh run bash -c 'source scripts/configure.sh &&
  configure build/wasm emcmake cmake -S . -DCMAKE_BUILD_TYPE=Release "$1" "$2" &&
  cmake --build build/wasm -j "$3" $4' build "$xsimd" "-DMHA_EMSCRIPTEN:STRING=$emscripten" "$jobs" "$bench"

# The browsers' tokenizer worker, one script with the tokenizers library inside (esbuild, a devDependency).
node scripts/build-tokenizer-worker.mjs

if [ "${MHA_SKIP_NATIVE:-0}" != 1 ]; then build_native; fi
