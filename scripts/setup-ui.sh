#!/usr/bin/env bash
# Builds the builder page: installs ui/node_modules at the versions pinned in
# ui/package-lock.json (how the lock is enforced: scripts/npm-pinned-install.mjs), then runs
# `npm run build` in ui/ (type check, then vite) into ui/dist, which platform-web serves
# (docs/operations.md, PLATFORM_UI_DIR) and `meson install` installs to share/platform/ui.
# Each text file gets its .br and .gz beside it (scripts/precompress-ui.mjs).
# A second run is a no-op: ui/dist/.build-stamp holds the sha256 of the build's inputs (the
# lock, package.json, index.html, vite.config.ts, tsconfig*.json and every file under src/ and
# public/), and the build runs again only when they changed or dist lost its index.html.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f ui/package.json ]; then
  echo "setup-ui: no ui/package.json here, nothing to build" >&2
  exit 0
fi
node scripts/npm-pinned-install.mjs ui \
  --require node_modules/vite/bin/vite.js --require node_modules/typescript/bin/tsc

# One build at a time per checkout (run.sh and test.sh may start together).
exec 9>ui/node_modules/.platform-ui-build.lock
flock 9

inputs_hash() {
  local inputs=()
  local f
  for f in package-lock.json package.json index.html vite.config.ts tsconfig*.json src public; do
    [ -e "ui/$f" ] && inputs+=("$f")
  done
  # Names and contents, in a fixed order: a renamed or removed file changes the hash too. The
  # app SDK's protocol types are the preview bridge's (ui/src/preview/bridge-messages.ts).
  { (cd ui && find "${inputs[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum); sha256sum scripts/precompress-ui.mjs templates/app-workspace/src/platform/protocol.ts; } |
    sha256sum | cut -d' ' -f1
}

stamp=$(inputs_hash)
if [ -f ui/dist/index.html ] && [ "$(cat ui/dist/.build-stamp 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
rm -f ui/dist/.build-stamp
npm --prefix ui run build --silent
[ -f ui/dist/index.html ] || { echo "setup-ui: the build wrote no ui/dist/index.html" >&2; exit 1; }
# Compressed once here, never per request (scripts/precompress-ui.mjs).
node scripts/precompress-ui.mjs ui/dist
printf '%s' "$stamp" > ui/dist/.build-stamp
echo "setup-ui: built ui/dist" >&2
