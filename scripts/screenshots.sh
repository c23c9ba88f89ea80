#!/usr/bin/env bash
# Refreshes the screenshots of the builder page in docs/screenshots (used by the README) from
# the browser tests' own scenarios: the demo provider's new app, plan and build, the runs
# page, and the builder page test's cards. Needs the build (scripts/test.sh or ninja -C build).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh chromium fonts-dejavu-core fonts-liberation
bash scripts/setup-ui.sh
ninja -C build servers/web/platform-web servers/worker/platform-worker
export PLATFORM_SCREENSHOTS_DIR=$PWD/docs/screenshots PLATFORM_TEST_REQUIRE_BROWSER=1
E2E_SCRIPT=browser/e2e-demo-provider.mjs bash tests/js/run-e2e.sh "$PWD/build" "$PWD"
E2E_SCRIPT=browser/e2e-builder-page.mjs bash tests/js/run-e2e.sh "$PWD/build" "$PWD"
# The failure screenshots of a red run are not documentation.
rm -f docs/screenshots/FAIL-*.png
ls docs/screenshots
