#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan) and runs each for a short while on
# its seed corpus. Any crash, leak or sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-30}
BUILD=build-fuzz
if [ ! -f "$BUILD/build.ninja" ]; then
  CXX=clang++-14 CC=clang-14 meson setup "$BUILD" --wrap-mode=nodownload -Dfuzz=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$BUILD" $(cd "$BUILD" && ninja -t targets all | grep -o '^fuzz/fuzz_[a-z_]*' | sort -u) >/dev/null
# FUZZ_BUILD_ONLY=1: build the targets and stop (scripts/test.sh builds them while the tests run).
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
mkdir -p fuzz/artifacts
# Targets run FUZZ_JOBS at a time (default: one per core), each for its full SECONDS_EACH; each
# reports into a file of its own, printed in order once all have ended.
jobs=${FUZZ_JOBS:-$(nproc)}
reports=$(mktemp -d)
names=()
for exe in "$BUILD"/fuzz/fuzz_*; do
  [ -f "$exe" ] && [ -x "$exe" ] && names+=("${exe##*/fuzz_}")
done
smoke() {
  local name=$1 work
  work=$(mktemp -d)
  cp -r fuzz/corpus/"$name"/. "$work"/ 2>/dev/null || true
  if "$BUILD/fuzz/fuzz_$name" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix=fuzz/artifacts/"$name"- "$work" >"$work.log" 2>&1; then
    echo "fuzz $name: ok ($(grep -Eo '^#[0-9]+' "$work.log" | tail -1 | tr -d '#') runs in ${SECONDS_EACH}s)" >"$reports/$name"
  else
    { echo "fuzz $name: FAILED"; tail -40 "$work.log"; } >"$reports/$name"
  fi
  rm -rf "$work" "$work.log"
}
running=0
for name in "${names[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  smoke "$name" &
  running=$((running + 1))
done
wait
failed=0
for name in "${names[@]}"; do
  if [ -f "$reports/$name" ]; then cat "$reports/$name"; else echo "fuzz $name: FAILED (no report)"; fi
  grep -q "^fuzz $name: ok" "$reports/$name" 2>/dev/null || failed=1
done
rm -rf "$reports"
exit $failed
