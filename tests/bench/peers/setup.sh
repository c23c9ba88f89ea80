#!/usr/bin/env bash
# Installs the peers' npm tree (package.json + package-lock.json here, exact versions) through
# the project's pinned installer; a second run is a no-op. Needs the npm registry (setup time
# only: the benchmark itself talks to 127.0.0.1 alone). The Claude Agent SDK brings its native
# CLI for this platform (an optional package of ≈ 285 MB); the benchmark does not run it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec node "$here/../../../scripts/npm-pinned-install.mjs" "$here" \
  --require node_modules/ai/package.json \
  --require node_modules/ai-sdk-provider-claude-code/package.json \
  --require node_modules/resumable-stream/package.json \
  --require node_modules/redis/package.json
