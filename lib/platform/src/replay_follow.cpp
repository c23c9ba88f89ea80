#include "platform/replay_follow.hpp"

#include <algorithm>
#include <utility>

#include "platform/ui_stream.hpp"

namespace platform {

using step = replay_follow_step;
using action = replay_follow_step::action;

namespace {

step ended(std::string_view tail) {
  step s;
  s.what = action::end;
  s.tail = tail;
  return s;
}

// An outage's keep-alives come this often (and no more often than the heartbeat): often enough
// that a viewer that left is noticed and the stream put back is found soon.
constexpr std::chrono::milliseconds outage_pause{200};

}  // namespace

replay_follow::replay_follow(std::uint64_t cursor, replay_follow_options options, time_point now)
    : cursor_(cursor), options_(options), last_out_(now) {}

std::chrono::milliseconds replay_follow::until_heartbeat(time_point now) const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(options_.heartbeat - (now - last_out_));
  return std::max(left, std::chrono::milliseconds(1));
}

replay_follow_step replay_follow::read(result<replay_read> r, time_point now) {
  asked_ = asked::nothing;
  bool behind = r && r->status == replay_status::cursor_ahead;
  if ((!r && is_cache_outage(r.error())) || behind) {
    if (!options_.knows_liveness) return ended({});
    if (!outage_since_) outage_since_ = now;
    if (now - *outage_since_ > options_.outage_limit) return ended(follow_interrupted_tail);
    asked_ = asked::live_in_outage;
    return {.what = action::ask_live};
  }
  outage_since_.reset();
  if (!r || r->status != replay_status::ok) return ended({});  // expired or gone
  return take(std::move(*r), now);
}

replay_follow_step replay_follow::take(replay_read r, time_point now) {
  cursor_ = r.next_cursor;
  if (!r.chunks.empty()) {
    ended_with_done_ = r.chunks.back().bytes.ends_with(sse_done_event);
    last_out_ = now;
  } else if (!r.terminal) {
    if (now - last_out_ < options_.heartbeat) return {.what = action::wait};
    if (!options_.knows_liveness) {
      last_out_ = now;
      return {.what = action::heartbeat};
    }
    asked_ = asked::live_when_idle;
    return {.what = action::ask_live};
  }
  step s;
  s.chunks = std::move(r.chunks);
  s.what = r.terminal ? action::end : action::write;
  s.without_done = r.terminal && !ended_with_done_;
  return s;
}

replay_follow_step replay_follow::live(bool still_live, time_point now) {
  asked was = std::exchange(asked_, asked::nothing);
  if (was == asked::live_in_outage) {
    if (!still_live) return ended(follow_interrupted_tail);  // what it missed is not coming
    last_out_ = now;
    return {.what = action::heartbeat, .pause = std::min(outage_pause, options_.heartbeat)};
  }
  if (was == asked::live_when_idle) {
    if (!still_live) return {.what = action::read_last};
    last_out_ = now;
    return {.what = action::heartbeat};
  }
  return {.what = action::wait};
}

replay_follow_step replay_follow::last(result<replay_read> r, time_point now) {
  // The run ended without completing this stream (its producer died and stale stream recovery
  // failed it): unless its last events arrived meanwhile, the follower is told so.
  if (r && r->status == replay_status::ok && !r->chunks.empty()) return take(std::move(*r), now);
  return ended(follow_stopped_tail);
}

void replay_follow::continue_on() { ended_with_done_ = false; }

}  // namespace platform
