#!/usr/bin/env bash
# Refreshes docs/screenshots (the README's gallery) from the browser tests' own scenarios:
# every tests/js/browser script that calls screenshot() runs once with PLATFORM_SCREENSHOTS_DIR
# set, so each screenshot shows the page at the point its test checks it. The images are then
# quantized with pngquant to keep the repository small. Needs the build (scripts/test.sh or
# ninja -C build). Exits 1 when a scenario failed (its screenshots are then missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh chromium fonts-dejavu-core fonts-liberation pngquant
# What tests/js/run-e2e.sh sets up before each test, once here.
node scripts/npm-pinned-install.mjs tests/js
bash scripts/setup-runtimes.sh
bash scripts/setup-template.sh
bash scripts/setup-ui.sh
ninja -C build servers/web/platform-web servers/worker/platform-worker servers/sandbox/platform-sandbox-relay
root=$PWD
shots=$root/docs/screenshots
# A screenshot no scenario takes any more must not stay behind.
rm -f "$shots"/*.png
export PLATFORM_SCREENSHOTS_DIR=$shots PLATFORM_TEST_REQUIRE_BROWSER=1
failed=()
for script in tests/js/browser/e2e-*.mjs; do
  grep -q 'screenshot(' "$script" || continue
  echo "screenshots: $script" >&2
  (cd tests/js && node "browser/$(basename "$script")" --build "$root/build" --project "$root") || failed+=("$script")
done
# The failure screenshots of a red run are not documentation.
rm -f "$shots"/FAIL-*.png
for f in "$shots"/*.png; do
  # 98/99: the quantized file would be larger, or worse than the floor: the original stays.
  pngquant --force --skip-if-larger --strip --quality 70-95 --ext .png "$f" || true
done
ls -l "$shots"
if [ ${#failed[@]} -gt 0 ]; then
  echo "screenshots: failed: ${failed[*]}" >&2
  exit 1
fi
