#pragma once
// The one normalized worker message shape (spec "Worker SSE messages (hop 1)"): the runtime-a
// SDK message form, one JSON object per line. runtime-b and runtime-c normalizers write it
// with these functions; the bridge reads it. Extensions over runtime-a, documented in
// docs/worker-messages.md:
//   - a tool_result block may carry `"preliminary": true` (partial output, e.g. a command's
//     output so far) and may repeat for the same tool_use_id (later updates of the output);
//   - tool_result `content` may be any JSON value (runtime-a uses a string or text blocks);
//   - `{"type":"error","error":"<text>"}` is a worker-side failure of the turn.
// Every function appends exactly one line, terminated by '\n'.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/usage.hpp"

namespace platform::worker_message {

void system_init(std::string& out, std::string_view session_id, std::string_view model);

// Streaming form of one assistant message (Anthropic stream events wrapped as stream_event).
void message_start(std::string& out, std::string_view message_id, std::string_view model);
void text_block_start(std::string& out, int index);
void thinking_block_start(std::string& out, int index);
void tool_use_block_start(std::string& out, int index, std::string_view tool_use_id,
                          std::string_view tool_name);
void text_delta(std::string& out, int index, std::string_view text);
void thinking_delta(std::string& out, int index, std::string_view thinking);
void input_json_delta(std::string& out, int index, std::string_view partial_json);
void block_stop(std::string& out, int index);
void message_stop(std::string& out);

// The complete assistant frame of one tool_use block: its `input` (JSON text) is final.
void assistant_tool_use(std::string& out, std::string_view message_id, std::string_view tool_use_id,
                        std::string_view tool_name, std::string_view input_json);

// A user frame with one tool_result block. `content_json` is JSON text.
void tool_result(std::string& out, std::string_view tool_use_id, std::string_view content_json,
                 bool is_error = false, bool preliminary = false);

struct result_fields {
  bool is_error = false;
  std::string result_text;      // final text, or the error text when is_error
  std::string session_id;
  std::string stop_reason;      // end_turn, tool_use, max_tokens, interrupted...
  int num_turns = 1;
  std::optional<double> total_cost_usd;
  std::string usage_json;       // `usage` object as JSON text; empty = omitted
  std::string model_usage_json; // `modelUsage` object as JSON text; empty = omitted
};
void result(std::string& out, const result_fields& r);

void error(std::string& out, std::string_view message);

// Extensions the worker adds for the web server (docs/worker-messages.md):
// - a result line may carry `platform_turn_usage`: this turn's RunUsage (the worker's usage
//   accumulator), which the web adds to the run's totals;
// - the last line of a builder turn, `{"type":"platform_turn_end","workspaceChanged":bool,
//   "sessionState":ProviderSessionState|null,"buildDigest":"sha256:..."}` (turn_end): all the
//   web server needs after the stream, so that it asks the worker again only for what changed.
// - `{"type":"platform_step_usage","usage":RunUsage}` after each model call or step: the turn's
//   usage so far, estimated from what the runtime reported while streaming, on which the web
//   server enforces budgets mid-turn (platform/budget.hpp). The recorded usage stays the
//   result line's.
// `result_line` is one JSON object without its newline; the usage is added as its last member.
void add_turn_usage(std::string& result_line, const run_usage& usage);
// What a builder turn leaves on its worker, said once the runtime is gone.
struct turn_end {
  // Whether the turn changed the workspace (compared before and after, whatever tool did it):
  // a turn that did not leaves the draft and its versions as they were.
  bool workspace_changed = true;
  // The session the worker keeps for the run's next turn, as ProviderSessionState JSON ("null"
  // for none); empty when the line does not carry it (one too large for a stream event: the
  // web asks GET .../session-state).
  std::string session_state_json;
  // The digest of the workspace's build (dist/, as done_building reports it), when it changed
  // and holds one: a build the web already stores is not downloaded again.
  std::string build_digest;
};
// The largest session a turn_end line carries (the web's worker-stream events are bounded).
inline constexpr std::size_t turn_end_max_session_bytes = 4u << 20;
void turn_end_line(std::string& out, const turn_end& end);
void step_usage(std::string& out, const run_usage& so_far);

// The readers the web server uses: nullopt for any other line, or one that is not well formed.
std::optional<run_usage> turn_usage(std::string_view line);
std::optional<turn_end> turn_end_of(std::string_view line);
std::optional<run_usage> step_usage_of(std::string_view line);

}  // namespace platform::worker_message
