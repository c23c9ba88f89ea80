#!/usr/bin/env bash
# A fuzz campaign: every libFuzzer target (ASan + UBSan, the build of scripts/fuzz-smoke.sh) runs
# on its seed corpus (fuzz/corpus/<target>, read only) plus what earlier campaigns found
# (fuzz/campaign-corpus/<target>, committed once shrunk by scripts/fuzz-keep-corpus.sh; run it
# again to go on) until the first of:
#   - 10 million executions                                   (stop: 10M)
#   - a coverage plateau: no new coverage feature for PLATEAU_SECONDS (default 120) and for at
#     least PLATEAU_RUNS executions (default 100000)          (stop: plateau)
#   - its time cap                                            (stop: cap; "cap (edge plateau)"
#     when the edge count alone had not grown for as long and as many executions)
# "New coverage" is libFuzzer's feature count (ft) growing: an input reached an edge, or an
# edge's hit-count bucket, never seen before (on a NEW line, and also on some REDUCE lines).
# The time cap is MAX_SECONDS (default 600); with BUDGET_SECONDS each target that starts gets at
# most an equal share of what is left of the budget (left x JOBS / targets not yet started, at
# least 60 s), so targets that stop early leave their time to the later ones.
# Prints one markdown row per target. Any crash, leak, timeout, out-of-memory or sanitizer report
# fails the run and leaves its input in fuzz/artifacts/ (a regression seed to add to
# fuzz/corpus/<target>/ once fixed).
#   nice -n 19 env BUDGET_SECONDS=6000 JOBS=1 bash scripts/fuzz-campaign.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
MAX=${MAX_SECONDS:-600}
JOBS=${JOBS:-2}
PLATEAU_SECONDS=${PLATEAU_SECONDS:-120}
PLATEAU_RUNS=${PLATEAU_RUNS:-100000}
BUDGET=${BUDGET_SECONDS:-}
BUILD=build-fuzz
LOCK=${BUILD_LOCK:-/tmp/platform-build.lock}  # one build at a time on a shared machine
if [ ! -f "$BUILD/build.ninja" ]; then
  CXX=clang++-14 CC=clang-14 flock "$LOCK" meson setup "$BUILD" --wrap-mode=nodownload -Dfuzz=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
fi
flock "$LOCK" ninja -C "$BUILD" $(cd "$BUILD" && ninja -t targets all | grep -o '^fuzz/fuzz_[a-z_]*' | sort -u) >/dev/null
# No allocation stacks: recording one per malloc was a tenth of every target's time. A finding's
# input replays with them: build-fuzz/fuzz/fuzz_<target> fuzz/artifacts/<file>.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1:malloc_context_size=0
mkdir -p fuzz/artifacts
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$BUILD"/fuzz/fuzz_*; do [ -f "$exe" ] && [ -x "$exe" ] && targets+=("$(basename "$exe" | sed 's/^fuzz_//')"); done
fi
out=$(mktemp -d)
echo "${#targets[@]}" >"$out/left"
[ -z "$BUDGET" ] || echo $(( $(date +%s) + BUDGET )) >"$out/deadline"

# The time cap of a target that starts now.
cap_now() {
  local left cap=$MAX
  left=$(cat "$out/left"); echo $((left - 1)) >"$out/left"
  if [ -f "$out/deadline" ]; then
    local share=$(( ($(cat "$out/deadline") - $(date +%s)) * JOBS / left ))
    [ $share -ge 60 ] || share=60
    [ $share -ge $cap ] || cap=$share
  fi
  echo $cap
}

# "SECOND RUNS" of the status line where the value of KEY (ft: or cov:) last grew, or of INITED
# (the corpus loaded, fuzzing begins) when it has not grown since. By value, not by tag: libFuzzer
# also adds coverage on REDUCE lines.
last_growth() {
  awk -v key="$1" '$2 ~ /^#[0-9]+$/ {
      v = ""; for (i = 3; i < NF; i++) if ($i == key) v = $(i + 1)
      if (v == "") next
      if ($3 == "INITED") { s = 1; b = v; t = $1; r = substr($2, 2); next }
      if (s && v + 0 > b + 0) { b = v; t = $1; r = substr($2, 2) }
    }
    END { if (s) print t, r }' "$2"
}

