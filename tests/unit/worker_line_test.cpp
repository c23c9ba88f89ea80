// The bridge's reader of lines in the writers' exact form (lib/platform/src/worker_line.hpp):
// what the writers print is recognized with its values, anything else is left to the parser,
// and the bridge's output is the same whichever way a line was read.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/bridge.hpp"
#include "platform/json_text.hpp"
#include "platform/worker_message.hpp"
#include "worker_line.hpp"

namespace worker_line_test {

namespace wm = platform::worker_message;
namespace wl = platform::worker_line;

namespace {

// The one line `write` appends, without its newline.
template <class F>
std::string line_of(F&& write) {
  std::string out;
  write(out);
  REQUIRE(!out.empty());
  REQUIRE(out.back() == '\n');
  out.pop_back();
  REQUIRE(out.find('\n') == std::string::npos);
  return out;
}

wl::line read_ok(const std::string& text) {
  wl::line l;
  REQUIRE_MESSAGE(wl::read(text, l), text);
  return l;
}

bool recognized(const std::string& text) {
  wl::line l;
  return wl::read(text, l);
}

// A text with every kind of byte append_json_string escapes or checks.
const std::string tricky = std::string("quote \" backslash \\ newline \n tab \t bell \x07 nul ") + '\0' +
                           " unit \x1f del \x7f é 日本 😀 \u2028 /";

struct translated {
  std::string sse;
  platform::bridge_outcome outcome;
};

translated translate(const std::string& transcript) {
  platform::bridge b;
  translated t;
  b.feed(transcript, t.sse);
  b.finish(t.sse);
  t.outcome = b.outcome();
  return t;
}

// The same lines with a space after their first `{`: still the same JSON, no longer in the
// writers' form, so the bridge parses every one of them.
std::string spaced(const std::string& transcript) {
  std::string out;
  std::size_t pos = 0;
  while (pos < transcript.size()) {
    std::size_t nl = transcript.find('\n', pos);
    std::string line = transcript.substr(pos, nl - pos);
    if (!line.empty() && line[0] == '{') line.insert(1, " ");
    out += line + "\n";
    pos = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("every streamed line the writers print is read back with its values") {
  auto l = read_ok(line_of([](std::string& o) { wm::message_start(o, "msg_1", "gpt-5 \"x\""); }));
  CHECK(l.what == wl::kind::message_start);
  CHECK(l.id == "msg_1");

  l = read_ok(line_of([](std::string& o) { wm::text_block_start(o, 0); }));
  CHECK(l.what == wl::kind::text_start);
  CHECK(l.index == 0);
  l = read_ok(line_of([](std::string& o) { wm::thinking_block_start(o, 12); }));
  CHECK(l.what == wl::kind::thinking_start);
  CHECK(l.index == 12);
  l = read_ok(line_of([](std::string& o) { wm::tool_use_block_start(o, 3, "call_1", "mcp__platform__present_plan"); }));
  CHECK(l.what == wl::kind::tool_use_start);
  CHECK(l.index == 3);
  CHECK(l.id == "call_1");
  CHECK(l.name == "mcp__platform__present_plan");

  std::string literal;
  platform::append_json_string(literal, tricky);
  l = read_ok(line_of([](std::string& o) { wm::text_delta(o, 4096, tricky); }));
  CHECK(l.what == wl::kind::text_delta);
  CHECK(l.index == 4096);
  CHECK(l.json == literal);
  l = read_ok(line_of([](std::string& o) { wm::thinking_delta(o, 1, tricky); }));
  CHECK(l.what == wl::kind::thinking_delta);
  CHECK(l.json == literal);

  l = read_ok(line_of([](std::string& o) { wm::block_stop(o, 7); }));
  CHECK(l.what == wl::kind::block_stop);
  CHECK(l.index == 7);
  l = read_ok(line_of([](std::string& o) { wm::message_stop(o); }));
  CHECK(l.what == wl::kind::message_stop);

  const std::string input = R"({"a":[1,-2,true,false,null,{}],"a":"dup","b":{"c":[[]],"d":"\"\\\n\u0001"}})";
  l = read_ok(line_of([&](std::string& o) { wm::assistant_tool_use(o, "msg_1", "call_1", "Bash", input); }));
  CHECK(l.what == wl::kind::tool_use);
  CHECK(l.message_id == "msg_1");
  CHECK(l.id == "call_1");
  CHECK(l.name == "Bash");
  CHECK(l.json == input);
  l = read_ok(line_of([](std::string& o) { wm::assistant_tool_use(o, "m", "c", "Bash", ""); }));
  CHECK(l.json == "{}");

  l = read_ok(line_of([](std::string& o) { wm::tool_result(o, "call_1", R"("done")"); }));
  CHECK(l.what == wl::kind::tool_result);
  CHECK(l.id == "call_1");
  CHECK(l.json == R"("done")");
  CHECK_FALSE(l.is_error);
  CHECK_FALSE(l.preliminary);
  l = read_ok(line_of([](std::string& o) { wm::tool_result(o, "call_1", "[0]", true, true); }));
  CHECK(l.json == "[0]");
  CHECK(l.is_error);
  CHECK(l.preliminary);
  l = read_ok(line_of([](std::string& o) { wm::tool_result(o, "call_1", "", false, true); }));
  CHECK(l.json == "null");
  CHECK(l.preliminary);

