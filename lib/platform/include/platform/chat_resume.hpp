#pragma once
// The chat stream resume rules (spec "Chat stream resume rules", "Errors" 2) as decisions: the
// web server's resume route asks these at each step and does only the waiting and reading.
#include <cstdint>

#include "platform/replay_buffer.hpp"
#include "platform/store.hpp"

namespace platform {

// Rule 2: a run that streams but has no attachable stream yet (its turn is starting) is worth a
// short wait for run.stream_ready, or any end, before the answer.
inline bool resume_waits(const run_stream_state& run) {
  return run.status == run_status::streaming && !run.active_stream_id;
}

// Only a streaming run with an active stream is attached to; anything else is a 204 (a
// completed or failed run, or one still not attachable after the wait).
inline bool resume_attaches(const run_stream_state& run) {
  return run.status == run_status::streaming && run.active_stream_id.has_value();
}

// What the first read of the replay buffer decides.
enum class resume_read : unsigned char {
  stream,     // send it: the stream starts with it
  from_head,  // read again from the replay head (the buffer dropped the turn's start)
  no_content, // 204: the replay would show the viewer a message with a hole in it
};

// A replay is used only when it starts at the beginning of the run, or still holds the cursor.
// A viewer from the beginning (cursor 0) whose buffer dropped the turn's start is answered from
// the replay head, which holds the turn's start in one event.
inline resume_read after_first_read(replay_status status, std::uint64_t cursor) {
  if (status == replay_status::ok) return resume_read::stream;
  if (status == replay_status::cursor_expired && cursor == 0) return resume_read::from_head;
  return resume_read::no_content;
}

}  // namespace platform
