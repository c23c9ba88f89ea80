#pragma once
// One builder turn as the web server runs it (spec "Chat POST rules", "Chat stream resume
// rules", "States and transitions: Builder run"): fed the worker's messages, it says what to
// append to the turn's stream, when to write the stream's replay head, and, once the worker
// stream ended, the closing events and the record the turn leaves (status, messages, usage).
// The server does the I/O: the worker request, the cache store, the database, the events.
//
// Order at the end, which the server keeps: end() → append its events → persist record() →
// append done() ([DONE] only once the turn is stored, so a client that reads the history when
// its stream ends finds this turn).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/builder_run.hpp"
#include "platform/error.hpp"
#include "platform/replay_buffer.hpp"
#include "platform/replay_head.hpp"
#include "platform/usage.hpp"
#include "platform/worker_message.hpp"

namespace platform {

struct builder_turn_options {
  std::string message_id;  // the assistant message's id, stable per turn (a replay repeats it)
  replay_limits window;    // the stream's replay window, which sets how often a head is due
};

// What one step asks of the server. `events` are whole SSE events ("data: ...\n\n"), to be
// appended in order; they point into the turn and stay valid until its next call.
struct builder_turn_output {
  std::vector<std::string_view> events;
  std::optional<replay_head> head;  // write as the stream's replay head, after `events`
};

// How the worker stream ended.
struct builder_turn_end {
  bool stop_requested = false;           // the user (or a budget) asked to stop the run
  // A budget's stop (budget.hpp): its stopReason and sentence; empty for a person's stop.
  std::string stop_code;
  std::string stop_message;
  std::optional<std::string> failure;    // the worker stream broke or refused (its message)
  std::optional<api_error> failure_code;  // and its error code, when it had one
  bool stream_lost = false;              // the stream's store gave up: no error chunk is owed
};

// What the turn leaves in the database.
struct builder_turn_record {
  run_status status = run_status::failed;
  std::optional<std::string> messages;  // the run's UI messages with this turn's appended
  std::int64_t message_count = 0;
  bool worker_failed = false;           // no session state to keep from the worker
  bool preview_moved = false;           // a done_building build succeeded: show it
  std::string stop_reason;              // a failed turn's why, for the run (store.hpp)
  std::string stop_message;
  // What the worker said it left (its closing line); nothing when it said nothing, and the
  // server then asks for the session and the sources as before.
  std::optional<worker_message::turn_end> closing;
};

class builder_turn {
 public:
  explicit builder_turn(builder_turn_options options);
  ~builder_turn();
  builder_turn(builder_turn&&) noexcept;
  builder_turn& operator=(builder_turn&&) noexcept;

  // One worker message (a JSON line, docs/worker-messages.md).
  builder_turn_output feed(std::string_view worker_message);
  // The worker stream is over: the events that close the message (an abort chunk on a user
  // stop that came before the result, an error chunk on a failure, the finish), without [DONE].
  builder_turn_output end(const builder_turn_end& how);
  // The record after end(): `prior_messages` is the run's UI messages as the chat POST sent
  // them (`prior_count` of them).
  [[nodiscard]] builder_turn_record record(std::string_view prior_messages, std::int64_t prior_count) const;
  // After the record is stored: [DONE], when the stream gets one.
  builder_turn_output done();

  [[nodiscard]] const std::optional<run_usage>& usage() const;  // this turn's, when the worker said
  // The turn's usage so far, once after each `platform_step_usage` the worker sent: what a
  // budget is enforced on while the turn runs.
  std::optional<run_usage> take_step_usage();
  [[nodiscard]] std::size_t chunks() const;   // UI chunks streamed
  [[nodiscard]] std::size_t messages() const; // worker messages read
  [[nodiscard]] bool stopped() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// A worker refused a turn because its copy of the app's workspace is missing or differs from
// the draft: the server writes the draft in and sends the turn again (docs/operations.md,
// "Several workers").
bool needs_workspace_restore(const error& e);

}  // namespace platform
