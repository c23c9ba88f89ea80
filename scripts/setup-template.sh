#!/usr/bin/env bash
# Installs the node_modules of the app workspace template (templates/app-workspace) at the
# versions pinned in its package-lock.json. Every builder workspace links to this one tree
# (the worker copies the template's files and symlinks node_modules), so it is installed once
# per machine, not per app.
# Idempotent: nothing is fetched when the installed tree was made from this very lock file
# and the type checker and bundler are present (a stamp holding the lock's hash, as in
# setup-runtimes.sh).
set -euo pipefail
cd "$(dirname "$0")/../templates/app-workspace"
stamp=node_modules/.platform-template.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
installed() {
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || return 1
  [ -f node_modules/typescript/bin/tsc ] && [ -f node_modules/vite/bin/vite.js ]
}
if ! installed; then
  rm -f "$stamp"
  # Not `npm ci`, for the reason setup-runtimes.sh gives: the registry mirror lacks some
  # other-platform optional packages (@tailwindcss/oxide-darwin-*, -win32-*, ...), so the lock
  # cannot list them and `npm ci` calls it out of sync. `npm install` installs exactly the
  # locked versions; a lock it had to change was stale: restore it and fail.
  saved="${TMPDIR:-/tmp}/platform-template-lock.$$"
  cp package-lock.json "$saved"
  trap 'rm -f "$saved"' EXIT
  npm install --no-audit --no-fund --loglevel=error >&2
  if ! cmp -s package-lock.json "$saved"; then
    cp "$saved" package-lock.json
    echo "setup-template: package-lock.json does not match package.json;" \
         "run: cd templates/app-workspace && npm install --package-lock-only" >&2
    exit 1
  fi
  for f in typescript/bin/tsc vite/bin/vite.js; do
    [ -f "node_modules/$f" ] || { echo "setup-template: node_modules/$f missing after npm install" >&2; exit 1; }
  done
  echo "$want" > "$stamp"
fi
