// The runtime-b normalizer (codex app-server JSON-RPC lines) and the bridge after it, on
// arbitrary bytes. Contract:
//  - never crash;
//  - every worker message the normalizer writes is one line holding a JSON object with a
//    string "type", and the messages do not depend on how the input is split;
//  - the bridge's output is a well-formed SSE body: every event is `data: <JSON object with
//    a "type">` except the last, which is `data: [DONE]`, and nothing follows it;
//  - and it follows the UI message stream rules (the stream checker finds no violation).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/bridge.hpp"
#include "platform/runtime_normalizer.hpp"
#include "platform/stream_check.hpp"
#include "platform/ui_stream.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Feeds the input in pieces whose sizes come from the input itself.
std::string normalize(std::string_view input, std::size_t salt) {
  auto n = platform::make_runtime_normalizer("runtime-b");
  check(n.has_value());
  std::string out;
  if (salt == 0) {
    (*n)->feed(input, out);
  } else {
    for (std::size_t pos = 0, i = salt; pos < input.size(); ++i) {
      std::size_t len = 1 + static_cast<unsigned char>(input[i % input.size()]) % 61;
      (*n)->feed(input.substr(pos, len), out);
      pos += len;
    }
  }
  (*n)->finish(out);
  return out;
}

bool is_typed_object(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);  // discarded (not an object) when invalid
  return j.is_object() && j.contains("type") && j["type"].is_string();
}

void check_worker_messages(std::string_view messages) {
  check(messages.empty() || messages.back() == '\n');
  while (!messages.empty()) {
    std::size_t nl = messages.find('\n');
    check(is_typed_object(messages.substr(0, nl)));
    messages.remove_prefix(nl + 1);
  }
}

void check_sse(std::string_view sse) {
  constexpr std::string_view done = "data: [DONE]\n\n";
  check(sse.size() >= done.size() && sse.substr(sse.size() - done.size()) == done);
  platform::sse_parser parser;
  std::vector<std::string> events;
  check(parser.feed(sse, events));
  check(!parser.has_partial_event());
  check(!events.empty() && events.back() == "[DONE]");
  for (std::size_t i = 0; i + 1 < events.size(); ++i) check(is_typed_object(events[i]));
  // Framing: one `data:` line per event, so the body splits back into exactly these events.
  std::size_t blank_lines = 0;
  for (std::size_t p = sse.find("\n\n"); p != std::string_view::npos; p = sse.find("\n\n", p + 2)) ++blank_lines;
  check(blank_lines == events.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string messages = normalize(input, 0);
  check_worker_messages(messages);
  check(normalize(input, 5) == messages);

  platform::bridge b;
  std::string sse;
  b.feed(messages, sse);
  b.finish(sse);
  check_sse(sse);
  auto report = platform::check_ui_stream(sse);
  if (!report.ok) {
    std::fprintf(stderr, "stream rules broken: %s\n--- worker messages ---\n%s\n--- output ---\n%s\n",
                 platform::stream_report_to_json(report).c_str(), messages.c_str(), sse.c_str());
    __builtin_trap();
  }
  return 0;
}
