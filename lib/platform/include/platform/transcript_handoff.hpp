#pragma once
// The neutral transcript handoff (spec "Limits": "The neutral transcript handoff is bounded";
// "Builder run": runtimeSessionStates with the count of persisted messages each native session
// covers). When the chosen runtime has no native session covering the conversation (the user
// switched runtime, or the session was lost), its turn starts with a compact transcript of the
// persisted UI messages the session does not cover, so the model still knows what was said and
// done. Text parts verbatim (each bounded), tool calls as one line each, reasoning left out; the
// newest messages are kept when the whole is too long.
#include <cstddef>
#include <string>
#include <string_view>

namespace platform {

struct handoff_limits {
  std::size_t max_bytes = 24 * 1024;         // the whole transcript
  std::size_t max_text_bytes = 4 * 1024;     // one text part
  std::size_t max_tool_bytes = 240;          // one tool call's input or output summary
};

// The UI messages [from, to) of `messages_json` (an AI SDK UIMessage array) as transcript text;
// empty when there is nothing to hand over or the array cannot be read.
std::string neutral_transcript(std::string_view messages_json, std::size_t from, std::size_t to,
                               const handoff_limits& limits = {});

// How many of a turn's `earlier` persisted messages (all but the new user message) the runtime's
// native session already covers, so that the transcript hands over only the rest:
// - a session the web sent (its runtimeSessionStates) covers what the web says it covers
//   (`web_says`, clamped to [0, earlier]; all of them when it does not say);
// - this worker's own session of the run covers them all (it ran those turns);
// - no session covers none.
enum class session_source : unsigned char { none, web, worker };
std::size_t messages_covered(session_source from, std::size_t earlier, long long web_says);

// The prompt a runtime gets: the transcript (when any) framed as the conversation so far, then
// the user's request.
std::string prompt_with_handoff(std::string_view transcript, std::string_view prompt);

}  // namespace platform
