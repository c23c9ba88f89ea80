#!/usr/bin/env bash
# Installs the agent runtime CLIs the worker runs, at the versions pinned in
# runtimes/package-lock.json, into runtimes/node_modules (only from the npm registry):
#   runtime-a  @anthropic-ai/claude-code  -> node_modules/.bin/claude
#   runtime-b  @openai/codex              -> node_modules/.bin/codex
#   runtime-c  opencode-ai                -> node_modules/.bin/opencode
# and, for tests only, an opencode from before `run --format json` (pinned in
# runtimes/opencode-nojson/package-lock.json) -> runtimes/opencode-nojson/node_modules/.bin/opencode.
# How the lock is enforced, and why a second run is a no-op: scripts/npm-pinned-install.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/npm-pinned-install.mjs runtimes \
  --require node_modules/.bin/claude --require node_modules/.bin/codex --require node_modules/.bin/opencode
node scripts/npm-pinned-install.mjs runtimes/opencode-nojson --require node_modules/.bin/opencode
