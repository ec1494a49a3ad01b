#!/usr/bin/env bash
# Builds bench/quant-product.cpp (the M = 1 products per storage type) with
# the wasm builds' Emscripten and flags (-O3 -msimd128, and -mrelaxed-simd for
# the relaxed kernels) into build/quant-product/, and runs each in Node:
#   bash bench/quant-product.sh        # builds (under /work/build.lock when present) and runs
#   bash bench/quant-product.sh --run  # runs what is built
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/quant-product
if [ "${1:-}" != --run ]; then
  mkdir -p "$out"
  xsimd=.deps/xsimd/usr/include
  sources="bench/quant-product.cpp src/core/kernels_simd.cpp src/core/kernels_scalar.cpp src/core/kernels16.cpp src/core/kernels_quant.cpp"
  build() {
    bash scripts/emscripten.sh run em++ -std=c++17 -O3 -msimd128 "$@" -DMHA_WITH_SIMD=1 -DNDEBUG -Isrc/core \
      -isystem "$xsimd" $sources -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node
  }
  lock=()
  [ -e /work/build.lock ] && lock=(flock /work/build.lock)
  "${lock[@]}" bash -c "$(declare -f build); xsimd=$xsimd; sources='$sources'; \
    build -o $out/simd.js && build -mrelaxed-simd -o $out/relaxed-simd.js"
fi
for variant in simd relaxed-simd; do
  node --experimental-wasm-relaxed-simd "$out/$variant.js"
done
