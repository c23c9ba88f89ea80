#!/usr/bin/env bash
# Smoke test of the scripted model server with the REAL runtime CLIs, offline:
#   runtime-b  codex app-server (stdio JSON-RPC)  -> POST /v1/responses
#   runtime-c  opencode run --format json         -> POST /v1/chat/completions
#   runtime-a  claude -p (stream-json)            -> POST /v1/messages (same text scenario)
# Each case starts its own model server on 127.0.0.1 port 0, runs the CLI in a throwaway
# HOME / config tree, and checks the CLI's output and the requests the server saw.
# When it can (root, or unprivileged user namespaces, plus `ip`), the whole script re-runs
# itself inside a network namespace that has nothing but loopback, so any attempt of a CLI to
# reach the outside fails instead of leaking. SMOKE_NETNS=0 turns that off.
# Binaries: CODEX_BIN, OPENCODE_BIN, CLAUDE_BIN (default: runtimes/node_modules/.bin/*).
# Prints one line per check; exit 0 when all passed, 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ -z "${SMOKE_IN_NETNS:-}" ] && [ "${SMOKE_NETNS:-auto}" != 0 ] && command -v unshare >/dev/null \
   && command -v ip >/dev/null; then
  if [ "$(id -u)" = 0 ]; then ns=(unshare -n); else ns=(unshare -rn); fi
  if "${ns[@]}" ip link set lo up 2>/dev/null; then
    exec "${ns[@]}" env SMOKE_IN_NETNS=1 bash -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
  fi
fi

CODEX=${CODEX_BIN:-$root/runtimes/node_modules/.bin/codex}
OPENCODE=${OPENCODE_BIN:-$root/runtimes/node_modules/.bin/opencode}
CLAUDE=${CLAUDE_BIN:-$root/runtimes/node_modules/.bin/claude}
KEY=sk-scripted-smoke-key-0123456789   # a fake key; the checks make sure it never reaches a log

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smoke-runtimes.XXXXXX")
# codex 0.169 refuses to create its sandbox helper (codex-linux-sandbox) under the temporary
# dir, which for the CLI below is /tmp (it runs with no TMPDIR), so a CODEX_HOME there makes
# every workspace-write command fail. Its homes live outside: under the build tree when there
# is one (meson runs this from it), else /var/tmp.
homes_base=/var/tmp
if [ -d "$PWD/meson-logs" ]; then homes_base=$PWD; fi
homes=$(mktemp -d "$homes_base/smoke-runtime-homes.XXXXXX")
pids=()
failures=0
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  if [ "$failures" = 0 ] && [ -z "${SMOKE_KEEP:-}" ]; then rm -rf "$tmp" "$homes"; else echo "# kept $tmp $homes"; fi
}
trap cleanup EXIT

if [ -n "${SMOKE_IN_NETNS:-}" ]; then
  echo "# network: loopback-only namespace (nothing outside 127.0.0.1 is reachable)"
else
  echo "# network: host namespace (CLIs are only pointed at 127.0.0.1)"
fi

# check NAME FILE EXPR: EXPR is Python over `lines` (FILE parsed as JSON lines), `text`
# (FILE as a string), `log` (the model server's request log, parsed) and `stderr`.
check() {
  local name=$1 file=$2 expr=$3
  if python3 - "$file" "${LOG:-/dev/null}" "${ERR:-/dev/null}" "$expr" <<'PY'
import json, sys
path, log_path, err_path, expr = sys.argv[1:5]
text = open(path, errors="replace").read()
lines = []
for line in text.splitlines():
    try:
        lines.append(json.loads(line))
    except ValueError:
        pass
log = [json.loads(l) for l in open(log_path) if l.strip()]
stderr = open(err_path, errors="replace").read()
def events(kind): return [l for l in lines if l.get("method") == kind or l.get("type") == kind]
def items(kind): return [l["params"]["item"] for l in events("item/completed") if l["params"]["item"]["type"] == kind]
try:
    sys.exit(0 if eval(expr) else 1)
except Exception as e:  # missing events and the like: a failed check, not a traceback
    print("#   %s: %s" % (type(e).__name__, e))
    sys.exit(1)
PY
  then
    echo "ok   - $name"
  else
    echo "FAIL - $name"
    failures=$((failures + 1))
  fi
}

# start_server NAME SCENARIO: runs the model server on port 0; sets PORT and LOG. Waits for
# the port line the server prints once it listens (no sleeping).
start_server() {
  local name=$1 scenario=$2 fd
  LOG=$tmp/$name.requests.jsonl
  exec {fd}< <(exec python3 "$here/model_server.py" --script "$scenario" --log "$LOG" --idle-exit 120)
  pids+=($!)
  PORT=
  read -r -t 30 PORT <&"$fd"
  exec {fd}<&-
  if [ -z "$PORT" ]; then echo "FAIL - $name: the model server did not start"; failures=$((failures + 1)); return 1; fi
  : > "$LOG"
}

