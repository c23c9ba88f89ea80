#!/usr/bin/env bash
# Sets up this machine, builds the platform and runs it on its embedded defaults: SQLite in
# ./data, in-process pub/sub, platform-web on 127.0.0.1:8787 (the builder page at /) and
# platform-worker on :8788. The worker runs the real Claude Code CLI; give it ANTHROPIC_API_KEY
# (and, for a scripted or proxy endpoint, ANTHROPIC_BASE_URL). Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-runtimes.sh
# The builder page platform-web serves at / (ui/dist; a no-op when its inputs are unchanged).
bash scripts/setup-ui.sh
[ -f build/build.ninja ] || meson setup build --wrap-mode=nodownload >/dev/null
# Only what runs here; the tests and tools build with scripts/test.sh or a plain `ninja -C build`.
ninja -C build servers/web/platform-web servers/worker/platform-worker
export PLATFORM_DATA_DIR=${PLATFORM_DATA_DIR:-$PWD/data}
./build/servers/worker/platform-worker &
worker=$!
trap 'kill $worker 2>/dev/null || true' EXIT
exec_status=0
./build/servers/web/platform-web || exec_status=$?
exit $exec_status
