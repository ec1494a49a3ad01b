#!/usr/bin/env bash
# clang-format over the C++ of the repository (style: .clang-format).
#   bash scripts/clang-format.sh --check   report files that differ; exits 1 if any (npm run lint)
#   bash scripts/clang-format.sh --fix     rewrite them in place (npm run format)
# The formatter is $CLANG_FORMAT, else clang-format-14, else clang-format. The
# style is checked against Debian 12's clang-format 14 (scripts/setup.sh installs
# it); other versions may lay out a few lines differently.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  --check) args=(--dry-run -Werror) ;;
  --fix) args=(-i) ;;
  *)
    echo "usage: bash scripts/clang-format.sh --check | --fix" >&2
    exit 2
    ;;
esac

cf=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -z "$cf" ] || ! command -v "$cf" >/dev/null 2>&1; then
  echo "clang-format not found: install it (Debian: apt-get install clang-format, or run" \
    "\`bash scripts/setup.sh\` as root), or set CLANG_FORMAT=/path/to/clang-format" >&2
  exit 1
fi
version=$("$cf" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$version" != 14 ]; then
  echo "note: $cf is clang-format ${version:-?}; the style is checked with clang-format 14" >&2
fi

shopt -s globstar nullglob
files=(src/**/*.cpp src/**/*.hpp tests/native/*.cpp tests/native/*.hpp tests/fuzz/*.cpp)
if [ ${#files[@]} -eq 0 ]; then
  echo "clang-format: no C++ files found" >&2
  exit 1
fi

if [ "$mode" = --check ]; then
  if ! "$cf" "${args[@]}" "${files[@]}"; then
    echo "clang-format: the C++ files above are not formatted; run \`npm run format\`" \
      "(or bash scripts/clang-format.sh --fix)" >&2
    exit 1
  fi
else
  "$cf" "${args[@]}" "${files[@]}"
fi
