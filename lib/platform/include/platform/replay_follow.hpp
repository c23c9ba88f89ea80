#pragma once
// Following one stream's replay buffer to its end (spec "Chat stream resume rules" 4-5, and
// "Viewing is separate from running"): the rules every follower keeps, the per-connection one
// of an app agent run's viewer and the viewer hub's one per stream for all of a builder turn's
// viewers. Fed each read of the buffer and the time, it says what to write: events, a
// keep-alive, nothing yet, or the end with its tail. It asks for the two things that cost a
// query only when a rule needs them: whether the run still streams this stream (when idle for
// a heartbeat, and through a store outage), and one last read once it does not. Sans-I/O: the
// caller reads, asks, sleeps and writes.
//
// The rules:
//  - A stream its store cannot reach, or that the store lost in a restart (its producer puts it
//    back), or that is briefly behind the follower's cursor while being put back, is waited out
//    with keep-alives while the run is live, for at most `outage_limit`; then the follower is
//    told the live stream was interrupted.
//  - Idle for `heartbeat`: a keep-alive (it also notices a viewer that left), unless the run no
//    longer streams this stream: then the events that arrived meanwhile, or the follower is told
//    the run stopped before its stream finished.
//  - A stream that expired or vanished ends the body without a word: the client reloads the
//    persisted chat.
//  - A stream that ends without its [DONE] (its producer stopped before the run did) may be
//    continued on another stream carrying the same events, at the same cursor.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/error.hpp"
#include "platform/replay_buffer.hpp"

namespace platform {

// What the follower is told when its stream cannot go on: an error event, then [DONE].
inline constexpr std::string_view follow_interrupted_tail =
    "data: {\"type\":\"error\",\"errorText\":\"The live stream was interrupted: the cache store stayed unreachable.\"}\n\n"
    "data: [DONE]\n\n";
inline constexpr std::string_view follow_stopped_tail =
    "data: {\"type\":\"error\",\"errorText\":\"The run stopped before its stream finished.\"}\n\n"
    "data: [DONE]\n\n";

// A store that cannot be reached, or that restarted without the stream (its producer puts it
// back): a follower waits both out, unlike a stream that ended or expired.
inline bool is_cache_outage(const error& e) {
  return is(e, api_error::cache_unavailable) || is(e, api_error::replay_not_found);
}

struct replay_follow_options {
  std::chrono::milliseconds heartbeat{15000};
  std::chrono::milliseconds outage_limit{30000};
  // False for a follower that cannot ask whether its run is live: an idle stream gets
  // keep-alives only, and an outage ends its body silently.
  bool knows_liveness = true;
};

struct replay_follow_step {
  enum class action : unsigned char {
    write,      // write `chunks`, then read on
    heartbeat,  // write a keep-alive after `pause`, then read on
    wait,       // nothing to write: read on
    ask_live,   // answer with live(): does the run still stream this stream?
    read_last,  // read the buffer once more from cursor() and answer with last()
    end,        // write `chunks`, then `tail` (an error event and [DONE], or nothing), and end
  };
  action what = action::wait;
  std::vector<replay_chunk> chunks;
  std::string_view tail;
  std::chrono::milliseconds pause{0};
  // end: the stream's last event was not [DONE] and no tail was owed; the caller may go on
  // with another stream of the same events (continue_on) at cursor().
  bool without_done = false;
};

class replay_follow {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  replay_follow(std::uint64_t cursor, replay_follow_options options, time_point now);

  // A read of the buffer from cursor().
  replay_follow_step read(result<replay_read> r, time_point now);
  // The answer to ask_live.
  replay_follow_step live(bool still_live, time_point now);
  // The answer to read_last.
  replay_follow_step last(result<replay_read> r, time_point now);
  // After an end without [DONE]: go on reading another stream of the same events at cursor().
  void continue_on();

  [[nodiscard]] std::uint64_t cursor() const { return cursor_; }
  // How long a read may wait for an append before the next keep-alive is due.
  [[nodiscard]] std::chrono::milliseconds until_heartbeat(time_point now) const;

 private:
  enum class asked : unsigned char { nothing, live_in_outage, live_when_idle };
  replay_follow_step take(replay_read r, time_point now);

  std::uint64_t cursor_;
  replay_follow_options options_;
  time_point last_out_;
  std::optional<time_point> outage_since_;
  asked asked_ = asked::nothing;
  bool ended_with_done_ = false;
};

}  // namespace platform
