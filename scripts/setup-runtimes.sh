#!/usr/bin/env bash
# Installs the agent runtime CLIs the worker runs, at the versions pinned in
# runtimes/package-lock.json, into runtimes/node_modules (only from the npm registry):
#   runtime-a  @anthropic-ai/claude-code  -> node_modules/.bin/claude
#   runtime-b  @openai/codex              -> node_modules/.bin/codex
#   runtime-c  opencode-ai                -> node_modules/.bin/opencode
# Idempotent: nothing is fetched when the installed tree was made from this very lock file
# and every CLI is present. The check is a stamp holding the lock file's hash, not mtimes:
# `npm install --package-lock-only` also rewrites node_modules/.package-lock.json, so the
# hidden lock file can list packages that were never installed.
set -euo pipefail
cd "$(dirname "$0")/../runtimes"
stamp=node_modules/.platform-runtimes.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
installed() {
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || return 1
  for bin in claude codex opencode; do
    [ -x "node_modules/.bin/$bin" ] || return 1
  done
}
if ! installed; then
  rm -f "$stamp"
  # Not `npm ci`: the registry mirror lacks some other-platform optional packages of
  # opencode-ai (opencode-darwin-*, -windows-*, -linux-arm64, -musl), so the lock cannot list
  # them and `npm ci` rejects it as "out of sync". `npm install` installs exactly the locked
  # versions (with their integrity hashes); if it had to change the lock file, the lock was
  # stale: put it back and fail instead of installing something unpinned.
  cp package-lock.json "${TMPDIR:-/tmp}/platform-runtimes-lock.$$"
  trap 'rm -f "${TMPDIR:-/tmp}/platform-runtimes-lock.$$"' EXIT
  npm install --no-audit --no-fund --loglevel=error >&2
  if ! cmp -s package-lock.json "${TMPDIR:-/tmp}/platform-runtimes-lock.$$"; then
    cp "${TMPDIR:-/tmp}/platform-runtimes-lock.$$" package-lock.json
    echo "setup-runtimes: package-lock.json does not match package.json;" \
         "run: cd runtimes && npm install --package-lock-only" >&2
    exit 1
  fi
  for bin in claude codex opencode; do
    if [ ! -x "node_modules/.bin/$bin" ]; then
      echo "setup-runtimes: node_modules/.bin/$bin missing after npm install" >&2
      exit 1
    fi
  done
  echo "$want" > "$stamp"
fi
