// The builder turn state machine on synthetic worker messages: what it streams, when it writes
// a replay head, how the stream ends, and the record the turn leaves.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "platform/builder_turn.hpp"
#include "platform/ui_stream.hpp"
#include "platform/user_stop.hpp"
#include "platform/worker_message.hpp"

namespace builder_turn_test {

namespace wm = platform::worker_message;
using nlohmann::json;
using platform::builder_turn;

namespace {

std::vector<std::string> lines_of(const std::string& written) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < written.size()) {
    auto nl = written.find('\n', pos);
    out.push_back(written.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::string text_turn(std::string_view text) {
  std::string t;
  wm::message_start(t, "msg_1", "model-x");
  wm::text_block_start(t, 0);
  wm::text_delta(t, 0, text);
  wm::block_stop(t, 0);
  wm::message_stop(t);
  return t;
}

std::string result_line() {
  std::string t;
  wm::result(t, {false, "done", "s1", "end_turn", 1, 0.25, R"({"input_tokens":3})", ""});
  return t;
}

struct streamed {
  std::vector<json> chunks;  // every event's data, [DONE] as the string "[DONE]"
  std::vector<platform::replay_head> heads;
};

void take(streamed& s, const platform::builder_turn_output& step) {
  for (auto e : step.events) {
    REQUIRE(e.substr(0, 6) == "data: ");
    REQUIRE(e.substr(e.size() - 2) == "\n\n");
    auto data = e.substr(6, e.size() - 8);
    s.chunks.push_back(data == "[DONE]" ? json("[DONE]") : json::parse(data));
  }
  if (step.head) s.heads.push_back(*step.head);
}

builder_turn make_turn(std::size_t window_chunks = 65536) {
  platform::builder_turn_options o;
  o.message_id = "msg-run-1";
  o.window.max_chunks = window_chunks;
  return builder_turn(o);
}

streamed feed_all(builder_turn& t, const std::string& written) {
  streamed s;
  for (const auto& line : lines_of(written)) take(s, t.feed(line));
  return s;
}

std::vector<std::string> types(const streamed& s) {
  std::vector<std::string> out;
  for (const auto& c : s.chunks) out.push_back(c.is_string() ? c.get<std::string>() : c["type"].get<std::string>());
  return out;
}

bool has_type(const streamed& s, std::string_view type) {
  auto t = types(s);
  return std::find(t.begin(), t.end(), type) != t.end();
}

// The events end() gives after `text` streamed, the worker stream having ended as `how` says.
streamed ended(builder_turn& t, std::string_view text, const platform::builder_turn_end& how) {
  auto s = feed_all(t, text_turn(text));
  take(s, t.end(how));
  return s;
}

}  // namespace

TEST_CASE("a turn that only talked: its events, [DONE] only after the record, the message appended, completed") {
  auto t = make_turn();
  std::string w = text_turn("Hello");
  w += result_line();
  wm::turn_end_line(w, {.workspace_changed = false, .session_state_json = R"({"runtimeId":"runtime-a","sessionId":"s1"})"});
  auto s = feed_all(t, w);
  take(s, t.feed("[DONE]"));  // the worker's own end is not the stream's
  take(s, t.end({}));
  CHECK(types(s).back() == "finish");
  CHECK(s.chunks.front()["messageId"] == "msg-run-1");

  auto r = t.record(R"([{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}])", 1);
  CHECK(r.status == platform::run_status::completed);
  CHECK(r.message_count == 2);
  REQUIRE(r.messages);
  auto messages = json::parse(*r.messages);
  REQUIRE(messages.size() == 2);
  CHECK(messages[1]["id"] == "msg-run-1");
  CHECK(messages[1]["parts"].dump().find("Hello") != std::string::npos);
  CHECK_FALSE(r.worker_failed);
  CHECK_FALSE(r.preview_moved);
  // The closing line is the server's, never the stream's.
  for (const auto& c : s.chunks) CHECK(c.dump().find("runtimeId") == std::string::npos);
  REQUIRE(r.closing);
  CHECK_FALSE(r.closing->workspace_changed);
  CHECK(json::parse(r.closing->session_state_json)["sessionId"] == "s1");

  take(s, t.done());
  CHECK(types(s).back() == "[DONE]");
  CHECK(t.done().events.empty());  // once
}

TEST_CASE("a turn that may have written files but neither built nor presented fails") {
  auto wrote = make_turn();
  feed_all(wrote, text_turn("edited") + result_line());  // no closing line: it may have written
  wrote.end({});
  CHECK(wrote.record("[]", 0).status == platform::run_status::failed);
  CHECK_FALSE(wrote.record("[]", 0).closing);  // the server asks the worker, as before the closing line
}

TEST_CASE("a worker failure before the result: an error chunk with its message, the run fails") {
  auto t = make_turn();
  platform::builder_turn_end how;
  how.failure = "the worker went away";
  auto s = ended(t, "partial", how);
  REQUIRE(has_type(s, "error"));
  auto err = std::find_if(s.chunks.begin(), s.chunks.end(), [](const json& c) { return c.is_object() && c["type"] == "error"; });
  CHECK((*err)["errorText"] == "the worker went away");
  CHECK(types(s).back() == "finish");
  auto r = t.record("[]", 0);
  CHECK(r.status == platform::run_status::failed);
  CHECK(r.worker_failed);
  CHECK(r.message_count == 1);  // what streamed is kept
}

TEST_CASE("a failure after the result lost nothing: no error chunk, the worker's session is kept") {
  auto t = make_turn();
  std::string w = text_turn("all there") + result_line();
  wm::turn_end_line(w, {.workspace_changed = false});
  auto s = feed_all(t, w);
  platform::builder_turn_end how;
  how.failure = "connection reset";
  take(s, t.end(how));
  CHECK_FALSE(has_type(s, "error"));
  auto r = t.record("[]", 0);
  CHECK_FALSE(r.worker_failed);
  CHECK(r.status == platform::run_status::completed);
}

TEST_CASE("a stop before the result: an abort chunk with the user's reason, the run fails") {
  auto t = make_turn();
  platform::builder_turn_end how;
  how.stop_requested = true;
  how.failure = "cancelled";  // the stop cut the worker request
  auto s = ended(t, "half", how);
  REQUIRE(has_type(s, "abort"));
  CHECK_FALSE(has_type(s, "error"));
  CHECK(t.stopped());
  CHECK(t.record("[]", 0).status == platform::run_status::failed);
  CHECK(t.record("[]", 0).stop_reason == "user");
}

TEST_CASE("a runtime refused for what it lacks: the run keeps the reason and its sentence; other failures keep none") {
  auto t = make_turn();
  platform::builder_turn_end how;
  how.failure = "Codex has no OpenAI API key on this worker. Enter one on Model providers, then send the message again.";
  how.failure_code = platform::api_error::runtime_not_ready;
  auto s = ended(t, "", how);
  REQUIRE(has_type(s, "error"));
  auto r = t.record("[]", 0);
  CHECK(r.status == platform::run_status::failed);
  CHECK(r.stop_reason == "runtime_not_ready");
  CHECK(r.stop_message == *how.failure);

  auto other = make_turn();
  platform::builder_turn_end broke;
  broke.failure = "the worker went away";
  broke.failure_code = platform::api_error::worker_unreachable;
  ended(other, "", broke);
  CHECK(other.record("[]", 0).stop_reason.empty());
  CHECK(other.record("[]", 0).stop_message.empty());
}

TEST_CASE("a stream its store gave up on gets no error chunk, and the run still fails") {
  auto t = make_turn();
  platform::builder_turn_end how;
  how.failure = "stopped reading";
  how.stream_lost = true;
  CHECK_FALSE(has_type(ended(t, "cut", how), "error"));
  CHECK(t.record("[]", 0).status == platform::run_status::failed);
}

TEST_CASE("a replay head every half window, standing for the events before it") {
  auto t = make_turn(8);
  std::string w;
  wm::message_start(w, "msg_1", "model-x");
  wm::text_block_start(w, 0);
  for (int i = 0; i < 20; ++i) wm::text_delta(w, 0, "x");
  wm::block_stop(w, 0);
  wm::message_stop(w);
  auto s = feed_all(t, w);
  REQUIRE(s.heads.size() >= 3);
  for (std::size_t i = 0; i < s.heads.size(); ++i) {
    CHECK(s.heads[i].upto == 4 * (i + 1));
    // A head's events are whole SSE events that start the message.
    CHECK(s.heads[i].events.substr(0, 6) == "data: ");
    CHECK(s.heads[i].events.find("\"type\":\"start\"") != std::string::npos);
  }
}

TEST_CASE("the worker's usage of the turn is taken from its result line") {
  auto t = make_turn();
  platform::run_usage u;
  u.total_input_tokens = 1200;
  u.total_output_tokens = 34;
  u.total_cost_usd = 0.5;
  std::string line = result_line();
  line.pop_back();  // its newline
  wm::add_turn_usage(line, u);
  CHECK_FALSE(t.usage());
  t.feed(line);
  REQUIRE(t.usage());
  CHECK(t.usage()->total_input_tokens == 1200);
  CHECK(t.usage()->total_output_tokens == 34);
}

TEST_CASE("a missing or stale workspace is restored and the turn sent again; other refusals are not") {
  CHECK(platform::needs_workspace_restore({platform::api_error::workspace_missing, ""}));
  CHECK(platform::needs_workspace_restore({platform::api_error::workspace_stale, ""}));
  CHECK_FALSE(platform::needs_workspace_restore({platform::api_error::worker_draining, ""}));
  CHECK_FALSE(platform::needs_workspace_restore({platform::api_error::worker_unreachable, ""}));
}

}  // namespace builder_turn_test
