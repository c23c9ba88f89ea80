#pragma once
// The assistant UIMessage a UI message stream builds, assembled the way the AI SDK client
// does (research/ai-sdk.md §4), so the web server persists exactly what the browser showed:
// step-start, text and reasoning parts, dynamic-tool parts with their last state. Also the
// small operations on a persisted UIMessage array that the chat routes need.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

class ui_message_assembler {
 public:
  ui_message_assembler();
  ~ui_message_assembler();
  ui_message_assembler(ui_message_assembler&&) noexcept;
  ui_message_assembler& operator=(ui_message_assembler&&) noexcept;

  // One SSE event's data (a chunk's JSON, or "[DONE]"). Chunks the client would reject are
  // skipped: the assembler never fails the turn it records.
  void feed(std::string_view event_data);

  [[nodiscard]] std::string message_id() const;
  [[nodiscard]] bool empty() const;  // no part yet
  // {"id","role":"assistant","parts":[...]} in the AI SDK's UIMessage format. Parts still
  // streaming are shown as the client would show them after a disconnect.
  [[nodiscard]] std::string message_json() const;
  // The replay head of a stream that outgrew its replay buffer (spec "Chat stream resume
  // rules" 4; replay_head.hpp): SSE events (`data: {...}\n\n` each) that bring an AI SDK
  // client from nothing to this message, with the parts still streaming left open under their
  // stream ids, so the stream's events after the ones fed here continue them.
  [[nodiscard]] std::string replay_events() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// A chat POST body's `messages`: a JSON array of UIMessages. Errors: `invalid_messages`.
result<std::size_t> count_ui_messages(std::string_view messages_json);

// `messages_json` with `message_json` appended (both already valid JSON).
result<std::string> append_ui_message(std::string_view messages_json, std::string_view message_json);

}  // namespace platform
