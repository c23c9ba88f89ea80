#!/usr/bin/env bash
# Regenerates the golden SSE files from the fixture transcripts. Review every diff against
# the fixture READMEs (../shared/fixtures/runtime-*/README.md) before committing it.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
ctl=${PLATFORMCTL:-build/tools/platformctl/platformctl}
for dir in tests/data/fixtures/runtime-*; do
  runtime=$(basename "$dir")
  mkdir -p tests/golden/"$runtime"
  for f in "$dir"/*.jsonl; do
    name=$(basename "$f" .jsonl)
    "$ctl" bridge translate --runtime "$runtime" --message-id "msg-$name" "$f" > tests/golden/"$runtime"/"$name".sse
  done
done
git status --short tests/golden
