#!/usr/bin/env bash
# Builds what is out of date: the wasm builds into dist/ (Emscripten), the
# browsers' tokenizer worker into dist/ too, and the native core with its tests
# into build/native. `npm run build` runs this; with --bench (`npm run bench`)
# the benchmark's own builds too (build/wasm*/bench/: the kernels and a model
# build that times its blocks), which no test loads.
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

bench=()
[ "${1:-}" = --bench ] && bench=(--target all mha-bench-simd mha-bench-model-simd)
configure build/wasm emcmake cmake -S . -DCMAKE_BUILD_TYPE=Release "$xsimd"
cmake --build build/wasm -j "$jobs" "${bench[@]}"

# The relaxed-SIMD builds (threaded-relaxed-simd, relaxed-simd) need Debian 13's
# Emscripten 3.1.69, which runs in the chroot scripts/setup.sh makes in
# .deps/trixie-root (scripts/trixie-emscripten.sh), with the repository at its
# own path inside: build/wasm-relaxed is configured and built there alone.
case "${CI:-}" in '' | 0 | false) ci=false ;; *) ci=true ;; esac
if bash scripts/trixie-emscripten.sh ready && [ "$(id -u)" = 0 ]; then
  bench_relaxed=""
  [ "${1:-}" = --bench ] && bench_relaxed="--target all mha-bench-relaxed-simd mha-bench-model-relaxed-simd"
  bash scripts/trixie-emscripten.sh run bash -c 'source scripts/configure.sh &&
    configure build/wasm-relaxed emcmake cmake -S . -DCMAKE_BUILD_TYPE=Release -DMHA_RELAXED_SIMD=ON "$1" &&
    cmake --build build/wasm-relaxed -j "$2" $3' relaxed "$xsimd" "$jobs" "$bench_relaxed"
elif [ "$ci" = true ]; then
  echo "mha-wasm: the relaxed-SIMD builds need the trixie chroot (as root): run \`bash scripts/setup.sh\`" >&2
  exit 1
else
  echo "mha-wasm: warning: relaxed-SIMD builds not built (they need the trixie chroot and root:" \
    "\`sudo bash scripts/setup.sh\`); dist/ has none, or old ones" >&2
fi

# The browsers' tokenizer worker, one script with the tokenizers library inside (esbuild, a devDependency).
node scripts/build-tokenizer-worker.mjs

if [ "${MHA_SKIP_NATIVE:-0}" != 1 ]; then
  configure build/native cmake -S . -DCMAKE_BUILD_TYPE=Release "$xsimd"
  cmake --build build/native -j "$jobs"
fi