# ---- scenarios -----------------------------------------------------------------------------
# One text scenario drives all three CLIs; tool scenarios name each runtime's own shell tool.
cat > "$tmp/text.json" <<'EOF'
{"turns": [{"blocks": [{"type": "thinking", "thinking": "The user wants a greeting."},
                       {"type": "text", "text": "Hello from the scripted model."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1200, "cache_read_input_tokens": 300, "output_tokens": 20}}],
 "aux": {"blocks": [{"type": "text", "text": "Scripted title"}], "stop_reason": "end_turn"}}
EOF
cat > "$tmp/codex-tool.json" <<'EOF'
{"turns": [{"blocks": [{"type": "thinking", "thinking": "I will run a command."},
                       {"type": "tool_use", "id": "call_smoke_1", "name": "exec_command",
                        "input": {"cmd": "echo smoke-b-$((6*7))"}}],
            "stop_reason": "tool_use"},
           {"blocks": [{"type": "text", "text": "The command printed smoke-b-42."}],
            "stop_reason": "end_turn"}]}
EOF
cat > "$tmp/opencode-tool.json" <<'EOF'
{"turns": [{"blocks": [{"type": "text", "text": "Running it."},
                       {"type": "tool_use", "id": "call_smoke_1", "name": "bash",
                        "input": {"command": "echo smoke-c-$((6*7))", "description": "Print a marker"}}],
            "stop_reason": "tool_use"},
           {"blocks": [{"type": "text", "text": "The command printed smoke-c-42."}],
            "stop_reason": "end_turn"}],
 "aux": {"blocks": [{"type": "text", "text": "Scripted title"}], "stop_reason": "end_turn"}}
EOF


ok_if() {  # ok_if NAME STATUS: passes when STATUS is 0
  if [ "$2" = 0 ]; then echo "ok   - $1"; else echo "FAIL - $1"; failures=$((failures + 1)); fi
}

# ---- runtime-b: codex app-server -------------------------------------------------------------
# CODEX_HOME/config.toml: a custom provider (wire_api "responses", env_key) pointed at the
# server; the built-in "openai" provider would try a WebSocket first and ignore OPENAI_API_KEY.
# Features that phone home (plugins, apps, analytics, update check) are off.
run_codex() {  # run_codex NAME PROMPT (after start_server): sets OUT, ERR
  local name=$1 prompt=$2 home=$homes/$1/codex-home ws=$tmp/$1/workspace rc
  mkdir -p "$home" "$ws"
  cat > "$home/config.toml" <<TOML
model = "gpt-5.5"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "Scripted model server"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
env_key = "SCRIPTED_MODEL_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
apps = false
remote_plugin = false
plugin_sharing = false
tool_suggest = false

[analytics]
enabled = false
TOML
  OUT=$tmp/$name.transcript.jsonl ERR=$tmp/$name.stderr.txt
  (cd "$ws" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" CODEX_HOME="$home" LANG=C.UTF-8 \
      SCRIPTED_MODEL_API_KEY="$KEY" \
      python3 "$here/drive_codex.py" --codex "$CODEX" --cwd "$ws" --prompt "$prompt" \
      --transcript "$OUT" --stderr "$ERR" --approval-policy never --sandbox workspace-write) \
      2> "$tmp/$name.driver.txt"
  rc=$?
  ok_if "$name: codex app-server: initialize, thread/start, turn/start ... turn/completed" $rc
  [ $rc = 0 ] || sed 's/^/#   /' "$tmp/$name.driver.txt" "$ERR" | tail -8
}

if [ -x "$CODEX" ]; then
  if start_server codex-text "$tmp/text.json"; then
    run_codex codex-text "Say hello"
    check "codex-text: turn/completed with status completed" "$OUT" \
      'events("turn/completed")[-1]["params"]["turn"]["status"] == "completed"'
    check "codex-text: agentMessage item text is the scenario text" "$OUT" \
      '[i["text"] for i in items("agentMessage")] == ["Hello from the scripted model."]'
    check "codex-text: item/agentMessage/delta pieces add up to it" "$OUT" \
      '"".join(e["params"]["delta"] for e in events("item/agentMessage/delta")) == "Hello from the scripted model."'
    check "codex-text: reasoning item summary is the scenario thinking" "$OUT" \
      '[i["summary"] for i in items("reasoning")] == [["The user wants a greeting."]]'
    check "codex-text: thread/tokenUsage/updated last = input 1500 (300 cached), output 20" "$OUT" \
      '[(u["inputTokens"], u["cachedInputTokens"], u["outputTokens"]) for u in [events("thread/tokenUsage/updated")[-1]["params"]["tokenUsage"]["last"]]] == [(1500, 300, 20)]'
    check "codex-text: server saw one POST /v1/responses, stream true, bearer key sent" "$OUT" \
      '[(r["method"], r["path"], r["body"]["stream"], r["headers"].get("authorization")) for r in log] == [("POST", "/v1/responses", True, "[redacted]")]'
  fi
  if start_server codex-tool "$tmp/codex-tool.json"; then
    run_codex codex-tool "Run a command"
    check "codex-tool: turn/completed with status completed" "$OUT" \
      'events("turn/completed")[-1]["params"]["turn"]["status"] == "completed"'
    check "codex-tool: commandExecution call_smoke_1 ran the scripted command: exit 0, output smoke-b-42" "$OUT" \
      '[(i["id"], i["status"], i["exitCode"], i["aggregatedOutput"].strip(), i["commandActions"][0]["command"]) for i in items("commandExecution")] == [("call_smoke_1", "completed", 0, "smoke-b-42", "echo smoke-b-$((6*7))")]'
    check "codex-tool: the final agentMessage follows the tool round" "$OUT" \
      '[i["text"] for i in items("agentMessage")] == ["The command printed smoke-b-42."]'
    check "codex-tool: 2 requests; the 2nd sends back function_call + function_call_output (smoke-b-42)" "$OUT" \
      'len(log) == 2 and [(i["type"], i["call_id"]) for i in log[1]["body"]["input"] if i.get("call_id")] == [("function_call", "call_smoke_1"), ("function_call_output", "call_smoke_1")] and "smoke-b-42" in json.dumps([i for i in log[1]["body"]["input"] if i.get("type") == "function_call_output"])'
  fi
else
  ok_if "codex binary at $CODEX (run scripts/setup-runtimes.sh)" 1
fi

# ---- runtime-c: opencode run --format json ----------------------------------------------------
# $XDG_CONFIG_HOME/opencode/opencode.json: a provider using the bundled
# @ai-sdk/openai-compatible, pointed at the server. The config dir is pre-seeded with
# node_modules/, package.json and package-lock.json naming @opencode-ai/plugin, else opencode
# starts a background `npm install` there. The prompt goes on stdin, which then hits EOF.
run_opencode() {  # run_opencode NAME PROMPT [ARGS...] (after start_server): sets OUT, ERR
  local name=$1 prompt=$2 base=$tmp/$1 cfg rc
  shift 2
  cfg=$base/config/opencode
  mkdir -p "$base/home" "$cfg/node_modules" "$base/data" "$base/cache" "$base/state" "$base/workspace"
  printf '{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}\n' > "$cfg/package.json"
  printf '{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}\n' \
    > "$cfg/package-lock.json"
  cat > "$cfg/opencode.json" <<JSON
{
  "\$schema": "https://opencode.ai/config.json",
  "model": "scripted/scripted-model",
  "small_model": "scripted/scripted-model",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "scripted": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Scripted model server",
      "options": {"baseURL": "http://127.0.0.1:$PORT/v1", "apiKey": "{env:SCRIPTED_MODEL_API_KEY}"},
      "models": {
        "scripted-model": {"name": "Scripted model", "reasoning": true, "tool_call": true,
                           "limit": {"context": 128000, "output": 8192},
                           "cost": {"input": 1, "output": 2, "cache_read": 0.1}}
      }
    }
  }
}
JSON
  OUT=$tmp/$name.stdout.jsonl ERR=$tmp/$name.stderr.txt
  (cd "$base/workspace" && printf '%s' "$prompt" | env -i PATH="$RG_DIR/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 \
      HOME="$base/home" XDG_CONFIG_HOME="$base/config" XDG_DATA_HOME="$base/data" \
      XDG_CACHE_HOME="$base/cache" XDG_STATE_HOME="$base/state" \
      OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
      OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_PROJECT_CONFIG=1 \
      SCRIPTED_MODEL_API_KEY="$KEY" \
      timeout 120 "$OPENCODE" run --format json "$@" > "$OUT" 2> "$ERR")
  rc=$?
  ok_if "$name: opencode run --format json${*:+ $*} (prompt on stdin) exited 0" $rc
  [ $rc = 0 ] || sed 's/^/#   /' "$ERR" | tail -8
}

