// The SSE parser and the stream checker on arbitrary bytes. Contract:
//  - never crash, memory bounded by max_event_bytes;
//  - the result does not depend on how the body is split (whole, byte by byte, pieces);
//  - events re-framed as `data:` lines parse back to the same events;
//  - the checker's report is the same for any split, ok exactly when it found nothing,
//    and every violation points at an event that exists (or one past the last).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/stream_check.hpp"
#include "platform/ui_stream.hpp"

namespace {

constexpr std::size_t max_event = 1u << 16;

struct parse_result {
  std::vector<std::string> events;
  bool failed = false;
  bool partial = false;
  bool operator==(const parse_result&) const = default;
};

// Piece sizes come from the input itself so each input exercises its own splits.
std::vector<std::string_view> pieces(std::string_view s, std::size_t salt) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0, i = salt; pos < s.size(); ++i) {
    std::size_t n = 1 + static_cast<unsigned char>(s[i % s.size()]) % 23;
    out.push_back(s.substr(pos, n));
    pos += n;
  }
  return out;
}

parse_result parse(const std::vector<std::string_view>& parts) {
  parse_result r;
  platform::sse_parser p(max_event);
  for (auto part : parts) p.feed(part, r.events);
  r.failed = p.failed();
  r.partial = p.has_partial_event();
  return r;
}

std::string reframe(const std::vector<std::string>& events) {
  std::string out;
  for (const auto& e : events) {
    std::size_t start = 0;
    for (;;) {
      std::size_t nl = e.find('\n', start);
      out.append("data: ").append(e, start, nl == std::string::npos ? std::string::npos : nl - start).append("\n");
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    out.append("\n");
  }
  return out;
}

platform::stream_report check(const std::vector<std::string_view>& parts) {
  platform::stream_check_options o;
  o.max_event_bytes = max_event;
  platform::stream_checker c(o);
  for (auto part : parts) c.feed(part);
  return c.finish();
}

bool same(const platform::stream_report& a, const platform::stream_report& b) {
  if (a.ok != b.ok || a.chunks != b.chunks || a.violations.size() != b.violations.size()) return false;
  for (std::size_t i = 0; i < a.violations.size(); ++i) {
    if (a.violations[i].index != b.violations[i].index || a.violations[i].code != b.violations[i].code) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  parse_result whole = parse({body});
  if (parse(pieces(body, 0)) != whole) __builtin_trap();
  if (size <= 512) {
    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < size; ++i) bytes.push_back(body.substr(i, 1));
    if (parse(bytes) != whole) __builtin_trap();
  }
  if (!whole.failed) {
    std::string again = reframe(whole.events);
    parse_result round = parse({again});
    if (round.events != whole.events || round.failed || round.partial) __builtin_trap();
  }

  platform::stream_report report = check({body});
  if (!same(report, check(pieces(body, 7)))) __builtin_trap();
  if (report.ok != report.violations.empty()) __builtin_trap();
  std::size_t events = whole.events.size();
  std::size_t dones = 0;
  for (const auto& e : whole.events) dones += e == "[DONE]";
  if (!whole.failed && report.chunks != events - dones) __builtin_trap();
  for (const auto& v : report.violations) {
    if (v.code.empty() || v.message.empty()) __builtin_trap();
    if (!whole.failed && v.index > events) __builtin_trap();
  }
  if (platform::stream_report_to_json(report).empty()) __builtin_trap();
  return 0;
}
