// runtime-c (opencode `run --format json`) normalizer: the captured transcripts become the
// UI chunks the fixture README asks for, and odd input never breaks the stream.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "platform/bridge.hpp"
#include "platform/runtime_normalizer.hpp"
#include "platform/ui_stream.hpp"

namespace runtime_c_test {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string fixture(const std::string& name) {
  fs::path p = fs::path(PLATFORM_TEST_DATA) / "fixtures" / "runtime-c" / (name + ".jsonl");
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing fixture " << p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Worker message lines written by the normalizer for `native`.
std::string normalize(std::string_view native) {
  auto n = platform::make_runtime_normalizer("runtime-c");
  REQUIRE(n);
  std::string out;
  (*n)->feed(native, out);
  (*n)->finish(out);
  return out;
}

std::vector<json> lines_of(const std::string& messages) {
  std::vector<json> all;
  std::istringstream in(messages);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, false);
    REQUIRE_MESSAGE(!j.is_discarded(), "worker message is not JSON: " << line);
    all.push_back(std::move(j));
  }
  return all;
}

std::vector<json> results_of(const std::string& messages) {
  std::vector<json> r;
  for (auto& j : lines_of(messages)) {
    if (j.value("type", "") == "result") r.push_back(j);
  }
  return r;
}

struct translation {
  std::vector<json> chunks;  // [DONE] excluded
  platform::bridge_outcome outcome;
  std::string messages;
};

// Checks the UI stream invariants every runtime-c output must hold, then returns the chunks.
std::vector<json> checked_chunks(const std::string& sse) {
  platform::sse_parser parser;
  std::vector<std::string> events;
  REQUIRE(parser.feed(sse, events));
  REQUIRE_FALSE(parser.has_partial_event());
  REQUIRE(events.size() >= 2);
  CHECK(events.back() == "[DONE]");
  CHECK(sse.size() >= platform::sse_done_event.size());
  CHECK(sse.substr(sse.size() - platform::sse_done_event.size()) == platform::sse_done_event);
  std::vector<json> chunks;
  std::set<std::string> open_text, open_reasoning, started_tools, available_tools;
  int finishes = 0;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    json c = json::parse(events[i], nullptr, false);
    REQUIRE_MESSAGE(!c.is_discarded(), events[i]);
    REQUIRE(c.contains("type"));
    std::string type = c["type"];
    CHECK_MESSAGE(finishes == 0, "chunk after finish: " << events[i]);
    if (type == "text-start") CHECK(open_text.insert(c["id"]).second);
    if (type == "text-delta") CHECK(open_text.count(c["id"]) == 1);
    if (type == "text-end") CHECK(open_text.erase(c["id"]) == 1);
    if (type == "reasoning-start") CHECK(open_reasoning.insert(c["id"]).second);
    if (type == "reasoning-delta") CHECK(open_reasoning.count(c["id"]) == 1);
    if (type == "reasoning-end") CHECK(open_reasoning.erase(c["id"]) == 1);
    if (type == "tool-input-start") started_tools.insert(c["toolCallId"]);
    if (type == "tool-input-available") {
      CHECK(started_tools.count(c["toolCallId"]) == 1);
      available_tools.insert(c["toolCallId"]);
    }
    if (type == "tool-output-available" || type == "tool-output-error") {
      CHECK_MESSAGE(available_tools.count(c["toolCallId"]) == 1, "output for an unknown tool: " << events[i]);
    }
    if (type == "finish-step") CHECK((open_text.empty() && open_reasoning.empty()));
    if (type == "finish") ++finishes;
    chunks.push_back(std::move(c));
  }
  CHECK(finishes == 1);
  CHECK(open_text.empty());
  CHECK(open_reasoning.empty());
  REQUIRE(!chunks.empty());
  CHECK(chunks.back()["type"] == "finish");
  return chunks;
}

