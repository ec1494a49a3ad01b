#!/usr/bin/env bash
# Builds what is out of date: the wasm builds into dist/ (Emscripten) and the
# native core with its tests into build/native. `npm run build` runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# Debian's Emscripten 3.1.6 finds its JS optimizer's acorn only through
# NODE_PATH (Debian keeps it in /usr/share/nodejs); harmless for newer ones.
if [ -d /usr/share/nodejs ]; then export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"; fi

# configure (re-runs a failed or changed CMake configure), xsimd_found and xsimd_define
source scripts/configure.sh
xsimd_found || exit 1
xsimd=$(xsimd_define)

configure build/wasm emcmake cmake -S . -DCMAKE_BUILD_TYPE=Release "$xsimd"
cmake --build build/wasm -j "$jobs"

if [ "${MHA_SKIP_NATIVE:-0}" != 1 ]; then
  configure build/native cmake -S . -DCMAKE_BUILD_TYPE=Release "$xsimd"
  cmake --build build/native -j "$jobs"
fi
