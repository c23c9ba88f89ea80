#pragma once
// The bridge: worker messages (runtime-a SDK form, one JSON object per line) in, AI SDK UI
// message stream chunks out, already framed as SSE (spec "Bridge translation from the
// runtime-a event form"). Sans-I/O: feed bytes in any chunking, collect output bytes.
// Memory stays flat: only the unfinished input line and the open parts are kept.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace platform {

struct bridge_options {
  // `start.messageId` of the turn. Resume needs it stable so a replay does not add a second
  // assistant message. A later turn in the same input (multi-turn transcripts) gets
  // "<message_id>-<n>".
  std::string message_id = "msg";
  // Placeholder text of the reasoning part opened when only thinking_tokens progress arrives.
  std::string thinking_placeholder = "Thinking…";
  // Longest accepted input line; a longer one is skipped (and counted) so a runaway worker
  // cannot grow memory without bound.
  std::size_t max_line_bytes = 64u << 20;
};

// What the run state machine needs to know once the turn is over.
struct bridge_outcome {
  bool result_seen = false;
  bool is_error = false;             // result is_error, or a worker error
  std::string error_text;            // the error chunk's text when is_error
  bool approval_stop = false;        // a valid present_plan / present_agents returned
  std::string approval_tool;         // which one
  bool done_building_succeeded = false;
  bool stopped = false;              // abort(): the user stopped the turn
  std::string session_id;            // from system/init or result
  std::string model;                 // from system/init
  std::optional<double> total_cost_usd;
  std::string usage_json;            // result.usage (this turn)
  std::string model_usage_json;      // result.modelUsage (cumulative for runtime-a)
  std::string model_usage_delta_json;// result.model_usage_since_last_result when present
  std::string stop_reason;
  long num_turns = 0;
  std::size_t lines = 0;             // worker messages read
  std::size_t ignored_lines = 0;     // unparsable, oversized or unknown lines
  std::size_t chunks = 0;            // UI chunks written (not counting [DONE])
};

class bridge {
 public:
  explicit bridge(bridge_options options = {});
  ~bridge();
  bridge(bridge&&) noexcept;
  bridge& operator=(bridge&&) noexcept;

  // Feeds worker message bytes (JSON lines, any split). Appends SSE bytes to `out`.
  void feed(std::string_view bytes, std::string& out);
  // Feeds one complete worker message (no trailing newline needed).
  void feed_message(std::string_view json, std::string& out);
  // A worker-side failure (lost connection, crash): an `error` chunk, parts closed.
  void fail(std::string_view error_text, std::string& out);
  // End of input: flushes a final unterminated line, closes open parts and pending tools,
  // writes `finish` if the turn has none yet, then `data: [DONE]`. Idempotent.
  void finish(std::string& out);
  // The user stopped the turn: like finish(), with an `abort` chunk carrying `reason` before
  // the turn's `finish` (the AI SDK keeps what streamed so far). Sets outcome().stopped.
  void abort(std::string_view reason, std::string& out);

  [[nodiscard]] const bridge_outcome& outcome() const;
  [[nodiscard]] bool finished() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Translates a whole worker message transcript (runtime-a form) into an SSE body.
std::string translate_worker_messages(std::string_view transcript, const bridge_options& options = {});

}  // namespace platform