translation translate(std::string_view native) {
  translation t;
  t.messages = normalize(native);
  platform::bridge_options opt;
  opt.message_id = "m";
  platform::bridge b(opt);
  std::string sse;
  b.feed(t.messages, sse);
  b.finish(sse);
  t.outcome = b.outcome();
  t.chunks = checked_chunks(sse);
  return t;
}

std::vector<json> of_type(const std::vector<json>& chunks, std::string_view type) {
  std::vector<json> r;
  for (const auto& c : chunks) {
    if (c["type"] == type) r.push_back(c);
  }
  return r;
}

std::vector<std::string> types_of(const std::vector<json>& chunks) {
  std::vector<std::string> t;
  for (const auto& c : chunks) t.push_back(c["type"]);
  return t;
}

// One opencode line.
std::string ev(const std::string& type, const json& part, const std::string& session = "ses_1") {
  json j = {{"type", type}, {"timestamp", 1}, {"sessionID", session}, {"part", part}};
  return j.dump() + "\n";
}

std::string step_start(const std::string& msg) { return ev("step_start", {{"messageID", msg}, {"type", "step-start"}}); }

std::string step_finish(const std::string& msg, const std::string& reason, int in, int out, double cost) {
  return ev("step_finish", {{"messageID", msg},
                            {"reason", reason},
                            {"type", "step-finish"},
                            {"tokens", {{"input", in}, {"output", out}, {"reasoning", 0}, {"cache", {{"write", 0}, {"read", 0}}}}},
                            {"cost", cost}});
}

std::string tool(const std::string& name, const std::string& call, const json& input, const json& state_extra) {
  json state = {{"status", "completed"}, {"input", input}, {"output", "ok"}};
  if (state_extra.is_object()) state.update(state_extra);
  return ev("tool_use", {{"type", "tool"}, {"tool", name}, {"callID", call}, {"state", state}, {"messageID", "msg_1"}});
}

const char* const all_fixtures[] = {
    "text-plain",        "text-reasoning",     "tool-bash-write", "tool-bash-write-git", "tool-edit",
    "tool-parallel",     "tool-error",         "permission-rejected", "mcp-present-plan", "mcp-remote-present-plan",
    "mcp-unauthorized",  "provider-error-401", "provider-error-500",  "model-not-found",
};

}  // namespace

TEST_CASE("every runtime-c fixture keeps the UI stream invariants and ends with one result") {
  for (const char* name : all_fixtures) {
    CAPTURE(name);
    auto t = translate(fixture(name));
    CHECK(results_of(t.messages).size() == 1);
    CHECK(t.outcome.result_seen);
    CHECK(t.outcome.ignored_lines == 0);
    CHECK(of_type(t.chunks, "error").size() == (t.outcome.is_error ? 1u : 0u));
  }
}

TEST_CASE("text-reasoning: one reasoning part, then one text part, each with one delta") {
  auto t = translate(fixture("text-reasoning"));
  CHECK(types_of(t.chunks) == std::vector<std::string>{"start", "start-step", "reasoning-start", "reasoning-delta",
                                                       "reasoning-end", "text-start", "text-delta", "text-end",
                                                       "finish-step", "finish"});
  CHECK(of_type(t.chunks, "reasoning-delta")[0]["delta"] == "The user says hello. I should greet back.");
  CHECK(of_type(t.chunks, "text-delta")[0]["delta"] == "Hello from the mock model!");
  CHECK(t.chunks.back()["finishReason"] == "stop");
  CHECK(t.outcome.session_id == "ses_dfe3cb7c4ffeEDxoG3fyoIkxN9");
  REQUIRE(t.outcome.total_cost_usd);
  CHECK(*t.outcome.total_cost_usd == doctest::Approx(0.00106));
  json usage = json::parse(t.outcome.usage_json);
  CHECK(usage["input_tokens"] == 1000);
  CHECK(usage["output_tokens"] == 20);  // 12 output + 8 reasoning, both billed as output
  CHECK(usage["output_tokens_details"]["thinking_tokens"] == 8);
  CHECK(usage["cache_read_input_tokens"] == 200);
  CHECK(usage["cache_creation_input_tokens"] == 0);
}