  l = read_ok(line_of([](std::string& o) { wm::system_init(o, "thread_1", "gpt-5"); }));
  CHECK(l.what == wl::kind::system_init);
  CHECK(l.id == "thread_1");
  CHECK(l.name == "gpt-5");
  l = read_ok(line_of([](std::string& o) { wm::error(o, "the runtime failed"); }));
  CHECK(l.what == wl::kind::error);
  CHECK(l.text == "the runtime failed");

  wm::result_fields r;
  r.result_text = tricky;
  r.session_id = "thread_1";
  r.num_turns = 3;
  l = read_ok(line_of([&](std::string& o) { wm::result(o, r); }));
  CHECK(l.what == wl::kind::result);
  CHECK_FALSE(l.is_error);
  CHECK(l.id == "thread_1");
  CHECK_FALSE(l.has_stop_reason);
  CHECK(l.num_turns == 3);
  CHECK(l.json.empty());
  CHECK(l.model_usage.empty());
  r.is_error = true;
  r.result_text = "model not found";
  r.stop_reason = "end_turn";
  r.num_turns = -1;
  r.usage_json = R"({"input_tokens":10,"output_tokens":5})";
  r.model_usage_json = R"({"m":{"inputTokens":10}})";
  l = read_ok(line_of([&](std::string& o) { wm::result(o, r); }));
  CHECK(l.is_error);
  CHECK(l.text == "model not found");
  CHECK(l.has_stop_reason);
  CHECK(l.stop_reason == "end_turn");
  CHECK(l.num_turns == -1);
  CHECK(l.json == r.usage_json);
  CHECK(l.model_usage == r.model_usage_json);
}

TEST_CASE("lines in any other form are left to the parser") {
  const std::string delta = R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}})";
  REQUIRE(recognized(delta));
  // Claude Code's own lines: the members after "event" are read past.
  auto cli = read_ok(R"({"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"hi"}},"session_id":"c0bb","parent_tool_use_id":null,"uuid":"65de","ttft_ms":30,"x":{"a":[true,false]}})");
  CHECK(cli.what == wl::kind::text_delta);
  CHECK(cli.index == 2);
  CHECK(cli.json == R"("hi")");
  CHECK(recognized(R"({"type":"stream_event","event":{"type":"content_block_stop","index":0},"session_id":"s","uuid":"u"})"));
  const char* others[] = {
      // runtime-a's CLI form: more members, but not in compact form, or on a message_stop
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"session_id": "s"})",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"ttft_ms":1.5})",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"x":"\u0041"})",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},})",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"uuid"})",
      R"({"type":"stream_event","event":{"type":"message_stop"},"session_id":"s"})",
      // spacing, trailing bytes, a cut line
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}} )",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}})",
      R"({"type":"stream_event", "event":{"type":"message_stop"}})",
      // escapes append_json_string does not write
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u0041"}}})",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u001F"}}})",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u000a"}}})",
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\/"}}})",
      // a raw control character, bad UTF-8
      "{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\tb\"}}}",
      "{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xC3\"}}}",
      "{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xED\xA0\x80\"}}}",
      // indexes: sign, leading zero, too many digits
      R"({"type":"stream_event","event":{"type":"content_block_stop","index":-1}})",
      R"({"type":"stream_event","event":{"type":"content_block_stop","index":01}})",
      R"({"type":"stream_event","event":{"type":"content_block_stop","index":1234567890}})",
      // an id with an escape
      R"({"type":"stream_event","event":{"type":"message_start","message":{"id":"a\"b","type":"message","role":"assistant","model":"","content":[]}}})",
      // values simdjson would print differently or refuse: doubles, -0, long integers, depth
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":1.0}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":1e3}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":-0}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":1234567890123456789}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":[1,]}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":{"a" :1}}]}})",
      // flags in another order
      R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":1,"preliminary":true,"is_error":true}]}})",
      // a result with a cost or the worker's usage, an error result's text or an error with escapes
      R"({"type":"result","subtype":"success","is_error":false,"result":"","session_id":"","num_turns":1,"total_cost_usd":0.5})",
      R"({"type":"result","subtype":"success","is_error":false,"result":"","session_id":"","num_turns":1,"platform_turn_usage":{}})",
      R"({"type":"result","subtype":"success","is_error":true,"result":"a\nb","session_id":"","num_turns":1})",
      R"({"type":"error","error":"a\"b"})",
      // lines the bridge reads but the reader does not cover
      R"({"type":"system","subtype":"thinking_tokens"})",
  };
  for (const char* text : others) CHECK_FALSE_MESSAGE(recognized(text), text);
  CHECK_FALSE(recognized(R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":)" +
                       std::string(65, '[') + std::string(65, ']') + "}]}}"));
  CHECK(recognized(R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":)" +
                 std::string(64, '[') + std::string(64, ']') + "}]}}"));
}

