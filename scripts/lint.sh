#!/usr/bin/env bash
# The lint (`npm run lint`): ESLint, Prettier's check and clang-format's, side
# by side (19.0-19.6 s here against 22.9-23.8 one after the other, on two
# cores), each one's output printed whole, in that order, when all are done.
# Exits non-zero if any of them fails.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
npx --no-install eslint . >"$out/eslint" 2>&1 &
eslint=$!
npx --no-install prettier --check . >"$out/prettier" 2>&1 &
prettier=$!
bash scripts/clang-format.sh --check >"$out/clang-format" 2>&1 &
clang_format=$!
status=0
for check in eslint prettier clang_format; do
  wait "${!check}" || { status=1; echo "lint: ${check//_/-} failed" >&2; }
  cat "$out/${check//_/-}"
done
exit "$status"
