#!/usr/bin/env bash
# Runs every test: the native core under CTest with AddressSanitizer and
# UndefinedBehaviorSanitizer (the plain build where they cannot be used:
# scripts/native-builds.sh), bounded libFuzzer runs of the core and of the
# trainer, the TypeScript declarations against an example (tsc --noEmit), and
# the Jest suite over the wasm builds, after the lint (ESLint, Prettier and
# clang-format: `npm run lint`). `npm test` runs scripts/setup.sh first, then this.
# Exits non-zero on any failure.
#   MHA_FUZZ_SECONDS   length of each fuzzer's smoke run (default 15; 0 skips them)
#   MHA_SANITIZERS=0   the plain native build's CTest instead of the sanitizers', no fuzz run
#   CI                 when set (CI=true bash .ci/run), a missing sanitizer or
#                      libFuzzer toolchain fails the run instead of skipping;
#                      the MHA_* opt-outs above still skip, with a warning
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${MHA_FUZZ_SECONDS:-15}

# configure (re-runs a failed or changed CMake configure) and xsimd_define; the native trees (native-builds.sh)
source scripts/configure.sh
source scripts/native-builds.sh

# Each stage's time, printed when it ends (what a slow run spent where).
stage_start=$SECONDS
stage_done() {
  echo "-- $((SECONDS - stage_start)) s"
  stage_start=$SECONDS
}

echo "== lint (ESLint, Prettier, clang-format) =="
npm run --silent lint
stage_done

# CI: any value but empty, 0 or false (CI providers set CI=true).
case "${CI:-}" in '' | 0 | false) ci=false ;; *) ci=true ;; esac
skipped=()
# A part of the run that cannot run here: under CI a failure, else a skip.
missing() {
  if [ "$ci" = true ]; then
    echo "FAILED: $1 (CI is set: the sanitizers and libFuzzer are required; scripts/setup.sh installs them)" >&2
    exit 1
  fi
  echo "skipped: $1"
  skipped+=("$1")
}
# A part of the run skipped on purpose (MHA_*): said loudly, and again at the end.
opted_out() {
  echo "################################################################" >&2
  echo "# WARNING: $1" >&2
  echo "################################################################" >&2
  skipped+=("$1")
}

# The native core's tests run once, under AddressSanitizer and UBSan (build/asan, -O1): the plain Release tree
# (build/native) is no product, the shipped builds are the wasm ones that Jest tests below, so its CTest run
# is only where the sanitizers cannot be used. scripts/setup.sh has built both trees ahead (native-builds.sh).
plain_native() {
  echo "== native core (CTest, build/native) =="
  build_plain
  ctest --test-dir build/native --output-on-failure -j 2
}
if [ "${MHA_SANITIZERS:-1}" = 0 ]; then
  opted_out "sanitizers and fuzzing skipped (MHA_SANITIZERS=0)"
  plain_native
elif ! sanitizers_link; then
  missing "the sanitizer build: $sanitizer_cxx cannot link -fsanitize=address,undefined (install its sanitizer runtimes)"
  plain_native
else
  echo "== native core under AddressSanitizer + UndefinedBehaviorSanitizer (CTest, build/asan) =="
  build_sanitized
  UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/asan --output-on-failure -j 2
fi
stage_done

