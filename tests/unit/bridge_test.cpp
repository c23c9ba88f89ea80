// Bridge rules on small synthetic transcripts written with the worker message writer.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "platform/bridge.hpp"
#include "platform/stream_check.hpp"
#include "platform/ui_stream.hpp"
#include "platform/worker_message.hpp"

namespace bridge_test {

namespace wm = platform::worker_message;
using nlohmann::json;

namespace {

// The chunks of an SSE body, [DONE] excluded; fails the test on any framing problem.
std::vector<json> chunks_of(const std::string& sse) {
  platform::sse_parser parser;
  std::vector<std::string> events;
  REQUIRE(parser.feed(sse, events));
  REQUIRE_FALSE(parser.has_partial_event());
  REQUIRE(!events.empty());
  CHECK(events.back() == "[DONE]");
  std::vector<json> out;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    json j = json::parse(events[i], nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<std::string> types_of(const std::vector<json>& chunks) {
  std::vector<std::string> t;
  for (const auto& c : chunks) t.push_back(c["type"].get<std::string>());
  return t;
}

std::vector<json> run(const std::string& transcript, platform::bridge_outcome* outcome = nullptr) {
  platform::bridge_options opt;
  opt.message_id = "m1";
  platform::bridge b(opt);
  std::string out;
  b.feed(transcript, out);
  b.finish(out);
  if (outcome) *outcome = b.outcome();
  return chunks_of(out);
}

std::string text_turn(std::string_view msg, std::string_view text) {
  std::string t;
  wm::message_start(t, msg, "model-x");
  wm::text_block_start(t, 0);
  wm::text_delta(t, 0, text);
  wm::block_stop(t, 0);
  wm::message_stop(t);
  return t;
}

std::string tool_call(std::string_view msg, std::string_view id, std::string_view name, std::string_view input) {
  std::string t;
  wm::message_start(t, msg, "model-x");
  wm::tool_use_block_start(t, 0, id, name);
  wm::input_json_delta(t, 0, input);
  wm::assistant_tool_use(t, msg, id, name, input);
  wm::block_stop(t, 0);
  wm::message_stop(t);
  return t;
}

}  // namespace

TEST_CASE("empty input still gives a well-formed stream: start, finish, [DONE]") {
  auto c = run("");
  CHECK(types_of(c) == std::vector<std::string>{"start", "finish"});
  CHECK(c[0]["messageId"] == "m1");
}

TEST_CASE("a text turn: start, step, text part, finish; messageId is the caller's") {
  std::string t = text_turn("msg_1", "Hello \"world\"\n");
  wm::result(t, {false, "Hello", "s1", "end_turn", 1, 0.5, R"({"input_tokens":3})", ""});
  platform::bridge_outcome o;
  auto c = run(t, &o);
  CHECK(types_of(c) == std::vector<std::string>{"start", "start-step", "text-start", "text-delta", "text-end",
                                                "finish-step", "finish"});
  CHECK(c[0]["messageId"] == "m1");
  CHECK(c[2]["id"] == "msg_1:0");
  CHECK(c[3]["delta"] == "Hello \"world\"\n");
  CHECK(c[6]["finishReason"] == "stop");
  CHECK(o.result_seen);
  CHECK(o.total_cost_usd == doctest::Approx(0.5));
  CHECK(o.usage_json == R"({"input_tokens":3})");
}

TEST_CASE("a thinking block closes open text and a text block closes open reasoning") {
  std::string t;
  wm::message_start(t, "m", "x");
  wm::text_block_start(t, 0);
  wm::text_delta(t, 0, "a");
  wm::thinking_block_start(t, 1);  // text 0 never got its stop: the new block closes it
  wm::thinking_delta(t, 1, "b");
  wm::text_block_start(t, 2);
  wm::text_delta(t, 2, "c");
  auto c = run(t);
  CHECK(types_of(c) == std::vector<std::string>{"start", "start-step", "text-start", "text-delta", "text-end",
                                                "reasoning-start", "reasoning-delta", "reasoning-end",
                                                "text-start", "text-delta", "text-end", "finish-step", "finish"});
  CHECK(c.back()["finishReason"] == "other");  // no result: the turn was cut
}

TEST_CASE("tool calls carry dynamic:true, final input from the assistant frame, output only for tracked tools") {
  std::string t;
  wm::message_start(t, "m", "x");
  wm::tool_use_block_start(t, 0, "call_1", "Edit");
  wm::input_json_delta(t, 0, R"({"file_path":"a.ts"})");
  wm::assistant_tool_use(t, "m", "call_1", "Edit", R"({"file_path":"a.ts","replace_all":false})");
  wm::block_stop(t, 0);
  wm::message_stop(t);
  wm::tool_result(t, "call_1", R"("ok")");
  wm::tool_result(t, "call_unknown", R"("ignored")");
  auto c = run(t);
  auto types = types_of(c);
  CHECK(types == std::vector<std::string>{"start", "start-step", "tool-input-start", "tool-input-delta",
                                          "tool-input-available", "finish-step", "tool-output-available",
                                          "finish"});
  CHECK(c[2]["dynamic"] == true);
  CHECK(c[4]["dynamic"] == true);
  CHECK(c[4]["input"] == json{{"file_path", "a.ts"}, {"replace_all", false}});
  CHECK(c[6]["dynamic"] == true);
  CHECK(c[6]["output"] == "ok");
}

TEST_CASE("preliminary outputs and later updates of the same toolCallId") {
  std::string t = tool_call("m", "cmd", "Bash", R"({"command":"ls"})");
  wm::tool_result(t, "cmd", R"("line 1")", false, true);
  wm::tool_result(t, "cmd", R"("line 1\nline 2")", false, true);
  wm::tool_result(t, "cmd", R"({"output":"line 1\nline 2","exitCode":0})");
  wm::tool_result(t, "cmd", R"({"output":"updated"})");
  auto c = run(t);
  std::vector<json> outputs;
  for (auto& x : c) {
    if (x["type"] == "tool-output-available") outputs.push_back(x);
  }
  REQUIRE(outputs.size() == 4);
  CHECK(outputs[0]["preliminary"] == true);
  CHECK(outputs[1]["preliminary"] == true);
  CHECK_FALSE(outputs[2].contains("preliminary"));
  CHECK(outputs[3]["output"]["output"] == "updated");
}

TEST_CASE("a tool result that arrives before its input is complete waits, and message_start flushes it") {
  std::string t;
  wm::message_start(t, "m1", "x");
  wm::tool_use_block_start(t, 0, "early", "Read");
  wm::input_json_delta(t, 0, R"({"file_path":"x"})");
  wm::tool_result(t, "early", R"("content")");  // before content_block_stop
  wm::message_start(t, "m2", "x");              // new message flushes it
  auto c = run(t);
  auto types = types_of(c);
  auto avail = std::find(types.begin(), types.end(), "tool-input-available");
  auto output = std::find(types.begin(), types.end(), "tool-output-available");
  REQUIRE(avail != types.end());
  REQUIRE(output != types.end());
  CHECK(avail < output);
  CHECK(c[static_cast<std::size_t>(avail - types.begin())]["input"] == json{{"file_path", "x"}});
}

TEST_CASE("is_error tool results become tool-output-error with the text of MCP text blocks") {
  std::string t = tool_call("m", "c1", "mcp__app_tools__crm", "{}");
  wm::tool_result(t, "c1", R"([{"type":"text","text":"HTTP 500"},{"type":"text","text":"retry later"}])", true);
  auto c = run(t);
  auto it = std::find_if(c.begin(), c.end(), [](const json& x) { return x["type"] == "tool-output-error"; });
  REQUIRE(it != c.end());
  CHECK((*it)["errorText"] == "HTTP 500\nretry later");
  CHECK((*it)["dynamic"] == true);
}

TEST_CASE("no stream_event for a message: the assistant frames are rendered whole") {
  std::string t =
      R"({"type":"assistant","message":{"id":"msg_9","model":"x","content":[{"type":"thinking","thinking":"hmm"}]}})"
      "\n"
      R"({"type":"assistant","message":{"id":"msg_9","model":"x","content":[{"type":"text","text":"done"}]}})"
      "\n";
  auto c = run(t);
  CHECK(types_of(c) == std::vector<std::string>{"start", "start-step", "reasoning-start", "reasoning-delta",
                                                "reasoning-end", "text-start", "text-delta", "text-end",
                                                "finish-step", "finish"});
  CHECK(c[3]["delta"] == "hmm");
  CHECK(c[2]["id"] == "msg_9:0");
  CHECK(c[5]["id"] == "msg_9:1");
}

TEST_CASE("streamed messages are not rendered twice from their assistant frames") {
  std::string t = text_turn("msg_1", "hi");
  t += R"({"type":"assistant","message":{"id":"msg_1","model":"x","content":[{"type":"text","text":"hi"}]}})"
       "\n";
  auto c = run(t);
  CHECK(std::count(c.begin(), c.end(), json{{"type", "text-delta"}, {"id", "msg_1:0"}, {"delta", "hi"}}) == 1);
}

TEST_CASE("thinking_tokens progress before any thinking block opens a placeholder reasoning part") {
  std::string t;
  wm::message_start(t, "m", "x");
  t += R"({"type":"system","subtype":"thinking_tokens","estimated_tokens":3})" "\n";
  t += R"({"type":"system","subtype":"thinking_tokens","estimated_tokens":6})" "\n";
  wm::thinking_block_start(t, 0);
  wm::thinking_delta(t, 0, "real");
  wm::block_stop(t, 0);
  auto c = run(t);
  CHECK(types_of(c) == std::vector<std::string>{"start", "start-step", "reasoning-start", "reasoning-delta",
                                                "reasoning-end", "reasoning-start", "reasoning-delta",
                                                "reasoning-end", "finish-step", "finish"});
  CHECK(c[3]["delta"] == "Thinking…");
  CHECK(c[6]["delta"] == "real");
}

TEST_CASE("thinking_tokens inside a started thinking block do not add a placeholder") {
  std::string t;
  wm::message_start(t, "m", "x");
  wm::thinking_block_start(t, 0);
  t += R"({"type":"system","subtype":"thinking_tokens","estimated_tokens":3})" "\n";
  wm::thinking_delta(t, 0, "real");
  auto c = run(t);
  CHECK(std::count_if(c.begin(), c.end(), [](const json& x) { return x["type"] == "reasoning-start"; }) == 1);
}

TEST_CASE("abandoned blocks are closed and their tools fail; the non-streamed retry renders whole") {
  std::string t;
  wm::message_start(t, "msg_a", "x");
  wm::thinking_block_start(t, 0);
  wm::thinking_delta(t, 0, "part");
  wm::tool_use_block_start(t, 1, "t1", "Write");
  t += R"({"type":"stream_event","event":{"type":"message_stop"},"abandoned_blocks":{"api_message_id":"msg_a","from_block_index":1}})"
       "\n";
  t += R"({"type":"assistant","message":{"id":"msg_b","model":"x","content":[{"type":"text","text":"again"}]}})"
       "\n";
  auto c = run(t);
  auto types = types_of(c);
  CHECK(types == std::vector<std::string>{"start", "start-step", "reasoning-start", "reasoning-delta",
                                          "reasoning-end", "tool-input-start", "tool-input-available",
                                          "tool-output-error", "finish-step", "start-step", "text-start",
                                          "text-delta", "text-end", "finish-step", "finish"});
}

TEST_CASE("an error result gives one error chunk and finishReason error; the synthetic text is not shown") {
  std::string t =
      R"({"type":"assistant","message":{"id":"x","model":"<synthetic>","content":[{"type":"text","text":"Invalid API key"}]}})"
      "\n";
  wm::result(t, {true, "Invalid API key", "s", "", 0, std::nullopt, "", ""});
  platform::bridge_outcome o;
  auto c = run(t, &o);
  CHECK(types_of(c) == std::vector<std::string>{"start", "error", "finish"});
  CHECK(c[1]["errorText"] == "Invalid API key");
  CHECK(c[2]["finishReason"] == "error");
  CHECK(o.is_error);
}

// A turn cut off while its text streams.
void feed_partial_text(platform::bridge& b, std::string& out) {
  std::string in;
  wm::message_start(in, "m", "x");
  wm::text_block_start(in, 0);
  wm::text_delta(in, 0, "partial");
  b.feed(in, out);
}

TEST_CASE("worker failure mid-turn closes parts and reports the error") {
  platform::bridge b;
  std::string out;
  feed_partial_text(b, out);
  b.fail("worker connection lost", out);
  b.finish(out);
  auto c = chunks_of(out);
  CHECK(types_of(c) == std::vector<std::string>{"start", "start-step", "text-start", "text-delta", "text-end",
                                                "finish-step", "error", "finish"});
  CHECK(b.outcome().error_text == "worker connection lost");
}

TEST_CASE("a user stop closes open parts and waiting tools, then abort with its reason, finish, [DONE]") {
  platform::bridge b;
  std::string out;
  feed_partial_text(b, out);
  b.abort("Stopped by the user.", out);
  b.abort("twice", out);  // idempotent, like finish
  b.finish(out);
  auto c = chunks_of(out);
  CHECK(types_of(c) == std::vector<std::string>{"start", "start-step", "text-start", "text-delta", "text-end",
                                                "finish-step", "abort", "finish"});
  CHECK(c[6]["reason"] == "Stopped by the user.");
  CHECK(b.outcome().stopped);
  CHECK_FALSE(b.outcome().is_error);
  CHECK(out.size() >= 14);
  CHECK(out.substr(out.size() - 14) == "data: [DONE]\n\n");
  CHECK(platform::check_ui_stream(out).ok);
  // A tool call still waiting gets its output before the abort, so no card spins forever.
  platform::bridge t;
  std::string tool_out;
  t.feed(tool_call("m2", "slow", "Bash", R"({"command":"sleep 100"})"), tool_out);
  t.abort("Stopped by the user.", tool_out);
  auto tc = chunks_of(tool_out);
  auto err = std::find_if(tc.begin(), tc.end(), [](const json& x) { return x["type"] == "tool-output-error"; });
  auto ab = std::find_if(tc.begin(), tc.end(), [](const json& x) { return x["type"] == "abort"; });
  REQUIRE(err != tc.end());
  REQUIRE(ab != tc.end());
  CHECK(err < ab);
  CHECK(platform::check_ui_stream(tool_out).ok);
}

TEST_CASE("tools still waiting at the end of the turn get an error output") {
  std::string t = tool_call("m", "slow", "Bash", R"({"command":"sleep 100"})");
  auto c = run(t);
  auto it = std::find_if(c.begin(), c.end(), [](const json& x) { return x["type"] == "tool-output-error"; });
  REQUIRE(it != c.end());
  CHECK((*it)["toolCallId"] == "slow");
}

TEST_CASE("a result while a call still streams its input closes the call before finish") {
  // Found by the bridge fuzzer: a result line cut into a tool input stream left the call
  // streaming at `finish`, which the AI SDK client never settles.
  std::string t;
  wm::message_start(t, "m", "x");
  wm::tool_use_block_start(t, 0, "plan", "mcp__platform__present_plan");
  wm::input_json_delta(t, 0, R"({"title":"da)");
  wm::result(t, {false, "", "s", "end_turn", 1, std::nullopt, "", ""});
  platform::bridge_options opt;
  platform::bridge b(opt);
  std::string out;
  b.feed(t, out);
  b.finish(out);
  CHECK(platform::check_ui_stream(out).ok);
  auto c = chunks_of(out);
  auto types = types_of(c);
  auto available = std::find(types.begin(), types.end(), "tool-input-available");
  auto failed = std::find(types.begin(), types.end(), "tool-output-error");
  auto finish = std::find(types.begin(), types.end(), "finish");
  REQUIRE(available != types.end());
  REQUIRE(failed != types.end());
  CHECK(available < failed);
  CHECK(failed < finish);
  CHECK_FALSE(b.outcome().approval_stop);
}

TEST_CASE("approval stop: a present_plan result that is not an error") {
  SUBCASE("plain MCP text content") {
    std::string t = tool_call("m", "p", "mcp__platform__present_plan", R"({"title":"x"})");
    wm::tool_result(t, "p", R"([{"type":"text","text":"Plan shown"}])");
    platform::bridge_outcome o;
    run(t, &o);
    CHECK(o.approval_stop);
    CHECK(o.approval_tool == "mcp__platform__present_plan");
  }
  SUBCASE("wrapped JSON saying ok:false is not a stop") {
    std::string t = tool_call("m", "p", "mcp__platform__present_agents", "{}");
    wm::tool_result(t, "p", R"({"content":[{"type":"text","text":"{\"ok\":false,\"violations\":[]}"}]})");
    platform::bridge_outcome o;
    run(t, &o);
    CHECK_FALSE(o.approval_stop);
  }
  SUBCASE("an is_error result is not a stop") {
    std::string t = tool_call("m", "p", "mcp__platform__present_plan", "{}");
    wm::tool_result(t, "p", R"("boom")", true);
    platform::bridge_outcome o;
    run(t, &o);
    CHECK_FALSE(o.approval_stop);
  }
  SUBCASE("MCP isError wrapper is not a stop") {
    std::string t = tool_call("m", "p", "mcp__platform__present_plan", "{}");
    wm::tool_result(t, "p", R"({"content":[{"type":"text","text":"bad"}],"isError":true})");
    platform::bridge_outcome o;
    run(t, &o);
    CHECK_FALSE(o.approval_stop);
  }
}

TEST_CASE("done_building succeeded needs positive evidence in the payload") {
  SUBCASE("ok:true in wrapped JSON") {
    std::string t = tool_call("m", "d", "mcp__platform__done_building", "{}");
    wm::tool_result(t, "d", R"({"content":[{"type":"text","text":"{\"ok\":true,\"preview\":\"ready\"}"}]})");
    platform::bridge_outcome o;
    run(t, &o);
    CHECK(o.done_building_succeeded);
  }
  SUBCASE("status failed") {
    std::string t = tool_call("m", "d", "mcp__platform__done_building", "{}");
    wm::tool_result(t, "d", R"([{"type":"text","text":"{\"status\":\"failed\",\"errors\":\"tsc\"}"}])");
    platform::bridge_outcome o;
    run(t, &o);
    CHECK_FALSE(o.done_building_succeeded);
  }
  SUBCASE("plain text") {
    std::string t = tool_call("m", "d", "mcp__platform__done_building", "{}");
    wm::tool_result(t, "d", R"("built")");
    platform::bridge_outcome o;
    run(t, &o);
    CHECK_FALSE(o.done_building_succeeded);
  }
}

