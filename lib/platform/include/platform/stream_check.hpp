#pragma once
// The stream invariants checker: does an SSE body follow the UI message stream rules that
// every supported AI SDK client (ai 5, 6 and 7) assembles without error? It models the
// oldest client's behaviour (docs/ui-stream.md, "Invariants"), so a body that passes here is
// accepted by all of them. Sans-I/O: feed bytes in any split, or already-unframed events.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace platform {

// One broken rule. `index` is the 0-based position of the SSE data event that broke it
// (`data: [DONE]` counts as an event); rules checked at the end of the body (missing
// `[DONE]`, unterminated event, no `finish`) use the number of events seen, one past the last.
struct stream_violation {
  std::size_t index = 0;
  std::string code;     // stable snake_case, listed in docs/ui-stream.md
  std::string message;  // human readable, names the chunk type and id
};

struct stream_report {
  bool ok = true;
  std::size_t chunks = 0;  // UI message chunks (data events other than [DONE])
  std::vector<stream_violation> violations;
};

// `{"ok":bool,"chunks":N,"violations":[{"index","code","message"}]}`.
std::string stream_report_to_json(const stream_report& report);

struct stream_check_options {
  // Longest accepted SSE event; a longer one is a violation and ends checking (bounded memory).
  std::size_t max_event_bytes = 16u << 20;
  // Stop recording after this many violations (a broken stream repeats the same fault).
  std::size_t max_violations = 1000;
};

class stream_checker {
 public:
  explicit stream_checker(stream_check_options options = {});
  ~stream_checker();
  stream_checker(stream_checker&&) noexcept;
  stream_checker& operator=(stream_checker&&) noexcept;

  // SSE body bytes, any split.
  void feed(std::string_view sse_bytes);
  // The data of one complete event (what an SSE parser dispatches), e.g. `[DONE]` or a JSON
  // object. Use either feed() or feed_event() on one checker, not both.
  void feed_event(std::string_view data);
  // End of the body: applies the end-of-stream rules once and returns the report. Further
  // feeding after finish() is ignored.
  stream_report finish();

  // The violations found so far (before finish(): the rules that need no end of input).
  [[nodiscard]] const std::vector<stream_violation>& violations() const;
  [[nodiscard]] std::size_t chunks() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Checks a whole SSE body.
stream_report check_ui_stream(std::string_view sse_body, const stream_check_options& options = {});

}  // namespace platform