if [ "${MHA_SANITIZERS:-1}" != 0 ]; then
  echo "== fuzzing the core and the trainer: libFuzzer + ASan + UBSan, ${fuzz_seconds} s each (build/fuzz) =="
  if [ "$fuzz_seconds" = 0 ]; then
    opted_out "fuzzing skipped (MHA_FUZZ_SECONDS=0)"
  elif fuzzers_link; then
    build_fuzzers
    # attention_fuzz: the core's forward; trainer_fuzz: the trainer on 1 and 3
    # threads. Each keeps its corpus, which grows from run to run on a
    # developer's machine; CI starts empty. The two run at once, one a core.
    fuzz() {
      local fuzzer=$1 corpus=build/fuzz/corpus
      [ "$fuzzer" = attention ] || corpus=build/fuzz/$fuzzer-corpus
      mkdir -p "$corpus"
      local log=build/fuzz/smoke-$fuzzer.log
      if ! "build/fuzz/mha_${fuzzer}_fuzz" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix=build/fuzz/ "$corpus" >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz ($fuzzer): FAILED; the input that failed is saved as build/fuzz/crash-* (or timeout-*, oom-*)." >&2
        echo "Reproduce it with: build/fuzz/mha_${fuzzer}_fuzz build/fuzz/crash-..." >&2
        return 1
      fi
      local runs took
      runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
      took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
      echo "fuzz ($fuzzer): ${runs:-?} executions in ${took:-?} s, no crash, hang, leak or sanitizer report;" \
        "corpus $(ls "$corpus" | wc -l) inputs"
    }
    fuzz attention &
    attention_pid=$!
    trainer_ok=0
    fuzz trainer || trainer_ok=1
    attention_ok=0
    wait "$attention_pid" || attention_ok=1
    [ "$attention_ok" = 0 ] && [ "$trainer_ok" = 0 ] || exit 1
  else
    missing "fuzzing: no clang++ that links -fsanitize=fuzzer (Debian: apt-get install clang-14 libclang-rt-14-dev)"
  fi
fi

stage_done
echo "== TypeScript declarations (tsc --noEmit) =="
npx --no-install tsc --noEmit -p tests/types
stage_done

# Jest runs the relaxed-SIMD builds as Node >= 22 and Chromium do (the page's
# tests compare the page with Node on the page's build): Node 20 runs them only
# with --experimental-wasm-relaxed-simd, a V8 flag that NODE_OPTIONS refuses, so
# Jest itself is started with it (its workers inherit it). Then, unless
# arguments chose the tests, a few suites again without it: Node 20's default,
# the SIMD128 builds.
relaxed_probe="import('./src/js/variants.mjs').then((m) => process.exit(m.hasRelaxedSimd() ? 0 : 1))"
relaxed_flag=()
if ! node -e "$relaxed_probe" && node --experimental-wasm-relaxed-simd -e "$relaxed_probe"; then
  relaxed_flag=(--experimental-wasm-relaxed-simd)
fi
jest() {
  NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning ${NODE_OPTIONS:-}" \
    node "$@"
}
# The suites that time something on the machine (a main thread's longest gap
# or task, a process's exit, a server's timeout) run alone, after the others:
# a suite beside them would measure the scheduler. The rest run two at a
# time: three (cores + 1) were tried and gave no faster run (911 s against 869
# for a few more suites) and a page test past its 30 s wait under the load.
timed=(tests/e2e/main-thread.test.mjs tests/e2e/tokenizer-browser.test.mjs tests/e2e/page-model-freeze.test.mjs
  tests/e2e/server.test.mjs tests/js/node-worker.test.mjs tests/js/node-exit.test.mjs)
if [ $# -eq 0 ]; then
  echo "== Jest${relaxed_flag:+ (node ${relaxed_flag[*]})}: two suites at a time, all but the ${#timed[@]} that time something =="
  jest "${relaxed_flag[@]}" node_modules/jest/bin/jest.js --maxWorkers=2 --testPathIgnorePatterns "${timed[@]}"
  stage_done
  echo "== Jest${relaxed_flag:+ (node ${relaxed_flag[*]})}: the ${#timed[@]} suites that time something, one at a time =="
  jest "${relaxed_flag[@]}" node_modules/jest/bin/jest.js --maxWorkers=1 "${timed[@]}"
  stage_done
else
  echo "== Jest${relaxed_flag:+ (node ${relaxed_flag[*]})} =="
  jest "${relaxed_flag[@]}" node_modules/jest/bin/jest.js "$@"
  stage_done
fi

if [ $# -eq 0 ] && [ ${#relaxed_flag[@]} -gt 0 ]; then
  echo "== Jest: Node 20 without relaxed SIMD (the SIMD128 builds by default) =="
  jest node_modules/jest/bin/jest.js --maxWorkers=1 tests/js/relaxed.test.mjs tests/js/fixtures.test.mjs \
    tests/js/node-worker.test.mjs tests/js/node-exit.test.mjs tests/js/threads.test.mjs tests/js/errors.test.mjs
  stage_done
fi

if [ ${#skipped[@]} -gt 0 ]; then
  echo "== not run ==" >&2
  printf '  %s\n' "${skipped[@]}" >&2
fi
