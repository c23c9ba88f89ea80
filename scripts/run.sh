#!/usr/bin/env bash
# Sets up this machine, builds the platform and runs it on its embedded defaults: SQLite in
# ./data, in-process pub/sub, platform-web on 127.0.0.1:8787 (the builder page at /) and
# platform-worker on :8788. The worker runs the real Claude Code CLI; give it ANTHROPIC_API_KEY
# (and, for a scripted or proxy endpoint, ANTHROPIC_BASE_URL), or run without a key on the
# labelled demo provider. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-runtimes.sh
# The builder page platform-web serves at / (ui/dist; a no-op when its inputs are unchanged).
bash scripts/setup-ui.sh
[ -f build/build.ninja ] || meson setup build --wrap-mode=nodownload >/dev/null
# Only what runs here; the tests and tools build with scripts/test.sh or a plain `ninja -C build`.
ninja -C build servers/web/platform-web servers/worker/platform-worker servers/sandbox/platform-sandbox-relay
export PLATFORM_DATA_DIR=${PLATFORM_DATA_DIR:-$PWD/data}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
# Without a provider key the platform still works end to end on the demo provider: the
# project's scripted model server answers Claude Code with examples/demo-provider/scenario.json
# (a plan, then a real build). The worker uses it only while runtime-a has neither a key nor
# the operator's Claude Code login, so a key entered on /onboarding/provider (or a `claude`
# login) takes over at the next turn, without a restart. PLATFORM_DEMO_PROVIDER=0 turns it off;
# a key in the environment too.
if [ -z "${ANTHROPIC_API_KEY:-}${OPENAI_API_KEY:-}${CODEX_API_KEY:-}" ] && [ "${PLATFORM_DEMO_PROVIDER:-1}" != 0 ]; then
  port_file=$(mktemp)
  python3 tests/model_server/model_server.py --script examples/demo-provider/scenario.json --port 0 \
    --port-file "$port_file" --idle-exit 1e9 --max-requests 1000000000 >/dev/null &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.1; done
  demo_port=$(cat "$port_file"); rm -f "$port_file"
  if [ -s "$PLATFORM_DATA_DIR/provider-keys.json" ] || [ -s "${PLATFORM_CLAUDE_CONFIG_DIR:-$HOME/.claude}/.credentials.json" ] || [ -n "${CLAUDE_CODE_OAUTH_TOKEN:-}" ]; then
    echo "platform: runtime-a has a saved key or a Claude Code login; the demo provider stands by" >&2
  else
    cat >&2 <<'BANNER'

  +--------------------------------------------------------------------------+
  | DEMO PROVIDER: no ANTHROPIC_API_KEY (nor OPENAI_API_KEY, CODEX_API_KEY), |
  | no Claude Code login. The builder's replies are SCRIPTED                 |
  | (examples/demo-provider), not a real model; the Claude Code CLI, the     |
  | tools and the build are real. Enter a key at                             |
  | http://127.0.0.1:8787/onboarding/provider to build with a real model.    |
  +--------------------------------------------------------------------------+

BANNER
  fi
  export PLATFORM_DEMO_PROVIDER=1
  PLATFORM_DEMO_PROVIDER_URL=http://127.0.0.1:$demo_port ./build/servers/worker/platform-worker &
else
  export PLATFORM_DEMO_PROVIDER=0
  ./build/servers/worker/platform-worker &
fi
pids+=($!)
exec_status=0
./build/servers/web/platform-web || exec_status=$?
exit $exec_status
