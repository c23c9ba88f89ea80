// The bridge on arbitrary worker bytes (runtime-a message form, JSON lines). Contract:
//  - never crash;
//  - the SSE output does not depend on how the input is split, nor on whether a line was read
//    by the fast reader (worker_line.hpp) or parsed: a space after each line's first `{`
//    keeps the JSON and sends every line to the parser;
//  - whatever the worker sends, the output is a valid UI message stream: the stream checker
//    finds no violation (docs/ui-stream.md, "Invariants"), and the bridge's own chunk count
//    matches what the checker counted.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "platform/bridge.hpp"
#include "platform/stream_check.hpp"

namespace {

std::string translate_in_pieces(std::string_view input, std::size_t salt, platform::bridge_outcome& outcome) {
  platform::bridge b;
  std::string out;
  for (std::size_t pos = 0, i = salt; pos < input.size(); ++i) {
    std::size_t n = 1 + static_cast<unsigned char>(input[i % input.size()]) % 97;
    b.feed(input.substr(pos, n), out);
    pos += n;
  }
  b.finish(out);
  outcome = b.outcome();
  return out;
}

std::string spaced(std::string_view input) {
  std::string out;
  out.reserve(input.size() + input.size() / 16);
  bool line_start = true;
  for (char c : input) {
    out += c;
    if (line_start && c == '{') out += ' ';
    line_start = c == '\n';
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  platform::bridge whole_bridge;
  std::string whole;
  whole_bridge.feed(input, whole);
  whole_bridge.finish(whole);

  platform::bridge_outcome split_outcome;
  if (translate_in_pieces(input, 3, split_outcome) != whole) __builtin_trap();
  platform::bridge parsed_bridge;
  std::string parsed;
  parsed_bridge.feed(spaced(input), parsed);
  parsed_bridge.finish(parsed);
  if (parsed != whole) {
    std::fprintf(stderr, "read and parsed lines differ\n--- read ---\n%s\n--- parsed ---\n%s\n", whole.c_str(), parsed.c_str());
    __builtin_trap();
  }

  auto report = platform::check_ui_stream(whole);
  if (!report.ok) {
    std::fprintf(stderr, "bridge output breaks the stream rules: %s\n--- output ---\n%s\n",
                 platform::stream_report_to_json(report).c_str(), whole.c_str());
    __builtin_trap();
  }
  if (report.chunks != whole_bridge.outcome().chunks) __builtin_trap();
  return 0;
}
