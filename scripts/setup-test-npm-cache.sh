#!/usr/bin/env bash
# Fills the npm cache (npm's own setting: npm_config_cache, else ~/.npm) with what the app
# packages e2e test (tests/js/e2e-app-packages.mjs) has the builder add to an app while the
# worker runs npm offline:
#   1. the pinned tree tests/js/samples/app-packages, installed as its lock pins (its tarballs
#      reach the cache integrity-checked, through scripts/npm-pinned-install.mjs);
#   2. the registry's full metadata of each of its root dependencies (`npm cache add`), which
#      `npm install NAME@VERSION` reads to add a package and an install from a lock never fetches.
# Each step is a no-op once its part is in the cache. scripts/test.sh runs it; so does the test.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=tests/js/samples/app-packages
node scripts/npm-pinned-install.mjs "$tree"
node -e 'const p = require(process.argv[1]); for (const [n, v] of Object.entries(p.dependencies)) console.log(`${n}@${v}`)' \
  "$PWD/$tree/package.json" | while read -r spec; do
  npm cache add "$spec" --prefer-offline --loglevel=error --no-update-notifier
done
