#!/usr/bin/env bash
# Installs the agent runtime CLIs the worker runs, at the versions pinned in
# runtimes/package-lock.json, into runtimes/node_modules. Idempotent: nothing is fetched
# when the installed tree matches the lock file.
set -euo pipefail
cd "$(dirname "$0")/../runtimes"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