one() {
  local name=$1 log="$out/$1.log"
  local cap; cap=$(flock "$out/left" bash -c cap_now)
  mkdir -p "fuzz/campaign-corpus/$name"
  local start; start=$(date +%s)
  # Each output line gets the second it was printed: the plateau is measured in time too.
  "$BUILD/fuzz/fuzz_$name" -runs=10000000 -max_total_time="$cap" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="fuzz/artifacts/$name-" "fuzz/campaign-corpus/$name" "fuzz/corpus/$name" \
      > >(while IFS= read -r line; do printf '%(%s)T %s\n' -1 "$line"; done >"$log") 2>&1 &
  local pid=$! rc=0 stop=""
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    # Fuzzing has begun once the corpus is loaded (INITED); the plateau counts from there.
    # Executions are counted from the status lines, not estimated from a rate: a fuzzer starved
    # of CPU (nice 19 beside a build) runs far fewer than its average rate says.
    local t_new r_new r_now now
    read -r t_new r_new < <(last_growth ft: "$log") || true
    [ -n "$t_new" ] || continue
    r_now=$(grep -Eo '^[0-9]+ #[0-9]+' "$log" | tail -1 | cut -d'#' -f2)
    now=$(date +%s)
    if [ $((now - t_new)) -ge "$PLATEAU_SECONDS" ] && [ $(( ${r_now:-0} - r_new )) -ge "$PLATEAU_RUNS" ]; then
      stop=plateau; kill -INT "$pid" 2>/dev/null || true
      break
    fi
  done
  wait "$pid" || rc=$?
  sleep 1  # the timestamping reader drains the last lines
  # The run ended when the fuzzer printed its last line (not when this loop noticed).
  local end; end=$(tail -1 "$log" | cut -d' ' -f1)
  [ -n "$end" ] || end=$(date +%s)
  local secs=$((end - start)); [ $secs -gt 0 ] || secs=1
  local status=clean
  # 72: libFuzzer's exit code when interrupted: by the plateau rule above, or from outside (the
  # campaign stopped early), which is no finding but no result either.
  if grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:' "$log" ||
     ! { [ $rc -eq 0 ] || [ $rc -eq 72 ]; }; then
    status=FAILED; stop=finding
  elif [ $rc -eq 72 ] && [ "$stop" != plateau ]; then
    status=interrupted; stop=interrupted
  fi
  local runs cov ft
  runs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
  [ -n "$runs" ] || runs=$(grep -Eo '^[0-9]+ #[0-9]+' "$log" | tail -1 | cut -d'#' -f2)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  if [ -z "$stop" ]; then
    if [ "${runs:-0}" -ge 10000000 ]; then stop=10M; else stop=cap; fi
  fi
  # Seconds and executions since features last grew (or since fuzzing began, if never).
  local t_last r_last flat="-"
  read -r t_last r_last < <(last_growth ft: "$log") || true
  [ -z "$t_last" ] || flat="$((end - t_last)) s, $(( ${runs:-0} - r_last )) runs"
  # The same for edges alone. Edges flat while features still grow (new hit-count buckets of
  # edges already reached) is an edge plateau.
  local t_edge r_edge eflat="-"
  read -r t_edge r_edge < <(last_growth cov: "$log") || true
  if [ -n "$t_edge" ]; then
    eflat="$((end - t_edge)) s, $(( ${runs:-0} - r_edge )) runs"
    if [ "$stop" = cap ] && [ $((end - t_edge)) -ge "$PLATEAU_SECONDS" ] && [ $(( ${runs:-0} - r_edge )) -ge "$PLATEAU_RUNS" ]; then
      stop="cap (edge plateau)"
    fi
  fi
  echo "| $name | $status | $stop | ${runs:-0} | $(( ${runs:-0} / secs ))/s | ${secs} s (cap ${cap} s) | ${cov:-?} | ${ft:-?} | $flat | $eflat |" >"$out/$name.row"
  cat "$out/$name.row" >&2
  [ "$status" = clean ] || { echo "--- $name (log $log) ---" >&2; tail -40 "$log" >&2; }
}
export -f one cap_now last_growth
export BUILD MAX JOBS out PLATEAU_SECONDS PLATEAU_RUNS
echo "| target | result | stop | executions | speed | time | edges | features | no new feature for | no new edge for |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${targets[@]}" | xargs -P "$JOBS" -I{} bash -c 'one {}'
failed=0
for name in "${targets[@]}"; do cat "$out/$name.row"; grep -q '| FAILED |' "$out/$name.row" && failed=1; done
[ $failed -eq 0 ] && rm -rf "$out" || echo "logs kept in $out" >&2
exit $failed