TEST_CASE("text-plain: no reasoning part without --thinking, reasoning tokens still counted") {
  auto t = translate(fixture("text-plain"));
  CHECK(of_type(t.chunks, "reasoning-start").empty());
  CHECK(of_type(t.chunks, "text-delta").size() == 1);
  CHECK(json::parse(t.outcome.usage_json)["output_tokens_details"]["thinking_tokens"] == 8);
  auto r = results_of(t.messages);
  REQUIRE(r.size() == 1);
  CHECK(r[0]["result"] == "Hello from the mock model!");
  CHECK(r[0]["stop_reason"] == "end_turn");
  CHECK(r[0]["num_turns"] == 1);
}

TEST_CASE("tool-bash-write: Write then Bash with their outputs over three steps, usage summed") {
  for (const char* name : {"tool-bash-write", "tool-bash-write-git"}) {
    CAPTURE(name);
    auto t = translate(fixture(name));
    auto inputs = of_type(t.chunks, "tool-input-available");
    REQUIRE(inputs.size() == 2);
    CHECK(inputs[0]["toolName"] == "Write");
    CHECK(inputs[0]["input"] == json({{"file_path", "notes.md"}, {"content", "# Notes\nhello from mock\n"}}));
    CHECK(inputs[1]["toolName"] == "Bash");
    CHECK(inputs[1]["input"]["command"] == "cat notes.md && wc -l notes.md");
    auto outputs = of_type(t.chunks, "tool-output-available");
    REQUIRE(outputs.size() == 2);
    CHECK(outputs[0]["toolCallId"] == "call_write_1");
    CHECK(outputs[0]["output"] == "Wrote file successfully.");
    CHECK(outputs[1]["toolCallId"] == "call_bash_1");
    CHECK(outputs[1]["output"] == "# Notes\nhello from mock\n2 notes.md\n");
    CHECK(of_type(t.chunks, "start-step").size() == 3);
    CHECK(of_type(t.chunks, "finish-step").size() == 3);
    CHECK(t.chunks.back()["finishReason"] == "stop");
    REQUIRE(t.outcome.total_cost_usd);
    CHECK(*t.outcome.total_cost_usd == 0.00637);  // 0.00508 + 0.00066 + 0.00063, no float dust
    json usage = json::parse(t.outcome.usage_json);
    CHECK(usage["input_tokens"] == 5200);
    CHECK(usage["output_tokens"] == 80);
    CHECK(usage["cache_read_input_tokens"] == 10100);
    CHECK(results_of(t.messages)[0]["num_turns"] == 3);
  }
}

TEST_CASE("tool-edit: Edit input in runtime-a field names plus opencode's unified diff") {
  auto t = translate(fixture("tool-edit"));
  auto inputs = of_type(t.chunks, "tool-input-available");
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[1]["toolName"] == "Edit");
  const json& in = inputs[1]["input"];
  CHECK(in["file_path"] == "app.js");
  CHECK(in["old_string"] == "\"hello\"");
  CHECK(in["new_string"] == "\"hello, world\"");
  CHECK(in["diff"].get<std::string>().find("+const greeting = \"hello, world\";") != std::string::npos);
  CHECK_FALSE(in.contains("filePath"));
  CHECK(of_type(t.chunks, "tool-output-available")[1]["output"] == "Edit applied successfully.");
}

TEST_CASE("tool-parallel: two Bash calls inside the same step") {
  auto t = translate(fixture("tool-parallel"));
  auto types = types_of(t.chunks);
  auto first_finish_step = std::find(types.begin(), types.end(), "finish-step") - types.begin();
  std::vector<std::string> ids;
  for (long i = 0; i < first_finish_step; ++i) {
    if (types[i] == "tool-output-available") ids.push_back(t.chunks[i]["toolCallId"]);
  }
  CHECK(ids == std::vector<std::string>{"call_a", "call_b"});
  for (const auto& c : of_type(t.chunks, "tool-input-start")) CHECK(c["toolName"] == "Bash");
  CHECK(of_type(t.chunks, "tool-output-available")[1]["output"] == "two\n");
}

