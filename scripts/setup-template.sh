#!/usr/bin/env bash
# Installs the node_modules of the app workspace template (templates/app-workspace) at the
# versions pinned in its package-lock.json. Every builder workspace links to this one tree
# (the worker copies the template's files and symlinks node_modules), so it is installed once
# per machine, not per app. How the lock is enforced: scripts/npm-pinned-install.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/npm-pinned-install.mjs templates/app-workspace \
  --require node_modules/typescript/bin/tsc --require node_modules/vite/bin/vite.js
