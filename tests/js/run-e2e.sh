#!/usr/bin/env bash
# End-to-end tests with the real runtime CLI: BUILD_DIR PROJECT_DIR [--replicas]. Runs
# e2e-chat.mjs, or the script named by E2E_SCRIPT. The replicas
# variant needs PLATFORM_TEST_PG_URL and PLATFORM_TEST_REDIS_URL (scripts/services.sh); without
# them it is skipped (exit 77), unless PLATFORM_TEST_REQUIRE_SERVICES=1 makes that a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
build=$1 project=$2; shift 2
if [[ " $* " == *" --replicas "* ]] && { [ -z "${PLATFORM_TEST_PG_URL:-}" ] || [ -z "${PLATFORM_TEST_REDIS_URL:-}" ]; }; then
  if [ "${PLATFORM_TEST_REQUIRE_SERVICES:-0}" = 1 ]; then echo "PostgreSQL/Redis test URLs missing" >&2; exit 1; fi
  exit 77
fi
# Each is a no-op once its tree is installed as its lock pins (scripts/npm-pinned-install.mjs).
node "$project/scripts/npm-pinned-install.mjs" .
bash "$project/scripts/setup-runtimes.sh"
bash "$project/scripts/setup-template.sh"
bash "$project/scripts/setup-ui.sh"
exec node "${E2E_SCRIPT:-e2e-chat.mjs}" --build "$build" --project "$project" "$@"
