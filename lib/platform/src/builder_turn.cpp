#include "platform/builder_turn.hpp"

#include <utility>
#include "platform/api_error.hpp"

#include "platform/bridge.hpp"
#include "platform/runtime_readiness.hpp"
#include "platform/ui_message.hpp"
#include "platform/ui_stream.hpp"
#include "platform/user_stop.hpp"
#include "platform/worker_message.hpp"

namespace platform {

struct builder_turn::impl {
  explicit impl(const builder_turn_options& o)
      : b(bridge_options{o.message_id}), heads(o.window) {}

  bridge b;
  ui_message_assembler assembled;
  replay_head_schedule heads;
  std::optional<run_usage> usage;
  std::optional<run_usage> step_usage;
  std::optional<worker_message::turn_end> closing;
  // Until the worker says otherwise, a turn may have written files (so it needs done_building).
  bool wrote_files = true;
  bool worker_failed = false;
  bool done_marker = false;
  std::string stop_reason;
  std::string stop_message;
  std::string out;  // the bridge's SSE for the current step

  // Every whole event of `out`: one stream entry each. Every half window the message so far
  // becomes the stream's replay head, for viewers that come after the buffer dropped the
  // turn's start.
  builder_turn_output split() {
    builder_turn_output step;
    std::size_t pos = 0;
    for (;;) {
      std::size_t end = out.find("\n\n", pos);
      if (end == std::string::npos) break;
      std::string_view event(out.data() + pos, end + 2 - pos);
      step.events.push_back(event);
      assembled.feed(event.substr(6, event.size() - 8));  // "data: " ... "\n\n"
      if (heads.appended(event.size())) step.head = replay_head{heads.events(), assembled.replay_events()};
      pos = end + 2;
    }
    return step;
  }
};

builder_turn::builder_turn(builder_turn_options options) : impl_(std::make_unique<impl>(options)) {}
builder_turn::~builder_turn() = default;
builder_turn::builder_turn(builder_turn&&) noexcept = default;
builder_turn& builder_turn::operator=(builder_turn&&) noexcept = default;

builder_turn_output builder_turn::feed(std::string_view worker_message) {
  impl& t = *impl_;
  t.out.clear();
  if (worker_message == "[DONE]") return {};  // the bridge writes the turn's own
  if (auto step = worker_message::step_usage_of(worker_message)) {
    t.step_usage = std::move(step);
    return {};  // for the budget only: nothing of it is the message
  }
  if (auto u = worker_message::turn_usage(worker_message)) t.usage = u;
  if (auto end = worker_message::turn_end_of(worker_message)) {
    t.wrote_files = end->workspace_changed;
    t.closing = std::move(end);
    return {};  // for the server only: nothing of it is the message
  }
  t.b.feed_message(worker_message, t.out);
  return t.split();
}

builder_turn_output builder_turn::end(const builder_turn_end& how) {
  impl& t = *impl_;
  t.out.clear();
  bool result_seen = t.b.outcome().result_seen;
  // A stream that broke after the turn's result lost nothing the viewer needs.
  t.worker_failed = how.failure.has_value() && !result_seen;
  // Why a failed turn ended, for the run to keep beyond a reload: a person's stop, or a
  // runtime the worker refused for what it lacks (its sentence says what).
  if (how.stop_requested) {
    t.stop_reason = how.stop_code.empty() ? std::string(user_stop_code) : how.stop_code;
    t.stop_message = how.stop_message;
  } else if (t.worker_failed && how.failure_code == api_error::runtime_not_ready) {
    t.stop_reason = runtime_not_ready_code;
    t.stop_message = *how.failure;
  }
  if (how.stop_requested && !result_seen) t.b.abort(how.stop_message.empty() ? user_stop_reason : std::string_view(how.stop_message), t.out);
  else if (t.worker_failed && !how.stream_lost) t.b.fail(*how.failure, t.out);
  t.b.finish(t.out);
  std::string_view o(t.out);
  t.done_marker = o.size() >= sse_done_event.size() && o.substr(o.size() - sse_done_event.size()) == sse_done_event;
  if (t.done_marker) t.out.resize(t.out.size() - sse_done_event.size());
  return t.split();
}

builder_turn_record builder_turn::record(std::string_view prior_messages, std::int64_t prior_count) const {
  const impl& t = *impl_;
  const bridge_outcome& o = t.b.outcome();
  builder_turn_record r;
  r.message_count = prior_count;
  if (!t.assembled.empty()) {
    if (auto all = append_ui_message(prior_messages, t.assembled.message_json())) {
      r.messages = std::move(*all);
      ++r.message_count;
    }
  }
  r.status = turn_end_status({o.approval_stop, o.done_building_succeeded,
                              o.is_error || t.worker_failed || !o.result_seen || o.stopped, false, t.wrote_files});
  r.worker_failed = t.worker_failed;
  r.closing = t.closing;
  r.preview_moved = o.done_building_succeeded;
  if (r.status == run_status::failed) {
    r.stop_reason = t.stop_reason;
    r.stop_message = t.stop_message;
  }
  return r;
}

builder_turn_output builder_turn::done() {
  builder_turn_output step;
  if (impl_->done_marker) step.events.push_back(sse_done_event);
  impl_->done_marker = false;
  return step;
}

const std::optional<run_usage>& builder_turn::usage() const { return impl_->usage; }
std::optional<run_usage> builder_turn::take_step_usage() { return std::exchange(impl_->step_usage, std::nullopt); }
std::size_t builder_turn::chunks() const { return impl_->b.outcome().chunks; }
std::size_t builder_turn::messages() const { return impl_->b.outcome().lines; }
bool builder_turn::stopped() const { return impl_->b.outcome().stopped; }

bool needs_workspace_restore(const error& e) { return is(e, api_error::workspace_missing) || is(e, api_error::workspace_stale); }

}  // namespace platform
