#!/usr/bin/env bash
# The platform side by side with what a user would pick instead, in one run (issue 17): bridge
# vs the ai package's pipeline over ai-sdk-provider-claude-code and a hand-written Node
# translator, resume vs resumable-stream, fan-out vs a node:http SSE server. Prints each
# measurement, then a table with the ratios (ours ÷ theirs); see peers_bench.py.
#
#   bash tests/bench/peers/run.sh [BUILD_DIR]        (default: build)
#
# Builds nothing: BUILD_DIR must hold platformctl, platform-web, bench_bridge, bench_resume and bench_chunk_latency.
# Installs the pinned npm tree (setup.sh; a no-op once installed). Uses the PostgreSQL and Redis
# of PLATFORM_TEST_PG_URL and PLATFORM_TEST_REDIS_URL (or PLATFORM_DATABASE_URL and
# PLATFORM_REDIS_URL) when both are given, otherwise starts its own with scripts/services.sh
# and stops them at the end. Everything talks to 127.0.0.1 only. Extra options go to
# peers_bench.py through PEERS_BENCH_ARGS (e.g. "--size 500 --runs 5").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)

for bin in tools/platformctl/platformctl servers/web/platform-web tests/bench/bench_bridge tests/bench/bench_resume tests/bench/bench_chunk_latency; do
  if [ ! -x "$build/$bin" ]; then
    echo "peers bench: $build/$bin is missing; build it first (ninja -C $build)" >&2
    exit 2
  fi
done
bash "$here/setup.sh"

export PLATFORM_TEST_REDIS_URL=${PLATFORM_TEST_REDIS_URL:-${PLATFORM_REDIS_URL:-}}
export PLATFORM_TEST_PG_URL=${PLATFORM_TEST_PG_URL:-${PLATFORM_DATABASE_URL:-}}
services=
if [ -z "$PLATFORM_TEST_REDIS_URL" ] || [ -z "$PLATFORM_TEST_PG_URL" ]; then
  env_lines=$(bash "$root/scripts/services.sh" start)
  eval "$env_lines"
  services=$PLATFORM_TEST_SERVICES_DIR
  trap 'bash "$root/scripts/services.sh" stop "$services"' EXIT
fi

# shellcheck disable=SC2086  # PEERS_BENCH_ARGS is a list of options
timeout 1800 python3 "$here/peers_bench.py" --build "$build" --fixtures "$root/tests/data/fixtures" ${PEERS_BENCH_ARGS:-}
