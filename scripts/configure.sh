# Sourced by scripts/build.sh and scripts/test.sh (not run on its own).
#
# configure <build dir> <configure command...>
# Runs the CMake configure command (e.g. `cmake -S . -DX=1`; `-B <build dir>` is
# appended) unless <build dir> holds a complete configuration: a CMakeCache.txt
# AND the build system generated from it (Makefile, or build.ninja). A configure
# that fails writes CMakeCache.txt but no Makefile; left there, every later
# `cmake --build` would say only "No rule to make target 'Makefile'". So a
# failed configure removes its cache (and CMakeFiles/), and the next run
# configures again and shows the real error.
configure() {
  local dir=$1
  shift
  if [ -f "$dir/CMakeCache.txt" ] && { [ -f "$dir/Makefile" ] || [ -f "$dir/build.ninja" ]; }; then
    return 0
  fi
  if ! "$@" -B "$dir" >/dev/null; then
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
    echo "mha-wasm: configuring $dir failed (CMake's message is above); fix that and run the command again." >&2
    return 1
  fi
}

# xsimd_found: whether the xsimd headers (>= 12.1) that CMakeLists.txt needs are
# where it looks, $XSIMD_INCLUDE_DIR or .deps/xsimd/usr/include (scripts/setup.sh
# puts them there). Says what to do when they are not.
xsimd_found() {
  local inc="${XSIMD_INCLUDE_DIR:-.deps/xsimd/usr/include}"
  local v="$inc/xsimd/config/xsimd_config.hpp"
  if [ ! -f "$inc/xsimd/xsimd.hpp" ]; then
    echo "mha-wasm: xsimd not found (no $inc/xsimd/xsimd.hpp): run \`bash scripts/setup.sh\`," \
      "or set XSIMD_INCLUDE_DIR to the include folder of an xsimd >= 12.1" >&2
    return 1
  fi
  local major minor
  major=$(sed -n 's/^#define XSIMD_VERSION_MAJOR \([0-9]*\).*/\1/p' "$v" 2>/dev/null)
  minor=$(sed -n 's/^#define XSIMD_VERSION_MINOR \([0-9]*\).*/\1/p' "$v" 2>/dev/null)
  if [ -z "$major" ] || [ -z "$minor" ] || ! { [ "$major" -gt 12 ] || { [ "$major" -eq 12 ] && [ "$minor" -ge 1 ]; }; }; then
    echo "mha-wasm: xsimd in $inc is ${major:-?}.${minor:-?}; this needs xsimd >= 12.1 (WebAssembly backend):" \
      "run \`bash scripts/setup.sh\`, or set XSIMD_INCLUDE_DIR to a newer one" >&2
    return 1
  fi
}