TEST_CASE("multi-turn input: one message per turn, later turns get suffixed ids") {
  std::string t = text_turn("a", "one");
  wm::result(t, {});
  t += text_turn("b", "two");
  wm::result(t, {});
  auto c = run(t);
  std::vector<std::string> ids;
  for (auto& x : c) {
    if (x["type"] == "start") ids.push_back(x["messageId"]);
  }
  CHECK(ids == std::vector<std::string>{"m1", "m1-2"});
}

TEST_CASE("bad lines are skipped, never copied: invalid JSON, bad escapes, raw control characters") {
  std::string t;
  wm::message_start(t, "m", "x");
  wm::text_block_start(t, 0);
  t += "{not json\n";
  t += R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \q escape"}}})"
       "\n";
  t += "{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
       "\"text_delta\",\"text\":\"cr\rinside\"}}}\n";
  t += R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[tru]}]}})"
       "\n";
  wm::text_delta(t, 0, "fine");
  platform::bridge_outcome o;
  auto c = run(t, &o);  // chunks_of() asserts every event is valid JSON
  std::string text;
  for (auto& x : c) {
    if (x["type"] == "text-delta") text += x["delta"].get<std::string>();
  }
  CHECK(text == "fine");
  CHECK(o.ignored_lines >= 1);
}

