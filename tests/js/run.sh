#!/usr/bin/env bash
# The AI SDK acceptance test of the UI message streams (tests/js/check-ui-stream.mjs).
# Installs the pinned packages of package-lock.json on first use (scripts/npm-pinned-install.mjs),
# then checks every golden SSE body and the samples under ai 7, 6 and 5. Extra arguments go to
# the checker.
# Fails when node or npm is missing (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node/npm not installed: AI SDK acceptance test skipped" >&2
  exit 1
fi
node ../../scripts/npm-pinned-install.mjs .
exec node check-ui-stream.mjs "$@"
