#!/usr/bin/env bash
# Sets up this machine and runs every test: unit, store, cache, CLI and end-to-end tests through
# `meson test` (with PostgreSQL and Redis started on 127.0.0.1 for the run), then a short
# libFuzzer smoke run of every fuzz target. Prints the runner's summary and a final
# "N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
# Where CI's minutes go: each stage's seconds, printed as it ends.
stage() { echo "stage $1: $((SECONDS - stage_start)) s (total $SECONDS s)"; stage_start=$SECONDS; }
stage_start=0
# Debian's Chromium and fonts for the builder-page tests (playwright-core drives it; nothing is
# downloaded); git and unzip read the version downloads back.
bash scripts/setup.sh chromium fonts-dejavu-core fonts-liberation git unzip
export PLATFORM_TEST_REQUIRE_BROWSER=1
bash scripts/setup-runtimes.sh
# The builder page (type-checked and built into ui/dist, which `meson install` installs).
bash scripts/setup-ui.sh
# The test harnesses' npm tree (AI SDK, MCP SDK), installed once here rather than by whichever
# test starts first.
node scripts/npm-pinned-install.mjs tests/js
# What the app packages e2e test adds to an app with the worker's npm offline, in the npm cache.
bash scripts/setup-test-npm-cache.sh
stage setup
# PostgreSQL and Redis for the store, cache and multi-replica tests, stopped on exit.
eval "$(bash scripts/services.sh start)"
trap 'bash scripts/services.sh stop "$PLATFORM_TEST_SERVICES_DIR"' EXIT
export PLATFORM_TEST_REQUIRE_SERVICES=1
if [ ! -f build/build.ninja ]; then
  # Without debug info: the same -O2 code and assertions, 16% less build time (286 s against
  # 342 s on 2 cores); `meson configure build -Ddebug=true` brings it back for gdb.
  meson setup build --wrap-mode=nodownload -Ddebug=false >/dev/null
fi
# Not overlapped with the npm steps above: they are CPU-bound too (tried: setup and build took
# 299 s together, against 287 s one after the other).
ninja -C build
stage build
# The fuzz targets' clang build (ASan+UBSan, about 200 s of both cores) runs beside the tests at
# the lowest priority: it takes only the CPU the tests leave idle (they mostly wait on their
# servers, CLIs and Chromium), and the fuzz stage below finds it built.
fuzz_build_pid=
if [ "${SKIP_FUZZ:-0}" != 1 ]; then
  (FUZZ_BUILD_ONLY=1 nice -n 19 bash scripts/fuzz-smoke.sh > build/fuzz-build.log 2>&1) &
  fuzz_build_pid=$!
fi
status=0
meson test -C build --print-errorlogs || status=$?
stage tests
summary=$(python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
ok = bad = skip = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): ok += 1
    elif r == "SKIP": skip += 1
    else: bad += 1
print(ok, bad, skip)
PY
)
read -r passed failed skipped <<<"$summary"
install_status=0
bash scripts/check-install.sh || install_status=$?
if [ $install_status -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fuzz_status=0
if [ "${SKIP_FUZZ:-0}" != 1 ]; then
  # 8 s per target, one target per core (a smoke run: every target starts, runs its corpus,
  # at most 65 files, and mutates a while); longer campaigns: scripts/fuzz-campaign.sh
  # (docs/fuzzing.md).
  # A failed early build shows in its log and is tried again here, where its errors print.
  wait "$fuzz_build_pid" || { echo "fuzz build beside the tests failed:"; tail -20 build/fuzz-build.log; }
  FUZZ_SECONDS=${FUZZ_SECONDS:-8} bash scripts/fuzz-smoke.sh || fuzz_status=$?
  stage fuzz
  if [ $fuzz_status -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ $status -eq 0 ] && [ $install_status -eq 0 ] && [ $fuzz_status -eq 0 ]
