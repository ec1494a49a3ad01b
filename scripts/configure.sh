# Sourced by scripts/build.sh and scripts/test.sh (not run on its own).
#
# configure <build dir> <configure command...>
# Runs the CMake configure command (e.g. `cmake -S . -DX=1`; `-B <build dir>` is
# appended) unless <build dir> holds a complete configuration (a CMakeCache.txt
# AND the build system generated from it: Makefile, or build.ninja) that
# already has every value the command sets with -DNAME=VALUE: a changed
# value (say XSIMD_INCLUDE_DIR) configures again, since CMake only reads it
# when it configures. A configure that fails writes CMakeCache.txt but no
# Makefile; left there, every later `cmake --build` would say only "No rule to
# make target 'Makefile'". So a failed configure removes its cache (and
# CMakeFiles/), and the next run configures again and shows the real error.
configure() {
  local dir=$1
  shift
  if [ -f "$dir/CMakeCache.txt" ] && { [ -f "$dir/Makefile" ] || [ -f "$dir/build.ninja" ]; } &&
    cache_holds "$dir/CMakeCache.txt" "$@"; then
    return 0
  fi
  if ! "$@" -B "$dir" >/dev/null; then
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
    echo "mha-wasm: configuring $dir failed (CMake's message is above); fix that and run the command again." >&2
    return 1
  fi
}

# cache_holds <CMakeCache.txt> <configure command...>: whether the cache holds
# the value of every -DNAME=VALUE (or -DNAME:TYPE=VALUE) of the command.
cache_holds() {
  local cache=$1 arg name value line
  shift
  for arg in "$@"; do
    case $arg in -D*=*) ;; *) continue ;; esac
    name=${arg#-D}
    value=${name#*=}
    name=${name%%=*}
    name=${name%%:*}
    line=$(grep -m 1 "^$name:[A-Z]*=" "$cache") || return 1
    [ "${line#*=}" = "$value" ] || return 1
  done
}

# xsimd_define: the -DXSIMD_INCLUDE_DIR=<folder> argument of the configure
# commands, the folder made absolute from the repository's root:
# $XSIMD_INCLUDE_DIR, else CMakeLists.txt's default .deps/xsimd/usr/include.
# Always given, so that unsetting XSIMD_INCLUDE_DIR goes back to the default.
xsimd_define() {
  local inc="${XSIMD_INCLUDE_DIR:-.deps/xsimd/usr/include}"
  case $inc in
    /*) ;;
    *) inc="$PWD/$inc" ;;
  esac
  printf '%s\n' "-DXSIMD_INCLUDE_DIR=$inc"
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
