#pragma once
// The AI SDK UI message stream on the wire: `data: <json>\n\n` per chunk, `data: [DONE]\n\n`
// last (hop 2 of the spec), and an incremental SSE parser for reading such bodies back (the
// web server's worker hop, tests, the stream checker).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace platform {

inline constexpr std::string_view sse_done_event = "data: [DONE]\n\n";
inline constexpr std::string_view sse_heartbeat = ": keep-alive\n\n";

// Headers of every UI message stream response. The spec's header plus the AI SDK's own.
inline constexpr std::string_view ui_stream_header_spec = "x-sdk-ai-ui-message-stream";
inline constexpr std::string_view ui_stream_header_ai_sdk = "x-vercel-ai-ui-message-stream";
inline constexpr std::string_view ui_stream_header_value = "v1";

inline void append_sse_data(std::string& out, std::string_view json) {
  out.append("data: ");
  out.append(json);
  out.append("\n\n");
}

// Incremental parser of `text/event-stream` bodies: lines end in LF, CR or CRLF; `data:`
// lines of one event are joined by LF; comments and other fields are ignored; an event is
// dispatched at a blank line. A leading BOM is skipped. Memory is bounded by `max_event_bytes`:
// a longer event puts the parser in a failed state instead of growing without limit.
class sse_parser {
 public:
  explicit sse_parser(std::size_t max_event_bytes = 16u << 20) : max_event_(max_event_bytes) {}

  // Appends the data of each completed event to `events`. Returns false once failed.
  bool feed(std::string_view bytes, std::vector<std::string>& events);

  [[nodiscard]] bool failed() const { return failed_; }
  // True when input ended inside an event (bytes after the last blank line).
  [[nodiscard]] bool has_partial_event() const { return !line_.empty() || has_data_; }

 private:
  void consume(char c, std::vector<std::string>& events);
  void end_line(std::vector<std::string>& events);

  std::size_t max_event_;
  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;
  std::size_t bom_pos_ = 0;  // bytes of a leading BOM matched so far (3 = decided)
  bool failed_ = false;
};

}  // namespace platform