TEST_CASE("oversized lines are dropped without buffering them whole") {
  platform::bridge_options opt;
  opt.max_line_bytes = 1000;
  platform::bridge b(opt);
  std::string out;
  std::string big = R"({"type":"stream_event","event":{"type":"message_start","message":{"id":")" +
                    std::string(5000, 'x') + "\"}}}\n";
  for (std::size_t i = 0; i < big.size(); i += 100) b.feed(std::string_view(big).substr(i, 100), out);
  std::string ok = text_turn("m", "after");
  b.feed(ok, out);
  b.finish(out);
  auto c = chunks_of(out);
  CHECK(b.outcome().ignored_lines == 1);
  CHECK(std::count_if(c.begin(), c.end(), [](const json& x) { return x["type"] == "text-delta"; }) == 1);
}

TEST_CASE("an oversized line is skipped however the input was cut: whole in one piece too") {
  platform::bridge_options opt;
  opt.max_line_bytes = 1000;
  std::string big = R"({"type":"stream_event","event":{"type":"message_start","message":{"id":")" +
                    std::string(5000, 'x') + "\"}}}\n";
  std::string input = big + text_turn("m", "after");
  for (std::size_t piece : {std::size_t{1} << 20, std::size_t{7}, std::size_t{100}}) {
    platform::bridge b(opt);
    std::string out;
    for (std::size_t i = 0; i < input.size(); i += piece) b.feed(std::string_view(input).substr(i, piece), out);
    b.finish(out);
    CHECK(b.outcome().ignored_lines == 1);
    auto c = chunks_of(out);
    CHECK(std::count_if(c.begin(), c.end(), [](const json& x) { return x["type"] == "text-delta"; }) == 1);
  }
}

TEST_CASE("finish is idempotent and nothing is written after [DONE]") {
  platform::bridge b;
  std::string out;
  b.finish(out);
  std::string once = out;
  b.finish(out);
  b.feed(text_turn("m", "late"), out);
  CHECK(out == once);
  CHECK(b.finished());
}

}  // namespace bridge_test