TEST_CASE("the bridge's output is the same whether a line is read or parsed") {
  std::string t;
  wm::system_init(t, "session", "model");
  wm::message_start(t, "m1", "model");
  wm::thinking_block_start(t, 0);
  wm::thinking_delta(t, 0, tricky);
  wm::block_stop(t, 0);
  wm::text_block_start(t, 1);
  wm::text_delta(t, 1, "first ");
  wm::text_delta(t, 1, tricky);
  wm::block_stop(t, 1);
  wm::tool_use_block_start(t, 2, "call_1", "Bash");
  wm::assistant_tool_use(t, "m1", "call_1", "Bash", R"({"command":"ls \"a b\"","n":[1,-2,{"x":null}],"n":0})");
  wm::block_stop(t, 2);
  wm::tool_result(t, "call_1", R"({"output":"partial","truncated":true})", false, true);
  wm::tool_result(t, "call_1", R"({"output":"all\n","exitCode":0})");
  wm::tool_use_block_start(t, 3, "call_2", "mcp__platform__present_plan");
  wm::tool_result(t, "call_2", R"({"content":[{"type":"text","text":"{\"status\":\"presented\"}"}]})");
  wm::assistant_tool_use(t, "m1", "call_2", "mcp__platform__present_plan", R"({"plan":"p"})");
  wm::block_stop(t, 3);
  wm::tool_use_block_start(t, 4, "call_3", "Edit");
  wm::block_stop(t, 4);
  wm::tool_result(t, "call_3", R"("failed: \"x\"")", true);
  wm::message_stop(t);
  wm::assistant_tool_use(t, "m2", "call_4", "mcp__platform__done_building", "{}");
  wm::tool_result(t, "call_4", R"({"ok":true})");
  wm::error(t, "the worker lost the runtime");
  wm::message_start(t, "m3", "");
  wm::text_block_start(t, 0);
  wm::text_delta(t, 0, "after");
  wm::text_delta(t, 5, "to a block never started");
  wm::block_stop(t, 0);
  wm::message_stop(t);
  wm::result_fields r;
  r.result_text = "after";
  r.session_id = "session";
  r.stop_reason = "end_turn";
  r.usage_json = R"({"input_tokens":10,"output_tokens":5})";
  wm::result(t, r);
  wm::message_start(t, "m4", "");
  r.is_error = true;
  r.result_text = "model not found";
  wm::result(t, r);

  translated read = translate(t);
  translated parsed = translate(spaced(t));
  CHECK(read.sse == parsed.sse);
  CHECK(read.sse.find(R"("type":"tool-output-available")") != std::string::npos);
  CHECK(read.outcome.approval_stop == parsed.outcome.approval_stop);
  CHECK(read.outcome.approval_stop);
  CHECK(read.outcome.approval_tool == parsed.outcome.approval_tool);
  CHECK(read.outcome.done_building_succeeded == parsed.outcome.done_building_succeeded);
  CHECK(read.outcome.done_building_succeeded);
  CHECK(read.outcome.lines == parsed.outcome.lines);
  CHECK(read.outcome.ignored_lines == parsed.outcome.ignored_lines);
  CHECK(read.outcome.chunks == parsed.outcome.chunks);
  CHECK(read.outcome.is_error == parsed.outcome.is_error);
  CHECK(read.outcome.error_text == parsed.outcome.error_text);
  CHECK(read.outcome.session_id == parsed.outcome.session_id);
  CHECK(read.outcome.model == parsed.outcome.model);
  CHECK(read.outcome.usage_json == parsed.outcome.usage_json);
  CHECK(read.outcome.usage_json == R"({"input_tokens":10,"output_tokens":5})");
  CHECK(read.outcome.stop_reason == parsed.outcome.stop_reason);
  CHECK(read.outcome.num_turns == parsed.outcome.num_turns);

  // The same transcript as Claude Code prints it, more members on every stream event line.
  std::string cli;
  for (std::size_t pos = 0; pos < t.size();) {
    std::size_t nl = t.find('\n', pos);
    std::string line = t.substr(pos, nl - pos);
    if (line.rfind(R"({"type":"stream_event")", 0) == 0) {
      line.pop_back();
      line += R"(,"session_id":"s-1","parent_tool_use_id":null,"uuid":"65de","ttft_ms":30,"abandoned_blocks":{}})";
    }
    cli += line + "\n";
    pos = nl + 1;
  }
  translated cli_read = translate(cli);
  translated cli_parsed = translate(spaced(cli));
  CHECK(cli_read.sse == cli_parsed.sse);
  CHECK(cli_read.outcome.lines == cli_parsed.outcome.lines);
  CHECK(cli_read.outcome.ignored_lines == cli_parsed.outcome.ignored_lines);
  CHECK(cli_read.outcome.chunks == cli_parsed.outcome.chunks);
}

}  // namespace worker_line_test
