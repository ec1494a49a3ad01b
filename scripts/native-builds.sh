# Sourced by scripts/setup.sh and scripts/test.sh (not run on its own): the
# native trees the tests run, one place for how each is configured and built.
#   build/asan  the core and its tests under AddressSanitizer + UBSan, built by
#               clang 14 (g++ where clang cannot link them): what `npm test` runs CTest on;
#   build/fuzz  the libFuzzer targets (clang 14), under both sanitizers;
#   build/native  the plain Release tree (`npm run build`; scripts/build.sh), which
#               `npm test` runs only where the sanitizers cannot be used.
# scripts/setup.sh builds the first two while the Emscripten chroot is made
# (debootstrap mostly waits on the network and the disk), so that the test
# run finds them built; test.sh builds again what is out of date (nothing,
# after the set-up) and runs them. Needs scripts/configure.sh sourced first.

native_jobs=$(nproc 2>/dev/null || echo 2)

# links <compiler> <flags> <program>: whether the compiler links a trivial program with those flags.
links() {
  local dir ok=0
  dir=$(mktemp -d)
  printf '%s\n' "$3" >"$dir/probe.cpp"
  "$1" $2 "$dir/probe.cpp" -o "$dir/probe" >/dev/null 2>&1 || ok=$?
  rm -rf "$dir"
  return $ok
}

fuzz_cxx=$(command -v clang++-14 || command -v clang++ || true)
fuzz_probe='#include <cstdint>
#include <cstddef>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }'
sanitizer_probe='int main() { return 0; }'

# The sanitizers' tree's compiler: $CXX if set, else clang 14 (the fuzzers') where it links the sanitizers'
# runtimes, else g++. clang 14 builds that tree in two thirds of g++ 12's time here (147 s of CPU against 221)
# and its tests run in 19 s against 30.
sanitizer_cxx=${CXX:-}
sanitizer_compiler() {
  if [ -z "$sanitizer_cxx" ]; then
    if [ -n "$fuzz_cxx" ] && links "$fuzz_cxx" "-fsanitize=address,undefined" "$sanitizer_probe"; then
      sanitizer_cxx=$fuzz_cxx
    else
      sanitizer_cxx=$(command -v c++ || echo c++)
    fi
  fi
  echo "$sanitizer_cxx"
}

# Whether that compiler links the sanitizers' runtimes; whether clang links libFuzzer with them.
sanitizers_link() {
  sanitizer_cxx=$(sanitizer_compiler)
  links "$sanitizer_cxx" "-fsanitize=address,undefined" "$sanitizer_probe"
}
fuzzers_link() { [ -n "$fuzz_cxx" ] && links "$fuzz_cxx" "-fsanitize=fuzzer,address,undefined" "$fuzz_probe"; }

build_sanitized() {
  # -O1 -g1 (line tables: ASan's and UBSan's reports keep file and line) compiles in half the time of
  # RelWithDebInfo's -O2 -g (kernels_quant.cpp: 15 s against 29 here).
  configure build/asan cmake -S . -DCMAKE_CXX_COMPILER="$(sanitizer_compiler)" -DMHA_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" "$(xsimd_define)"
  cmake --build build/asan -j "$native_jobs"
}

build_fuzzers() {
  configure build/fuzz cmake -S . -DCMAKE_CXX_COMPILER="$fuzz_cxx" -DMHA_FUZZ=ON -DBUILD_TESTING=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "$(xsimd_define)"
  cmake --build build/fuzz -j "$native_jobs" --target mha_attention_fuzz mha_trainer_fuzz
}

build_plain() {
  configure build/native cmake -S . -DCMAKE_BUILD_TYPE=Release "$(xsimd_define)"
  cmake --build build/native -j "$native_jobs"
}

# What `npm test` will run, built ahead (scripts/setup.sh): the sanitizer tree and the fuzzers where they link
# (and MHA_SANITIZERS / MHA_FUZZ_SECONDS do not turn them off), else the plain tree.
build_test_trees() {
  if [ "${MHA_SANITIZERS:-1}" != 0 ] && sanitizers_link; then
    build_sanitized
    if [ "${MHA_FUZZ_SECONDS:-15}" != 0 ] && fuzzers_link; then build_fuzzers; fi
  else
    build_plain
  fi
}