TEST_CASE("tool-error: a failed call becomes tool-output-error, the turn goes on") {
  auto t = translate(fixture("tool-error"));
  auto errors = of_type(t.chunks, "tool-output-error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]["toolCallId"] == "call_read_1");
  CHECK(errors[0]["errorText"] == "File not found: /workspace/app/missing.txt");
  CHECK(of_type(t.chunks, "tool-input-available")[0]["toolName"] == "Read");
  CHECK(of_type(t.chunks, "tool-input-available")[0]["input"] == json({{"file_path", "missing.txt"}}));
  CHECK(of_type(t.chunks, "text-delta").back()["delta"] == "The file missing.txt does not exist.");
  CHECK_FALSE(t.outcome.is_error);
}

TEST_CASE("permission-rejected: the rejection is a tool error and the turn stops after that step") {
  auto t = translate(fixture("permission-rejected"));
  auto errors = of_type(t.chunks, "tool-output-error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]["errorText"] == "The user rejected permission to use this specific tool call.");
  CHECK(t.chunks.back()["finishReason"] == "tool-calls");
  CHECK(t.outcome.stop_reason == "tool_use");
  CHECK_FALSE(t.outcome.is_error);
}

TEST_CASE("mcp-present-plan: platform_present_plan is mcp__platform__present_plan and stops for approval") {
  for (const char* name : {"mcp-present-plan", "mcp-remote-present-plan"}) {
    CAPTURE(name);
    auto t = translate(fixture(name));
    auto inputs = of_type(t.chunks, "tool-input-available");
    REQUIRE(inputs.size() == 1);
    CHECK(inputs[0]["toolName"] == "mcp__platform__present_plan");
    CHECK(inputs[0]["input"]["title"] == "Refactor config loader");
    CHECK(inputs[0]["input"]["steps"].size() == 3);
    CHECK(of_type(t.chunks, "tool-output-available")[0]["output"] ==
          "Plan \"Refactor config loader\" presented with 3 steps; user acknowledged.");
    CHECK(t.outcome.approval_stop);
    CHECK(t.outcome.approval_tool == "mcp__platform__present_plan");
  }
}

TEST_CASE("mcp-unauthorized: the `invalid` call of a missing MCP tool shows as a failed call") {
  auto t = translate(fixture("mcp-unauthorized"));
  auto starts = of_type(t.chunks, "tool-input-start");
  REQUIRE(starts.size() == 1);
  CHECK(starts[0]["toolName"] == "invalid");
  auto errors = of_type(t.chunks, "tool-output-error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]["errorText"].get<std::string>().find("unavailable tool 'platform_present_plan'") != std::string::npos);
  CHECK(of_type(t.chunks, "tool-output-available").empty());
  CHECK_FALSE(t.outcome.approval_stop);
}

TEST_CASE("provider and model errors: one error chunk with the provider's message") {
  std::map<std::string, std::string> expected = {
      {"provider-error-401", "Incorrect API key provided: sk-mock"},
      {"provider-error-500", "The server had an error while processing your request."},
      {"model-not-found", "Unexpected server error. Check server logs for details."},
  };
  for (const auto& [name, text] : expected) {
    CAPTURE(name);
    auto t = translate(fixture(name));
    CHECK(types_of(t.chunks) == std::vector<std::string>{"start", "error", "finish"});
    CHECK(t.chunks[1]["errorText"] == text);
    CHECK(t.chunks[2]["finishReason"] == "error");
    CHECK(t.outcome.is_error);
    CHECK(t.outcome.error_text == text);
    CHECK_FALSE(t.outcome.total_cost_usd);
    CHECK(t.outcome.usage_json.empty());
  }
}

TEST_CASE("canonical tool names") {
  std::map<std::string, std::string> names = {
      {"bash", "Bash"},
      {"edit", "Edit"},
      {"write", "Write"},
      {"read", "Read"},
      {"glob", "Glob"},
      {"grep", "Grep"},
      {"webfetch", "WebFetch"},
      {"websearch", "WebSearch"},
      {"platform_present_plan", "mcp__platform__present_plan"},
      {"platform_done_building", "mcp__platform__done_building"},
      {"platform_present_integration_setup", "mcp__platform__present_integration_setup"},
      {"app_tools_send_invoice", "mcp__app_tools__send_invoice"},
      {"app_data_update_app_data", "mcp__app_data__update_app_data"},
      {"app_data_read_app_data", "mcp__app_data__read_app_data"},
      {"todowrite", "todowrite"},          // no runtime-a counterpart: kept
      {"platform_", "platform_"},          // no tool after the server
      {"platformer_x", "platformer_x"},    // not the platform server
      {"other_server_tool", "other_server_tool"},
      {"Bash", "Bash"},
  };
  for (const auto& [native, canonical] : names) {
    CAPTURE(native);
    auto t = translate(step_start("msg_1") + tool(native, "c1", json::object(), json::object()));
    auto starts = of_type(t.chunks, "tool-input-start");
    REQUIRE(starts.size() == 1);
    CHECK(starts[0]["toolName"] == canonical);
  }
}

TEST_CASE("built-in tool inputs use runtime-a's field names; MCP inputs are kept as sent") {
  auto t = translate(step_start("msg_1") +
                     tool("edit", "e", {{"filePath", "a.js"}, {"oldString", "x"}, {"newString", "y"}, {"replaceAll", true}}, {}) +
                     tool("grep", "g", {{"pattern", "TODO"}, {"path", "src"}, {"include", "*.ts"}}, {}) +
                     tool("read", "r", {{"filePath", "b"}, {"offset", 10}, {"limit", 5}, {"URL", 1}, {"maxLines2", 2}}, {}) +
                     tool("app_tools_make_thing", "m", {{"someField", 1}, {"filePath", "kept"}}, {}));
  auto inputs = of_type(t.chunks, "tool-input-available");
  REQUIRE(inputs.size() == 4);
  CHECK(inputs[0]["input"] == json({{"file_path", "a.js"}, {"old_string", "x"}, {"new_string", "y"}, {"replace_all", true}}));
  CHECK(inputs[1]["input"] == json({{"pattern", "TODO"}, {"path", "src"}, {"glob", "*.ts"}}));
  CHECK(inputs[2]["input"] == json({{"file_path", "b"}, {"offset", 10}, {"limit", 5}, {"url", 1}, {"max_lines2", 2}}));
  CHECK(inputs[3]["input"] == json({{"someField", 1}, {"filePath", "kept"}}));
}

TEST_CASE("a Bash command with a non-zero exit code is a failed call") {
  auto t = translate(step_start("msg_1") +
                     tool("bash", "b1", {{"command", "false"}}, {{"output", "boom\n"}, {"metadata", {{"exit", 2}}}}) +
                     tool("bash", "b2", {{"command", "true"}}, {{"output", ""}, {"metadata", {{"exit", 0}}}}));
  auto errors = of_type(t.chunks, "tool-output-error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]["toolCallId"] == "b1");
  CHECK(errors[0]["errorText"] == "Exit code 2\nboom\n");
  auto outputs = of_type(t.chunks, "tool-output-available");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["output"] == "");
}

TEST_CASE("unfinished tool states are not printed by opencode and are ignored") {
  auto t = translate(step_start("msg_1") + tool("bash", "b1", {{"command", "x"}}, {{"status", "running"}}));
  CHECK(of_type(t.chunks, "tool-input-start").empty());
}

TEST_CASE("malformed, unknown and blank lines are ignored; CRLF and a missing final newline are fine") {
  std::string native = "not json at all\r\n{\"type\":\"future_event\",\"sessionID\":\"ses_x\"}\r\n\r\n{\"type\":\r\n" +
                       step_start("msg_1") + "[1,2,3]\n{\"type\":42}\n" +
                       ev("text", {{"messageID", "msg_1"}, {"type", "text"}, {"text", "hi"}});
  native.pop_back();  // no final newline
  auto t = translate(native);
  CHECK(of_type(t.chunks, "text-delta").size() == 1);
  CHECK(t.outcome.session_id == "ses_x");
  CHECK_FALSE(t.outcome.is_error);
}

TEST_CASE("a stream that ends inside a step closes it and reports an interrupted turn") {
  auto t = translate(step_start("msg_1") + ev("text", {{"messageID", "msg_1"}, {"type", "text"}, {"text", "partial"}}));
  CHECK(of_type(t.chunks, "finish-step").size() == 1);
  CHECK(t.outcome.stop_reason == "interrupted");
  CHECK_FALSE(t.outcome.is_error);
  CHECK(results_of(t.messages)[0]["result"] == "partial");
}

TEST_CASE("an error after some steps keeps their usage and fails the turn once") {
  std::string native = step_start("msg_1") + tool("bash", "b1", {{"command", "ls"}}, {}) +
                       step_finish("msg_1", "tool-calls", 100, 10, 0.25) + step_start("msg_2") +
                       R"({"type":"error","sessionID":"ses_1","error":{"name":"APIError","data":{"message":"overloaded"}}})" "\n" +
                       R"({"type":"error","sessionID":"ses_1","error":{"name":"UnknownError"}})" "\n";
  auto t = translate(native);
  auto errors = of_type(t.chunks, "error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]["errorText"] == "overloaded");
  CHECK(t.chunks.back()["finishReason"] == "error");
  REQUIRE(t.outcome.total_cost_usd);
  CHECK(*t.outcome.total_cost_usd == 0.25);
  CHECK(json::parse(t.outcome.usage_json)["input_tokens"] == 100);
}

TEST_CASE("error texts fall back to the error name, then to a generic text") {
  auto name_only = translate(R"({"type":"error","error":{"name":"ProviderAuthError"}})");
  CHECK(name_only.outcome.error_text == "ProviderAuthError");
  auto bare = translate(R"({"type":"error"})");
  CHECK(bare.outcome.is_error);
  CHECK_FALSE(bare.outcome.error_text.empty());
}

TEST_CASE("output that is not opencode JSON (an old CLI printing usage) fails the turn") {
  auto t = translate("opencode run [message..]\n\nrun opencode with a message\n");
  CHECK(t.outcome.is_error);
  CHECK(t.outcome.error_text.find("opencode run [message..]") != std::string::npos);
  auto empty = translate("");
  CHECK_FALSE(empty.outcome.result_seen);  // nothing to say: the host reports exit code and stderr
  CHECK(normalize("").empty());
}

TEST_CASE("repeated call ids and message ids stay unique in the UI stream") {
  auto t = translate(step_start("msg_1") + tool("bash", "same", {{"command", "a"}}, {}) +
                     tool("bash", "same", {{"command", "b"}}, {}) + step_finish("msg_1", "tool-calls", 1, 1, 0) +
                     step_start("msg_1") + ev("text", {{"messageID", "msg_1"}, {"type", "text"}, {"text", "t1"}}) +
                     step_finish("msg_1", "stop", 1, 1, 0));
  auto outputs = of_type(t.chunks, "tool-output-available");
  REQUIRE(outputs.size() == 2);
  CHECK(outputs[0]["toolCallId"] != outputs[1]["toolCallId"]);
  auto text_ids = of_type(t.chunks, "text-start");
  REQUIRE(text_ids.size() == 1);
  CHECK(text_ids[0]["id"] != "msg_1:0");  // step 1 already used msg_1:0 for a tool block
}

TEST_CASE("a repeated call id takes the first free #n, also past ids that already look like one") {
  std::string native = step_start("msg_1");
  for (const char* call : {"c", "c", "c#3", "c", "c"}) native += tool("mcp_x", call, json::object(), {});
  std::vector<std::string> ids;
  for (const auto& o : of_type(translate(native).chunks, "tool-output-available")) ids.push_back(o["toolCallId"]);
  CHECK(ids == std::vector<std::string>{"c", "c#2", "c#3", "c#4", "c#5"});
}

// The form values are written in is the one this output has always had: object keys sorted,
// the last of repeated keys, nlohmann's number spelling; a byte order mark and integers
// beyond 64 bits are still read.
TEST_CASE("tool inputs and outputs keep their written form") {
  std::string out = normalize(
      step_start("msg_1") +
      R"({"type":"tool_use","part":{"tool":"mcp_x","callID":"c","state":{"status":"completed",)"
      R"("input":{"b":1,"a":[1.0,1e20,-0,18446744073709551616],"b":2},"output":{"z":{"y":1,"x":"\u00e9"}}}}})" "\n"
      "\xEF\xBB\xBF" R"({"type":"text","part":{"text":"bom"}})" "\n");
  CHECK(out.find(R"("input":{"a":[1.0,1e+20,0,1.8446744073709552e+19],"b":2})") != std::string::npos);
  CHECK(out.find(R"("content":{"z":{"x":"é","y":1}})") != std::string::npos);
  CHECK(out.find(R"("text":"bom")") != std::string::npos);
}

TEST_CASE("parts outside any step still land in a step") {
  auto t = translate(ev("text", {{"type", "text"}, {"text", "orphan"}}) + tool("read", "r", {{"filePath", "x"}}, {}));
  CHECK(of_type(t.chunks, "start-step").size() >= 1);
  CHECK(of_type(t.chunks, "text-delta")[0]["delta"] == "orphan");
  CHECK(of_type(t.chunks, "tool-output-available").size() == 1);
}

TEST_CASE("hostile values: odd token counts, costs and deep nesting do not break the stream") {
  std::string deep(100000, '[');
  std::string native =
      step_start("msg_1") +
      R"({"type":"step_finish","part":{"tokens":{"input":-5,"output":1.9,"reasoning":"x","cache":[]},"cost":-1}})" "\n" +
      R"({"type":"step_finish","part":{"tokens":{"input":18446744073709551615,"output":9223372036854775807},"cost":1e300}})" "\n" +
      R"({"type":"tool_use","part":{"tool":"bash","state":{"status":"completed","input":)" + deep + "}}}\n" +
      R"({"type":"text","part":{"text":"after"}})" "\n";
  auto t = translate(native);
  json usage = json::parse(t.outcome.usage_json);
  CHECK(usage["input_tokens"].get<std::int64_t>() > 0);
  CHECK(usage["output_tokens"].get<std::int64_t>() > 0);
  CHECK_FALSE(t.outcome.total_cost_usd);  // negative and absurd costs are not added
  CHECK(of_type(t.chunks, "text-delta").size() == 1);
}

TEST_CASE("an oversized line is skipped without holding it in memory") {
  auto n = platform::make_runtime_normalizer("runtime-c");
  REQUIRE(n);
  std::string out;
  (*n)->feed(step_start("msg_1"), out);
  std::string piece(1u << 20, 'x');
  (*n)->feed(R"({"type":"text","part":{"text":")", out);
  for (int i = 0; i < 65; ++i) (*n)->feed(piece, out);
  (*n)->feed("\"}}\n", out);
  (*n)->feed(ev("text", {{"type", "text"}, {"text", "small"}}), out);
  (*n)->finish(out);
  CHECK(out.size() < 4096);
  CHECK(out.find("small") != std::string::npos);
  CHECK(out.find("xxxx") == std::string::npos);
}

TEST_CASE("finish is idempotent and later input is ignored") {
  auto n = platform::make_runtime_normalizer("runtime-c");
  REQUIRE(n);
  std::string out;
  (*n)->feed(fixture("text-plain"), out);
  (*n)->finish(out);
  std::string again;
  (*n)->finish(again);
  (*n)->feed(step_start("msg_9"), again);
  CHECK(again.empty());
  CHECK(results_of(out).size() == 1);
}

}  // namespace runtime_c_test
