#!/usr/bin/env bash
# Shrinks what a campaign found (fuzz/campaign-corpus/<target>) to the inputs that reach
# coverage the committed seeds (fuzz/corpus/<target>) do not, with libFuzzer's -merge=1, so it
# can be committed: machines come and go, and the next campaign resumes from it instead of
# starting again from the seeds. Needs the fuzz build (scripts/fuzz-campaign.sh makes it).
#   bash scripts/fuzz-keep-corpus.sh TARGET...
set -euo pipefail
cd "$(dirname "$0")/.."
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1
for name in "$@"; do
  dir=fuzz/campaign-corpus/$name exe=build-fuzz/fuzz/fuzz_$name
  [ -d "$dir" ] || { echo "fuzz-keep-corpus: no $dir" >&2; exit 1; }
  [ -x "$exe" ] || { echo "fuzz-keep-corpus: no $exe (build it first)" >&2; exit 1; }
  kept=$(mktemp -d)
  # The seeds go in first, so only what adds to them is merged in; then they are taken out
  # again (they are committed already).
  cp -r "fuzz/corpus/$name/." "$kept/"
  before=$(find "$dir" -type f | wc -l)
  if ! "$exe" -merge=1 -rss_limit_mb=2048 -timeout=10 "$kept" "$dir" >"$kept.log" 2>&1; then
    echo "fuzz-keep-corpus: $name: the merge failed (log in $kept.log)" >&2
    exit 1
  fi
  (cd "fuzz/corpus/$name" && find . -type f) | while read -r seed; do rm -f "$kept/$seed"; done
  rm -rf "$dir" && mv "$kept" "$dir" && rm -f "$kept.log"
  echo "$name: kept $(find "$dir" -type f | wc -l) of $before inputs, $(du -sk --apparent-size "$dir" | cut -f1) KiB"
done
