#!/usr/bin/env bash
# A fuzz campaign: every libFuzzer target (ASan + UBSan, built as scripts/fuzz-smoke.sh builds
# them) runs until 10 million executions or MAX_SECONDS (default 600), JOBS targets at a time,
# on its seed corpus (fuzz/corpus/<target>, read only) plus what earlier campaigns found
# (fuzz/campaign-corpus/<target>, not committed; run it again to go on). Prints one
# markdown row per target: executions, executions per second, coverage (edges and features) and
# how long coverage had stopped growing when the run ended (the plateau). Any crash, leak or
# sanitizer report fails the run and leaves its input in fuzz/artifacts/ (a regression seed to add
# to fuzz/corpus/<target>/ once fixed).
#   MAX_SECONDS=600 JOBS=2 bash scripts/fuzz-campaign.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
MAX=${MAX_SECONDS:-600}
JOBS=${JOBS:-2}
BUILD=build-fuzz
FUZZ_SECONDS=1 bash scripts/fuzz-smoke.sh >/dev/null  # builds every target once
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1
mkdir -p fuzz/artifacts
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$BUILD"/fuzz/fuzz_*; do [ -f "$exe" ] && [ -x "$exe" ] && targets+=("$(basename "$exe" | sed 's/^fuzz_//')"); done
fi
out=$(mktemp -d)
one() {
  local name=$1 log="$out/$1.log"
  mkdir -p "fuzz/campaign-corpus/$name"
  local start=$SECONDS
  if "$BUILD/fuzz/fuzz_$name" -runs=10000000 -max_total_time="$MAX" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="fuzz/artifacts/$name-" "fuzz/campaign-corpus/$name" "fuzz/corpus/$name" >"$log" 2>&1; then status=clean; else status=FAILED; fi
  local secs=$((SECONDS - start)); [ $secs -gt 0 ] || secs=1
  local runs cov ft last
  runs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+')
  ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+')
  # The execution count of the last line that found something new, against the final count.
  last=$(grep -E '^#[0-9]+.*(NEW|REDUCE)' "$log" | tail -1 | grep -Eo '^#[0-9]+' | tr -d '#')
  local plateau="-"
  if [ -n "$last" ] && [ -n "$runs" ] && [ "$runs" -gt 0 ]; then plateau="$(( (runs - last) * secs / runs )) s"; fi
  echo "| $name | $status | ${runs:-0} | $(( ${runs:-0} / secs ))/s | ${secs} s | ${cov:-?} | ${ft:-?} | $plateau |" >"$out/$name.row"
  [ "$status" = clean ] || tail -30 "$log" >&2
}
export -f one
export BUILD MAX out
echo "| target | result | executions | speed | time | edges | features | no new coverage for |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${targets[@]}" | xargs -P "$JOBS" -I{} bash -c 'one {}'
failed=0
for name in "${targets[@]}"; do cat "$out/$name.row"; grep -q '| FAILED |' "$out/$name.row" && failed=1; done
rm -rf "$out"
exit $failed
