#!/usr/bin/env bash
# Runs every test: the native core under CTest, the TypeScript declarations
# against an example (tsc --noEmit), and the Jest suite over the wasm builds.
# `npm test` runs scripts/setup.sh first, then this. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== native core (CTest) =="
ctest --test-dir build/native --output-on-failure -j 2

echo "== TypeScript declarations (tsc --noEmit) =="
npx --no-install tsc --noEmit -p tests/types

echo "== Jest =="
NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning ${NODE_OPTIONS:-}" \
  npx --no-install jest "$@"
