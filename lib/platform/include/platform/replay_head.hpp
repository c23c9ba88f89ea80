#pragma once
// The replay head of a chat stream (spec "Chat stream resume rules" 4-5, issue 15): a replay
// buffer drops its oldest events past its limits, and "replays are used only when they start at
// the beginning of the run", so a turn longer than the window could not be attached to at all.
// The stream's producer therefore keeps, beside the buffer, a head: the events [0, upto)
// folded into the few events that rebuild the same assistant message in an AI SDK client
// (ui_message_assembler::replay_events), written to the same store every half window. A viewer
// attaching at cursor 0 after the start was dropped gets the head, then the buffer from `upto`:
// the whole message, every part, then the live tail. Sans-I/O.
#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/replay_buffer.hpp"

namespace platform {

struct replay_head {
  std::uint64_t upto = 0;  // the events it stands for: sequence numbers [0, upto)
  std::string events;      // SSE events, "data: {...}\n\n" each
};

// When the producer writes a new head. Every head stays usable while the events after its
// `upto` are all retained, i.e. while they fit in the buffer's window; a head written every
// half window (by events and by bytes) keeps that true at all times, from the first drop on.
// A stream that never outgrows half its window never writes one.
class replay_head_schedule {
 public:
  explicit replay_head_schedule(replay_limits limits) : limits_(limits) {}

  // One event of `bytes` appended. True when a head of every event so far (upto = events())
  // should be written now.
  bool appended(std::size_t bytes) {
    ++events_;
    ++since_events_;
    since_bytes_ += bytes;
    if (since_events_ * 2 < limits_.max_chunks && since_bytes_ * 2 < limits_.max_bytes) return false;
    since_events_ = 0;
    since_bytes_ = 0;
    return true;
  }

  [[nodiscard]] std::uint64_t events() const { return events_; }

 private:
  replay_limits limits_;
  std::uint64_t events_ = 0;
  std::size_t since_events_ = 0;
  std::size_t since_bytes_ = 0;
};

// The read a viewer at cursor 0 gets when the buffer no longer starts at the beginning: the
// head's events as one chunk (numbered upto - 1, the last event they stand for), then `tail`,
// a read of the buffer from head.upto.
inline replay_read read_with_head(replay_head head, replay_read tail) {
  replay_read r = std::move(tail);
  if (head.upto > 0 && !head.events.empty()) {
    r.chunks.insert(r.chunks.begin(), replay_chunk{head.upto - 1, std::move(head.events)});
  }
  return r;
}

}  // namespace platform