# opencode's grep/glob tools need `rg`; when it is not on PATH they download ripgrep from
# github.com (and fail offline). codex ships one; use it unless the system has its own.
RG_DIR=
if ! command -v rg >/dev/null; then
  for dir in "$root"/runtimes/node_modules/@openai/codex-linux-*/vendor/*/codex-path; do
    if [ -x "$dir/rg" ]; then RG_DIR=$dir:; fi
  done
fi

if [ -x "$OPENCODE" ]; then
  if start_server opencode-text "$tmp/text.json"; then
    run_opencode opencode-text "Say hello" --thinking
    check "opencode-text: every stdout line is a JSON event of one session" "$OUT" \
      'len(lines) == len(text.splitlines()) > 0 and len({l["sessionID"] for l in lines}) == 1'
    check "opencode-text: text part is the scenario text" "$OUT" \
      '[e["part"]["text"] for e in events("text")] == ["Hello from the scripted model."]'
    check "opencode-text: reasoning part is the scenario thinking" "$OUT" \
      '[e["part"]["text"] for e in events("reasoning")] == ["The user wants a greeting."]'
    check "opencode-text: step_finish reason stop, tokens input 1200, cache read 300, output 20" "$OUT" \
      '[(e["part"]["reason"], e["part"]["tokens"]["input"], e["part"]["tokens"]["cache"]["read"], e["part"]["tokens"]["output"]) for e in events("step_finish")] == [("stop", 1200, 300, 20)]'
    check "opencode-text: server saw 2 streamed POST /v1/chat/completions (title without tools = aux; the turn)" "$OUT" \
      'sorted((r["path"], r["body"]["stream"], bool(r["body"].get("tools"))) for r in log) == [("/v1/chat/completions", True, False), ("/v1/chat/completions", True, True)]'
  fi
  if start_server opencode-tool "$tmp/opencode-tool.json"; then
    run_opencode opencode-tool "Run a command"
    check "opencode-tool: tool_use bash call_smoke_1 completed, output smoke-c-42" "$OUT" \
      '[(e["part"]["tool"], e["part"]["callID"], e["part"]["state"]["status"], e["part"]["state"]["output"].strip(), e["part"]["state"]["input"]["command"]) for e in events("tool_use")] == [("bash", "call_smoke_1", "completed", "smoke-c-42", "echo smoke-c-$((6*7))")]'
    check "opencode-tool: text before and after the tool round" "$OUT" \
      '[e["part"]["text"] for e in events("text")] == ["Running it.", "The command printed smoke-c-42."]'
    check "opencode-tool: two steps, finish reasons tool-calls then stop" "$OUT" \
      '[e["part"]["reason"] for e in events("step_finish")] == ["tool-calls", "stop"]'
    check "opencode-tool: the 2nd turn request sends back the tool result for call_smoke_1" "$OUT" \
      'any(m.get("role") == "tool" and m.get("tool_call_id") == "call_smoke_1" and "smoke-c-42" in str(m.get("content")) for r in log for m in r["body"].get("messages", []))'
  fi
else
  ok_if "opencode binary at $OPENCODE (run scripts/setup-runtimes.sh)" 1
fi

# ---- runtime-a: claude -p, the same text scenario over the Anthropic Messages API --------------
if [ -x "$CLAUDE" ]; then
  if start_server claude-text "$tmp/text.json"; then
    base=$tmp/claude-text
    mkdir -p "$base/home" "$base/workspace"
    OUT=$tmp/claude-text.stdout.jsonl ERR=$tmp/claude-text.stderr.txt
    (cd "$base/workspace" && printf 'Say hello' | env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
        HOME="$base/home" CLAUDE_CONFIG_DIR="$base/home/.claude" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        DISABLE_AUTOUPDATER=1 CLAUDE_CODE_MAX_RETRIES=0 \
        ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY="$KEY" \
        timeout 120 "$CLAUDE" -p --output-format stream-json --verbose --setting-sources= \
        > "$OUT" 2> "$ERR")
    ok_if "claude-text: claude -p --output-format stream-json exited 0" $?
    check "claude-text: result is the scenario text (Anthropic path unchanged)" "$OUT" \
      '[e.get("result") for e in events("result")] == ["Hello from the scripted model."]'
  fi
else
  echo "# skipped runtime-a: no claude binary at $CLAUDE"
fi

# ---- secrets -------------------------------------------------------------------------------------
leaks=$(grep -l -F -- "$KEY" "$tmp"/*.requests.jsonl 2>/dev/null)
ok_if "no request log contains the API key" "$([ -z "$leaks" ] && echo 0 || echo 1)"

echo "# $failures failure(s)"
[ "$failures" = 0 ]
