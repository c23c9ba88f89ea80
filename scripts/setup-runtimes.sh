#!/usr/bin/env bash
# Installs the agent runtime CLIs the worker runs, at the versions pinned in
# runtimes/package-lock.json, into runtimes/node_modules (only from the npm registry):
#   runtime-a  @anthropic-ai/claude-code  -> node_modules/.bin/claude
#   runtime-b  @openai/codex              -> node_modules/.bin/codex
#   runtime-c  opencode-ai                -> node_modules/.bin/opencode
# and, for tests only, an opencode from before `run --format json` (pinned in
# runtimes/opencode-nojson/package-lock.json) -> runtimes/opencode-nojson/node_modules/.bin/opencode.
# Idempotent: nothing is fetched when the installed tree was made from this very lock file
# and every CLI is present. The check is a stamp holding the lock file's hash, not mtimes:
# `npm install --package-lock-only` also rewrites node_modules/.package-lock.json, so the
# hidden lock file can list packages that were never installed.
set -euo pipefail
cd "$(dirname "$0")/../runtimes"

# install DIR BIN...: the pinned packages of DIR/package-lock.json into DIR/node_modules.
install() {
  local dir=$1
  shift
  local stamp=$dir/node_modules/.platform-runtimes.sha256 want saved
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && all_present "$dir" "$@"; then return 0; fi
  rm -f "$stamp"
  # Not `npm ci`: the registry mirror lacks some other-platform optional packages of
  # opencode-ai (opencode-darwin-*, -windows-*, -linux-arm64, -musl), so the lock cannot list
  # them and `npm ci` rejects it as "out of sync". `npm install` installs exactly the locked
  # versions (with their integrity hashes); if it had to change the lock file, the lock was
  # stale: put it back and fail instead of installing something unpinned.
  saved=$(mktemp "${TMPDIR:-/tmp}/platform-runtimes-lock.XXXXXX")
  cp "$dir/package-lock.json" "$saved"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2)
  if ! cmp -s "$dir/package-lock.json" "$saved"; then
    cp "$saved" "$dir/package-lock.json"
    rm -f "$saved"
    echo "setup-runtimes: $dir/package-lock.json does not match package.json;" \
         "run: cd runtimes/$dir && npm install --package-lock-only" >&2
    exit 1
  fi
  rm -f "$saved"
  if ! all_present "$dir" "$@"; then
    echo "setup-runtimes: a CLI of $dir is missing after npm install" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
}

all_present() {
  local dir=$1 bin
  shift
  for bin in "$@"; do
    [ -x "$dir/node_modules/.bin/$bin" ] || return 1
  done
}

install . claude codex opencode
install opencode-nojson opencode
