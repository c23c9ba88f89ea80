// The stream checker: each invariant of docs/ui-stream.md, one good and one broken body.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/bridge.hpp"
#include "platform/stream_check.hpp"

namespace stream_check_test {

namespace fs = std::filesystem;
using platform::check_ui_stream;
using platform::stream_report;

namespace {

// An SSE body: one `data:` event per chunk, then `data: [DONE]`.
std::string body(std::initializer_list<std::string_view> chunks, bool done = true) {
  std::string out;
  for (auto c : chunks) {
    out.append("data: ").append(c).append("\n\n");
  }
  if (done) out.append("data: [DONE]\n\n");
  return out;
}

constexpr std::string_view start = R"({"type":"start","messageId":"m1"})";
constexpr std::string_view finish = R"({"type":"finish","finishReason":"stop"})";
constexpr std::string_view step = R"({"type":"start-step"})";
constexpr std::string_view end_step = R"({"type":"finish-step"})";

// A list of violation codes, printable in a failed check's message.
struct V : std::vector<std::string> {
  using vector::vector;
};

std::ostream& operator<<(std::ostream& os, const V& v) {
  os << "{";
  for (const auto& s : v) os << s << ",";
  return os << "}";
}

// The codes of a report, in order, for compact assertions.
V codes(const stream_report& r) {
  V out;
  for (const auto& v : r.violations) out.push_back(v.code);
  return out;
}

bool has(const stream_report& r, std::string_view code, std::size_t index) {
  for (const auto& v : r.violations) {
    if (v.code == code && v.index == index) return true;
  }
  return false;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("a complete text and tool stream is accepted") {
  auto r = check_ui_stream(body({
      start, step,
      R"({"type":"reasoning-start","id":"r"})", R"({"type":"reasoning-delta","id":"r","delta":"hm"})",
      R"({"type":"reasoning-end","id":"r"})",
      R"({"type":"text-start","id":"t"})", R"({"type":"text-delta","id":"t","delta":"Hi"})",
      R"({"type":"text-end","id":"t"})",
      R"({"type":"tool-input-start","toolCallId":"c","toolName":"Bash","dynamic":true})",
      R"({"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{}"})",
      R"({"type":"tool-input-available","toolCallId":"c","toolName":"Bash","input":{},"dynamic":true})",
      end_step,
      R"({"type":"tool-output-available","toolCallId":"c","output":null,"dynamic":true,"preliminary":true})",
      R"({"type":"tool-output-available","toolCallId":"c","output":"ok","dynamic":true})",
      step,
      R"({"type":"source-url","sourceId":"s","url":"https://example.org"})",
      R"({"type":"data-progress","data":{"n":1},"transient":true})",
      R"({"type":"message-metadata","messageMetadata":null})",
      R"({"type":"error","errorText":"boom"})",
      end_step, finish}));
  CHECK(codes(r) == V{});
  CHECK(r.ok);
  CHECK(r.chunks == 21);
}

TEST_CASE("an empty successful stream is only [DONE]") {
  auto r = check_ui_stream("data: [DONE]\n\n");
  CHECK(r.ok);
  CHECK(r.chunks == 0);
  CHECK(codes(check_ui_stream("")) == V{"done_missing"});
}

TEST_CASE("framing: [DONE] once and last, events terminated") {
  CHECK(codes(check_ui_stream(body({start, finish}, false))) == V{"done_missing"});
  auto twice = body({start, finish}) + "data: [DONE]\n\n";
  auto r = check_ui_stream(twice);
  CHECK(codes(r) == V{"done_repeated"});
  CHECK(r.violations[0].index == 3);
  auto after = body({start, finish}) + "data: {\"type\":\"start\",\"messageId\":\"m2\"}\n\n";
  CHECK(codes(check_ui_stream(after)) == V{"data_after_done"});
  auto unterminated = body({start, finish}, false) + "data: [DONE]\n";
  auto u = check_ui_stream(unterminated);
  CHECK(codes(u) == V{"unterminated_event", "done_missing"});
  CHECK(u.violations[0].index == 2);
  // Comments, CRLF, a BOM and a missing space after the colon are fine for every client.
  CHECK(check_ui_stream("\xEF\xBB\xBF: keep-alive\r\n\r\ndata:" + std::string(start) + "\r\n\r\n" +
                        "data: " + std::string(finish) + "\r\n\r\ndata: [DONE]\r\n\r\n")
            .ok);
}

TEST_CASE("each event is a JSON object with a known type") {
  auto r = check_ui_stream(body({start, "{nope", "[1]", R"({"kind":"x"})", R"({"type":7})",
                                 R"({"type":"text-chunk","id":"t"})", R"({"type":"reset-step"})", finish}));
  CHECK(codes(r) == V{"invalid_json", "not_object", "missing_type", "missing_type", "unknown_type", "type_not_in_v5"});
  CHECK(has(r, "invalid_json", 1));
  CHECK(has(r, "type_not_in_v5", 6));
  // An empty data line is an event whose data is "" (a JSON error on the client).
  CHECK(codes(check_ui_stream("data: " + std::string(start) + "\n\ndata:\n\ndata: " + std::string(finish) +
                              "\n\ndata: [DONE]\n\n")) == V{"invalid_json"});
}

TEST_CASE("invalid UTF-8 is reported and the chunk still checked") {
  auto r = check_ui_stream(body({start, step, "{\"type\":\"text-start\",\"id\":\"a\xff\"}",
                                 "{\"type\":\"text-end\",\"id\":\"a\xff\"}", end_step, finish}));
  CHECK(codes(r) == V{"invalid_utf8", "invalid_utf8"});
}

TEST_CASE("required fields, their types, and optional fields never null") {
  auto r = check_ui_stream(body({
      start, step,
      R"({"type":"text-start"})",                                                                  // 2 id missing
      R"({"type":"text-start","id":5})",                                                           // 3 wrong type
      R"({"type":"error"})",                                                                       // 4
      R"({"type":"tool-input-available","toolCallId":"c1","toolName":"X","dynamic":true})",         // 5 no input
      R"({"type":"tool-output-available","toolCallId":"c1","dynamic":true})",                       // 6 no output
      R"({"type":"tool-input-available","toolCallId":"c2","toolName":"X","input":1,"dynamic":true,"title":null})",  // 7
      R"({"type":"text-start","id":"t","providerMetadata":{"a":1}})",                              // 8
      R"({"type":"text-end","id":"t"})",
      R"({"type":"data-x"})",                                                                      // 10
      R"({"type":"tool-input-start","toolCallId":"d","toolName":"X","dynamic":true,"inputEncoding":"xml"})",  // 11
      R"({"type":"tool-input-available","toolCallId":"d","toolName":"X","input":{},"dynamic":true})",
      R"({"type":"text-start","id":"u","providerMetadata":null})",                                 // 13
      R"({"type":"text-end","id":"u"})",
      R"({"type":"start-step","extra":null})",  // unknown keys are ignored
      end_step, finish}));
  CHECK(codes(r) == V{"missing_field", "wrong_field_type", "missing_field", "missing_field", "missing_field",
                      "null_field", "wrong_field_type", "missing_field", "wrong_field_type", "null_field"});
  CHECK(has(r, "missing_field", 5));
  CHECK(has(r, "null_field", 7));
  CHECK(has(r, "null_field", 13));
  // `null` is a value for the unknown-typed keys.
  CHECK(check_ui_stream(body({start, step,
                              R"({"type":"tool-input-available","toolCallId":"c","toolName":"X","input":null,"dynamic":true})",
                              R"({"type":"tool-output-available","toolCallId":"c","output":null,"dynamic":true})",
                              R"({"type":"data-x","data":null})", end_step, finish}))
            .ok);
}

TEST_CASE("finishReason is from the set every client accepts") {
  for (auto reason : {"stop", "length", "content-filter", "tool-calls", "error", "other"}) {
    std::string f = std::string(R"({"type":"finish","finishReason":")") + reason + "\"}";
    CHECK(check_ui_stream(body({start, f})).ok);
  }
  CHECK(check_ui_stream(body({start, R"({"type":"finish"})"})).ok);
  CHECK(codes(check_ui_stream(body({start, R"({"type":"finish","finishReason":"unknown"})"}))) ==
        V{"unsafe_finish_reason"});
  CHECK(codes(check_ui_stream(body({start, R"({"type":"finish","finishReason":"interrupted"})"}))) ==
        V{"unsafe_finish_reason"});
}

TEST_CASE("start comes first and carries a messageId; finish ends a message") {
  CHECK(codes(check_ui_stream(body({step, end_step, finish}))) == V{"start_not_first"});
  CHECK(codes(check_ui_stream(body({R"({"type":"start"})", finish}))) == V{"start_without_message_id"});
  auto r = check_ui_stream(body({start, finish, step}));
  CHECK(codes(r) == V{"chunk_after_finish", "finish_missing"});
  CHECK(has(r, "chunk_after_finish", 2));
  CHECK(has(r, "finish_missing", 3));
  CHECK(codes(check_ui_stream(body({start, step, R"({"type":"start","messageId":"m2"})", finish}))) ==
        V{"start_before_finish"});
  // Two messages in one body (multi-turn) are fine when each is finished.
  CHECK(check_ui_stream(body({start, finish, R"({"type":"start","messageId":"m2"})", finish})).ok);
  CHECK(codes(check_ui_stream(body({start, step}))) == V{"finish_missing"});
  CHECK(codes(check_ui_stream(body({start, step}, false))) == V{"done_missing", "finish_missing"});
}

TEST_CASE("text and reasoning parts: start before delta and end, unique while open") {
  auto r = check_ui_stream(body({
      start, step,
      R"({"type":"text-delta","id":"a","delta":"x"})",  // 2
      R"({"type":"text-start","id":"a"})",
      R"({"type":"text-start","id":"a"})",              // 4 duplicate open id
      R"({"type":"text-end","id":"a"})",
      R"({"type":"text-end","id":"a"})",                // 6 already ended
      R"({"type":"text-start","id":"a"})",              // reuse after end is fine
      R"({"type":"text-end","id":"a"})",
      R"({"type":"reasoning-end","id":"a"})",           // 9 text id is not a reasoning id
      R"({"type":"reasoning-start","id":"r"})",
      R"({"type":"reasoning-delta","id":"r","delta":"."})",
      R"({"type":"reasoning-end","id":"r"})",
      end_step, finish}));
  CHECK(codes(r) == V{"delta_without_start", "duplicate_open_id", "end_without_start", "end_without_start"});
  CHECK(has(r, "delta_without_start", 2));
  CHECK(has(r, "duplicate_open_id", 4));
  CHECK(has(r, "end_without_start", 6));
  CHECK(has(r, "end_without_start", 9));
}

TEST_CASE("parts are closed before finish-step and finish (ai 5/6 drop them at finish-step)") {
  auto r = check_ui_stream(body({start, step, R"({"type":"text-start","id":"t"})", end_step,
                                 R"({"type":"text-delta","id":"t","delta":"late"})", step,
                                 R"({"type":"reasoning-start","id":"r"})", finish}));
  CHECK(codes(r) == V{"part_open_at_finish_step", "delta_without_start", "part_open_at_finish"});
  CHECK(has(r, "part_open_at_finish_step", 3));
  CHECK(has(r, "part_open_at_finish", 7));
}

TEST_CASE("tool calls: dynamic everywhere, deltas only while streaming, outputs only for known calls") {
  auto r = check_ui_stream(body({
      start, step,
      R"({"type":"tool-input-start","toolCallId":"c","toolName":"X"})",                              // 2 dynamic missing
      R"({"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{"})",                         // fine, no dynamic needed
      R"({"type":"tool-input-start","toolCallId":"c","toolName":"X","dynamic":true})",               // 4 duplicate open
      R"({"type":"tool-input-available","toolCallId":"c","toolName":"X","input":{},"dynamic":true})",
      R"({"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"}"})",                         // 6 not streaming
      R"({"type":"tool-input-delta","toolCallId":"z","inputTextDelta":"}"})",                         // 7 unknown
      R"({"type":"tool-output-available","toolCallId":"c","output":1,"dynamic":false})",             // 8 dynamic false
      R"({"type":"tool-output-error","toolCallId":"q","errorText":"e","dynamic":true})",             // 9 unknown call
      R"({"type":"tool-input-available","toolCallId":"c","toolName":"X","input":{},"dynamic":true})",// 10 after output
      R"({"type":"tool-input-start","toolCallId":"c","toolName":"X","dynamic":true})",               // 11 restarted
      end_step, finish}));
  CHECK(codes(r) == V{"dynamic_missing", "duplicate_open_id", "tool_delta_not_streaming", "tool_delta_without_start",
                      "dynamic_missing", "unknown_tool_call", "tool_input_after_output", "tool_call_restarted",
                      "tool_input_open_at_finish"});
  CHECK(has(r, "dynamic_missing", 2));
  CHECK(has(r, "tool_delta_not_streaming", 6));
  CHECK(has(r, "unknown_tool_call", 9));
  CHECK(has(r, "tool_input_open_at_finish", 13));
}

TEST_CASE("a wrongly typed dynamic flag is reported, not thrown") {
  auto r = check_ui_stream(body({start, step,
                                 R"({"type":"tool-input-available","toolCallId":"c","toolName":"X","input":{},"dynamic":"yes"})",
                                 end_step, finish}));
  CHECK(codes(r) == V{"wrong_field_type", "dynamic_missing"});
}

TEST_CASE("a tool-input-error and a tool-output-error resolve a call") {
  CHECK(check_ui_stream(body({start, step,
                              R"({"type":"tool-input-error","toolCallId":"c","toolName":"X","input":"{","errorText":"bad","dynamic":true})",
                              R"({"type":"tool-input-available","toolCallId":"d","toolName":"X","input":{},"dynamic":true})",
                              end_step,
                              R"({"type":"tool-output-error","toolCallId":"d","errorText":"denied","dynamic":true})",
                              finish}))
            .ok);
}

TEST_CASE("tool calls do not carry over to the next message") {
  auto r = check_ui_stream(body({start, step,
                                 R"({"type":"tool-input-available","toolCallId":"c","toolName":"X","input":{},"dynamic":true})",
                                 end_step, finish, R"({"type":"start","messageId":"m2"})",
                                 R"({"type":"tool-output-available","toolCallId":"c","output":1,"dynamic":true})", finish}));
  CHECK(codes(r) == V{"unknown_tool_call"});
}

TEST_CASE("feeding in any split gives the same report") {
  std::string b = body({start, step, R"({"type":"text-start","id":"t"})", R"({"type":"text-delta","id":"t","delta":"é"})",
                        end_step, finish});
  auto whole = check_ui_stream(b);
  CHECK(codes(whole) == V{"part_open_at_finish_step"});
  for (std::size_t cut = 0; cut <= b.size(); ++cut) {
    platform::stream_checker c;
    c.feed(std::string_view(b).substr(0, cut));
    c.feed(std::string_view(b).substr(cut));
    auto r = c.finish();
    REQUIRE(codes(r) == codes(whole));
    CHECK(r.violations[0].index == whole.violations[0].index);
  }
}

TEST_CASE("feed_event takes unframed events; violations are visible before finish") {
  platform::stream_checker c;
  c.feed_event(start);
  c.feed_event(R"({"type":"text-delta","id":"t","delta":"x"})");
  CHECK(c.violations().size() == 1);
  CHECK(c.chunks() == 2);
  c.feed_event(finish);
  c.feed_event("[DONE]");
  auto r = c.finish();
  CHECK(codes(r) == V{"delta_without_start"});
  c.feed_event("[DONE]");  // ignored after finish
  CHECK(codes(c.finish()) == V{"delta_without_start"});
}

TEST_CASE("an oversized event stops checking with a violation") {
  platform::stream_check_options o;
  o.max_event_bytes = 64;
  auto r = check_ui_stream(body({start, R"({"type":"data-x","data":")" + std::string(100, 'a') + "\"}", finish}), o);
  CHECK(codes(r).front() == "event_too_large");
  CHECK_FALSE(r.ok);
}

TEST_CASE("the number of recorded violations is bounded") {
  platform::stream_check_options o;
  o.max_violations = 3;
  std::string b;
  for (int i = 0; i < 50; ++i) b += "data: {}\n\n";
  auto r = check_ui_stream(b, o);
  CHECK(r.violations.size() == 3);
  CHECK(r.chunks == 50);
  CHECK_FALSE(r.ok);
}

TEST_CASE("report JSON has ok, chunks and violations with index, code, message") {
  auto r = check_ui_stream(body({start, R"({"type":"text-end","id":"t"})", finish}));
  auto j = nlohmann::json::parse(platform::stream_report_to_json(r));
  CHECK(j["ok"] == false);
  CHECK(j["chunks"] == 3);
  REQUIRE(j["violations"].size() == 1);
  CHECK(j["violations"][0]["index"] == 1);
  CHECK(j["violations"][0]["code"] == "end_without_start");
  CHECK(j["violations"][0]["message"].get<std::string>().find("\"t\"") != std::string::npos);
  CHECK(platform::stream_report_to_json(check_ui_stream("data: [DONE]\n\n")) ==
        R"({"ok":true,"chunks":0,"violations":[]})");
}

TEST_CASE("every golden SSE body passes the checker") {
  fs::path root = fs::path(PLATFORM_TEST_DATA) / ".." / "golden";
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".sse") continue;
    CAPTURE(e.path().string());
    auto r = check_ui_stream(slurp(e.path()));
    CHECK(platform::stream_report_to_json(r) == R"({"ok":true,"chunks":)" + std::to_string(r.chunks) +
                                                    R"(,"violations":[]})");
    ++n;
  }
  CHECK(n >= 17);
}

TEST_CASE("what the bridge writes for a failing worker passes the checker") {
  platform::bridge b;
  std::string out;
  b.feed_message(R"({"type":"system","subtype":"init","session_id":"s"})", out);
  b.fail("worker connection lost", out);
  b.finish(out);
  auto r = check_ui_stream(out);
  CHECK(codes(r) == V{});
}

// tests/js/samples are judged by the AI SDK itself (tests/js/check-ui-stream.mjs): whatever
// any supported client rejects, the checker must reject too.
TEST_CASE("the checker rejects every sample an AI SDK major rejects and accepts the good ones") {
  fs::path dir = fs::path(PLATFORM_TEST_DATA) / ".." / "js" / "samples";
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (e.path().extension() != ".sse") continue;
    CAPTURE(name);
    auto r = check_ui_stream(slurp(e.path()));
    if (name.rfind("reject-", 0) == 0) {
      CHECK_FALSE(r.ok);
    } else {
      CHECK(codes(r) == V{});
    }
    ++n;
  }
  CHECK(n >= 15);
}

}  // namespace stream_check_test
