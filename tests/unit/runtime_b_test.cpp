// runtime-b normalizer: codex app-server transcripts (captured fixtures and small synthetic
// ones) → worker messages → UI message stream, checked chunk by chunk.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "platform/bridge.hpp"
#include "platform/runtime_normalizer.hpp"
#include "platform/stream_check.hpp"
#include "platform/ui_stream.hpp"

namespace runtime_b_test {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path fixture_dir = fs::path(PLATFORM_TEST_DATA) / "fixtures" / "runtime-b";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fixture(const std::string& name) { return slurp(fixture_dir / (name + ".jsonl")); }

// Native bytes → worker message lines.
std::string normalize(std::string_view native) {
  auto n = platform::make_runtime_normalizer("runtime-b");
  REQUIRE(n);
  std::string out;
  (*n)->feed(native, out);
  (*n)->finish(out);
  return out;
}

std::vector<json> lines_of(const std::string& messages) {
  std::vector<json> v;
  std::istringstream in(messages);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    REQUIRE_MESSAGE(!j.is_discarded(), "worker message is not JSON: " << line);
    v.push_back(std::move(j));
  }
  return v;
}

std::vector<json> of_type(const std::vector<json>& v, std::string_view type) {
  std::vector<json> r;
  for (const auto& j : v) {
    if (j.value("type", "") == type) r.push_back(j);
  }
  return r;
}

struct translation {
  std::vector<json> chunks;  // [DONE] excluded
  platform::bridge_outcome outcome;
  std::string sse;
};

// Native bytes → SSE through the bridge, and the well-formedness every body must have.
translation translate(std::string_view native) {
  platform::bridge_options opt;
  opt.message_id = "m";
  platform::bridge b(opt);
  translation t;
  b.feed(normalize(native), t.sse);
  b.finish(t.sse);
  t.outcome = b.outcome();
  platform::sse_parser parser;
  std::vector<std::string> events;
  REQUIRE(parser.feed(t.sse, events));
  REQUIRE_FALSE(parser.has_partial_event());
  REQUIRE(!events.empty());
  CHECK(events.back() == "[DONE]");
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    json j = json::parse(events[i], nullptr, false);
    REQUIRE(!j.is_discarded());
    REQUIRE(j.contains("type"));
    t.chunks.push_back(std::move(j));
  }
  auto report = platform::check_ui_stream(t.sse);
  CHECK_MESSAGE(report.ok, platform::stream_report_to_json(report));
  return t;
}

std::vector<json> chunks_of_type(const translation& t, std::string_view type) { return of_type(t.chunks, type); }

std::vector<json> outputs_for(const translation& t, std::string_view tool_id) {
  std::vector<json> r;
  for (const auto& c : t.chunks) {
    std::string type = c["type"];
    if ((type == "tool-output-available" || type == "tool-output-error") && c["toolCallId"] == tool_id) {
      r.push_back(c);
    }
  }
  return r;
}

json input_of(const translation& t, std::string_view tool_id) {
  for (const auto& c : chunks_of_type(t, "tool-input-available")) {
    if (c["toolCallId"] == tool_id) return c;
  }
  FAIL("no tool-input-available for " << tool_id);
  return {};
}

std::string text_of(const translation& t, std::string_view delta_type) {
  std::string s;
  for (const auto& c : chunks_of_type(t, delta_type)) s += c["delta"].get<std::string>();
  return s;
}

// The rules every translated body keeps: parts opened once and closed, tool outputs only
// after the tool's input, one finish per started message, finish last.
void check_invariants(const translation& t) {
  std::set<std::string> open_text, open_reasoning, tools_started, tools_available;
  int starts = 0, finishes = 0;
  REQUIRE(!t.chunks.empty());
  CHECK(t.chunks.back()["type"] == "finish");
  for (const auto& c : t.chunks) {
    std::string type = c["type"];
    CAPTURE(c.dump());
    if (type == "start") {
      CHECK(starts == finishes);
      ++starts;
    } else if (type == "finish") {
      ++finishes;
      CHECK(open_text.empty());
      CHECK(open_reasoning.empty());
    } else if (type == "text-start") {
      CHECK(open_text.insert(c["id"]).second);
    } else if (type == "text-delta") {
      CHECK(open_text.count(c["id"]) == 1);
    } else if (type == "text-end") {
      CHECK(open_text.erase(c["id"]) == 1);
    } else if (type == "reasoning-start") {
      CHECK(open_reasoning.insert(c["id"]).second);
    } else if (type == "reasoning-delta") {
      CHECK(open_reasoning.count(c["id"]) == 1);
    } else if (type == "reasoning-end") {
      CHECK(open_reasoning.erase(c["id"]) == 1);
    } else if (type == "tool-input-start") {
      tools_started.insert(c["toolCallId"]);
      CHECK(c["dynamic"] == true);
    } else if (type == "tool-input-available") {
      CHECK(tools_started.count(c["toolCallId"]) == 1);
      tools_available.insert(c["toolCallId"]);
    } else if (type == "tool-output-available" || type == "tool-output-error") {
      CHECK(tools_available.count(c["toolCallId"]) == 1);
    }
  }
  CHECK(starts == finishes);
}

// ---- synthetic transcripts (raw JSON-RPC, as the app-server prints them) --------------

const std::string thread_id = "thr-1";
const std::string turn_id = "turn-1";

std::string notify(const std::string& method, json params) {
  if (params.is_object() && !params.contains("threadId") && method != "thread/started") {
    params["threadId"] = thread_id;
  }
  return json{{"method", method}, {"params", params}}.dump() + "\n";
}

std::string thread_started() {
  return notify("thread/started", {{"thread", {{"id", thread_id}, {"model", "gpt-5.5"}}}});
}
std::string turn_started(const std::string& id = turn_id) {
  return notify("turn/started", {{"turn", {{"id", id}, {"status", "inProgress"}}}});
}
std::string turn_completed(const std::string& status, const std::string& id = turn_id, json error = nullptr) {
  return notify("turn/completed", {{"turn", {{"id", id}, {"status", status}, {"items", json::array()}, {"error", error}}}});
}
std::string item_event(const std::string& method, json item, const std::string& turn = turn_id) {
  return notify(method, {{"item", item}, {"turnId", turn}});
}
std::string delta(const std::string& method, const std::string& item_id, const std::string& text,
                  const std::string& turn = turn_id) {
  return notify(method, {{"itemId", item_id}, {"delta", text}, {"turnId", turn}});
}
json command(const std::string& id, const std::string& status, json output = nullptr, json exit_code = nullptr) {
  return {{"type", "commandExecution"},
          {"id", id},
          {"command", "/bin/bash -lc 'grep -r '\\''needle'\\'' src'"},
          {"cwd", "/w"},
          {"status", status},
          {"commandActions", json::array()},
          {"aggregatedOutput", output},
          {"exitCode", exit_code}};
}

}  // namespace

// ---- fixtures ----------------------------------------------------------------------------

TEST_CASE("every fixture translates to a well-formed stream that keeps the invariants") {
  int count = 0;
  for (const auto& e : fs::directory_iterator(fixture_dir)) {
    if (e.path().extension() != ".jsonl") continue;
    CAPTURE(e.path().string());
    check_invariants(translate(slurp(e.path())));
    ++count;
  }
  CHECK(count == 13);
}

TEST_CASE("the bare JSON-RPC lines translate as the capture form does") {
  // The worker feeds the app-server's stdout only: no wrapper, no client side.
  for (const auto& e : fs::directory_iterator(fixture_dir)) {
    if (e.path().extension() != ".jsonl") continue;
    CAPTURE(e.path().string());
    std::string raw;
    std::istringstream in(slurp(e.path()));
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::ordered_json::parse(line);  // keeps key order: outputs copy values as they are
      if (j["dir"] == "s2c") raw += j["msg"].dump() + "\n";
    }
    CHECK(translate(raw).sse == translate(slurp(e.path())).sse);
  }
}

TEST_CASE("a capture's seq or tMs past 18 digits takes the full parse and translates the same") {
  // The quick read of a line's start takes integers of up to 18 digits; a longer one sends the
  // line to simdjson. 19 nines (past INT64_MAX) once overflowed the quick read: undefined
  // behaviour, found by fuzz_runtime_b (its regression seed: overflow-seq-19-digits).
  for (const char* member : {R"({"seq":)", R"(,"tMs":)"}) {
    CAPTURE(member);
    std::string native = fixture("text-reasoning"), longer;
    std::istringstream in(native);
    for (std::string line; std::getline(in, line);) {
      auto at = line.find(member);
      REQUIRE(at != std::string::npos);
      at += std::strlen(member);
      line.replace(at, line.find(',', at) - at, "9999999999999999999");
      longer += line + "\n";
    }
    CHECK(longer != native);
    CHECK(translate(longer).sse == translate(native).sse);
  }
}

TEST_CASE("text-reasoning: summary parts, text, init and a result with the turn's usage") {
  std::string native = fixture("text-reasoning");
  auto messages = lines_of(normalize(native));
  auto init = of_type(messages, "system");
  REQUIRE(init.size() == 1);
  CHECK(init[0]["subtype"] == "init");
  CHECK(init[0]["session_id"] == "01a201b5-0f22-7693-8b33-c9d13996931d");
  CHECK(init[0]["model"] == "gpt-5.5");
  auto results = of_type(messages, "result");
  REQUIRE(results.size() == 1);
  CHECK(results[0]["is_error"] == false);
  CHECK(results[0]["stop_reason"] == "end_turn");
  CHECK(results[0]["result"] == "Hello, team! Happy to help today.");
  CHECK(results[0]["session_id"] == "01a201b5-0f22-7693-8b33-c9d13996931d");
  // input_tokens counts uncached input only, as runtime-a's usage does.
  CHECK(results[0]["usage"] == json{{"input_tokens", 1024},
                                    {"cache_creation_input_tokens", 0},
                                    {"cache_read_input_tokens", 4096},
                                    {"output_tokens", 64}});
  CHECK_FALSE(results[0].contains("total_cost_usd"));

  auto t = translate(native);
  CHECK(text_of(t, "reasoning-delta") ==
        "**Greeting the team**\n\nThe user wants a short, friendly hello.\n\n**Keeping it brief**\n\nNo tools needed.");
  CHECK(text_of(t, "text-delta") == "Hello, team! Happy to help today.");
  CHECK(chunks_of_type(t, "reasoning-end").size() == 1);
  CHECK(chunks_of_type(t, "text-end").size() == 1);
  CHECK(t.outcome.session_id == "01a201b5-0f22-7693-8b33-c9d13996931d");
  CHECK(t.outcome.model == "gpt-5.5");
  CHECK_FALSE(t.outcome.is_error);
}

TEST_CASE("command-exec: Bash with accumulated preliminary outputs, then the full output") {
  std::string native = fixture("command-exec");
  auto t = translate(native);
  auto input = input_of(t, "call_cmd_1");
  CHECK(input["toolName"] == "Bash");
  CHECK(input["input"]["command"] == "for i in 1 2 3; do echo \"line $i\"; sleep 0.3; done; echo done >&2");
  CHECK(input["input"]["cwd"] == "/workspace/app");
  auto outputs = outputs_for(t, "call_cmd_1");
  REQUIRE(outputs.size() == 4);
  CHECK(outputs[0]["preliminary"] == true);
  CHECK(outputs[0]["output"]["output"] == "line 2\n");
  CHECK(outputs[1]["output"]["output"] == "line 2\nline 3\n");
  CHECK(outputs[2]["output"]["output"] == "line 2\nline 3\ndone\n");
  CHECK(outputs[2]["preliminary"] == true);
  // The completed item is authoritative: "line 1" never came as a delta.
  CHECK_FALSE(outputs[3].contains("preliminary"));
  CHECK(outputs[3]["type"] == "tool-output-available");
  CHECK(outputs[3]["output"]["output"] == "line 1\nline 2\nline 3\ndone\n");
  CHECK(outputs[3]["output"]["exitCode"] == 0);
  CHECK(text_of(t, "text-delta") == "The command printed three lines and finished.");
  // Two model responses, two steps; usage is the sum of both responses' `last`.
  CHECK(chunks_of_type(t, "start-step").size() == 2);
  auto result = of_type(lines_of(normalize(native)), "result");
  REQUIRE(result.size() == 1);
  CHECK(result[0]["usage"]["output_tokens"] == 100);
  CHECK(result[0]["usage"]["cache_read_input_tokens"] == 10096);
  CHECK(result[0]["usage"]["input_tokens"] == 12300 - 10096);
}

TEST_CASE("command-approval: the approval request is not UI; the command's result is") {
  auto t = translate(fixture("command-approval"));
  CHECK(input_of(t, "call_cmda_1")["input"]["command"] == "echo approved-run && uname -s");
  auto outputs = outputs_for(t, "call_cmda_1");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["output"]["output"] == "approved-run\nLinux\n");
  CHECK(chunks_of_type(t, "error").empty());
  CHECK(text_of(t, "text-delta") == "It ran after approval.");
}

TEST_CASE("file-change: one Write or Edit per file, each result keeping the whole change list") {
  for (const char* name : {"file-change", "file-change-approval"}) {
    CAPTURE(name);
    auto t = translate(fixture(name));
    std::string item = std::string(name) == "file-change" ? "call_patch_1" : "call_patcha_1";
    auto readme = input_of(t, item + ":0");
    CHECK(readme["toolName"] == "Edit");
    CHECK(readme["input"]["file_path"] == "/workspace/app/README.md");
    CHECK(readme["input"]["kind"] == "update");
    CHECK(readme["input"]["diff"].get<std::string>().find("+A tiny demo workspace") != std::string::npos);
    CHECK_FALSE(readme["input"].contains("move_path"));
    auto removed = input_of(t, item + ":1");
    CHECK(removed["toolName"] == "Edit");
    CHECK(removed["input"]["file_path"] == "/workspace/app/obsolete.txt");
    CHECK(removed["input"]["kind"] == "delete");
    auto added = input_of(t, item + ":2");
    CHECK(added["toolName"] == "Write");
    CHECK(added["input"] == json{{"file_path", "/workspace/app/src/hello.txt"}, {"content", "hello from codex\n"}});
    for (int i = 0; i < 3; ++i) {
      auto outputs = outputs_for(t, item + ":" + std::to_string(i));
      REQUIRE(outputs.size() == 1);
      CHECK(outputs[0]["type"] == "tool-output-available");
      CHECK(outputs[0]["output"]["status"] == "completed");
      auto changes = outputs[0]["output"]["changes"];
      REQUIRE(changes.size() == 3);
      CHECK(changes[2] == json{{"path", "/workspace/app/src/hello.txt"}, {"kind", "add"}, {"diff", "hello from codex\n"}});
    }
    // turn/diff/updated is not shown as text.
    CHECK(text_of(t, "text-delta").find("diff --git") == std::string::npos);
  }
}

TEST_CASE("web-search: WebSearch resolved at once, WebFetch for opened and searched pages") {
  auto t = translate(fixture("web-search"));
  auto search = input_of(t, "ws_1");
  CHECK(search["toolName"] == "WebSearch");
  CHECK(search["input"] == json{{"query", "codex app-server protocol"}});
  auto open = input_of(t, "ws_2");
  CHECK(open["toolName"] == "WebFetch");
  CHECK(open["input"] == json{{"url", "https://example.com/docs"}});
  auto find = input_of(t, "ws_3");
  CHECK(find["toolName"] == "WebFetch");
  CHECK(find["input"] == json{{"url", "https://example.com/docs"}, {"pattern", "turn/start"}});
  for (const char* id : {"ws_1", "ws_2", "ws_3"}) {
    auto outputs = outputs_for(t, id);
    REQUIRE(outputs.size() == 1);
    CHECK(outputs[0]["type"] == "tool-output-available");
  }
  // Resolved at once: each output directly follows its input.
  for (std::size_t i = 0; i + 1 < t.chunks.size(); ++i) {
    if (t.chunks[i]["type"] == "tool-input-available") CHECK(t.chunks[i + 1]["type"] == "tool-output-available");
  }
}

TEST_CASE("turn-interrupt: the open text part is closed and the result says interrupted") {
  std::string native = fixture("turn-interrupt");
  auto t = translate(native);
  CHECK(text_of(t, "text-delta") == "Counting slowly: ");
  CHECK(chunks_of_type(t, "text-end").size() == 1);
  CHECK(chunks_of_type(t, "error").empty());
  auto result = of_type(lines_of(normalize(native)), "result");
  REQUIRE(result.size() == 1);
  CHECK(result[0]["stop_reason"] == "interrupted");
  CHECK(result[0]["is_error"] == false);
}

TEST_CASE("model-error: one error, then finish") {
  auto t = translate(fixture("model-error"));
  auto errors = chunks_of_type(t, "error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]["errorText"] == "stream disconnected before completion: The mock model had an internal error.");
  CHECK(t.chunks.back()["finishReason"] == "error");
  CHECK(t.outcome.is_error);
}

TEST_CASE("mcp-tool-call: mcp__platform__present_plan with its arguments and result") {
  auto t = translate(fixture("mcp-tool-call"));
  auto input = input_of(t, "call_mcp_2");
  CHECK(input["toolName"] == "mcp__platform__present_plan");
  CHECK(input["input"]["title"] == "Add health endpoint");
  CHECK(input["input"]["steps"].size() == 3);
  auto outputs = outputs_for(t, "call_mcp_2");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["output"]["structuredContent"] == json{{"accepted", true}, {"stepCount", 3}});
  CHECK(outputs[0]["output"]["content"][0]["text"] == "Plan \"Add health endpoint\" presented with 3 steps.");
  CHECK(t.outcome.approval_stop);
  CHECK(t.outcome.approval_tool == "mcp__platform__present_plan");
}

TEST_CASE("mcp-tool-call-declined: the rejection is the tool's error; the turn completes") {
  auto t = translate(fixture("mcp-tool-call-declined"));
  auto outputs = outputs_for(t, "call_mcpd_2");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["type"] == "tool-output-error");
  CHECK(outputs[0]["errorText"] == "user rejected MCP tool call");
  CHECK_FALSE(t.outcome.approval_stop);
  CHECK(t.chunks.back()["finishReason"] == "stop");
}

TEST_CASE("mcp-tool-call-elicitation: the user's form answer reaches the tool result") {
  auto t = translate(fixture("mcp-tool-call-elicitation"));
  auto outputs = outputs_for(t, "call_mcpe_2");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["output"]["structuredContent"]["elicitation"]["content"]["comment"] == "Looks good");
}

TEST_CASE("resume-existing: one init for the thread, two turns, replayed usage not counted") {
  std::string native = fixture("resume-existing");
  auto messages = lines_of(normalize(native));
  CHECK(of_type(messages, "system").size() == 1);
  auto results = of_type(messages, "result");
  REQUIRE(results.size() == 2);
  CHECK(results[0]["usage"]["output_tokens"] == 12);
  // The second turn's own response only, not the stored total replayed at its start.
  CHECK(results[1]["usage"]["output_tokens"] == 12);
  CHECK(results[1]["result"] == "You asked earlier; the codename is ORCHID.");
  auto t = translate(native);
  CHECK(chunks_of_type(t, "finish").size() == 2);
}

TEST_CASE("resume-missing: a missing rollout is silent, the other refusals are errors") {
  auto t = translate(fixture("resume-missing"));
  auto errors = chunks_of_type(t, "error");
  REQUIRE(errors.size() == 2);
  CHECK(errors[0]["errorText"].get<std::string>().rfind("invalid session id", 0) == 0);
  CHECK(errors[1]["errorText"] == "thread not found: 01a20000-0000-7000-8000-000000000000");
  CHECK(t.sse.find("no rollout found") == std::string::npos);
}

// ---- synthetic cases -----------------------------------------------------------------------

TEST_CASE("a failed command is a tool error with its exit code; a declined one says so") {
  std::string native = thread_started() + turn_started() +
                       item_event("item/started", command("c1", "inProgress")) +
                       item_event("item/completed", command("c1", "failed", "no match\n", 2)) +
                       item_event("item/started", command("c2", "inProgress")) +
                       item_event("item/completed", command("c2", "declined")) + turn_completed("completed");
  auto t = translate(native);
  check_invariants(t);
  CHECK(input_of(t, "c1")["input"]["command"] == "grep -r 'needle' src");
  auto failed = outputs_for(t, "c1");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0]["type"] == "tool-output-error");
  CHECK(failed[0]["errorText"] == "Exit code 2\nno match\n");
  auto declined = outputs_for(t, "c2");
  REQUIRE(declined.size() == 1);
  CHECK(declined[0]["errorText"] == "The command was declined.");
}

TEST_CASE("an interrupted turn fails its running tools and ignores what the runtime sends late") {
  std::string native = thread_started() + turn_started() +
                       item_event("item/started", command("c1", "inProgress")) +
                       delta("item/commandExecution/outputDelta", "c1", "partial\n") +
                       turn_completed("interrupted") +
                       delta("item/commandExecution/outputDelta", "c1", "late\n") +
                       item_event("item/completed", command("c1", "completed", "partial\nlate\n", 0));
  auto t = translate(native);
  check_invariants(t);
  auto outputs = outputs_for(t, "c1");
  REQUIRE(outputs.size() == 2);
  CHECK(outputs[0]["preliminary"] == true);
  CHECK(outputs[1]["type"] == "tool-output-error");
  CHECK(chunks_of_type(t, "start").size() == 1);
  CHECK(t.sse.find("late") == std::string::npos);
}

TEST_CASE("an agentMessage without deltas is shown from its completed text; missed tails are filled") {
  std::string native =
      thread_started() + turn_started() +
      item_event("item/started", {{"type", "agentMessage"}, {"id", "a1"}, {"text", ""}}) +
      item_event("item/completed", {{"type", "agentMessage"}, {"id", "a1"}, {"text", "Whole reply."}}) +
      item_event("item/started", {{"type", "agentMessage"}, {"id", "a2"}, {"text", ""}}) +
      delta("item/agentMessage/delta", "a2", "Hello") +
      item_event("item/completed", {{"type", "agentMessage"}, {"id", "a2"}, {"text", "Hello world"}}) +
      item_event("item/started", {{"type", "reasoning"}, {"id", "r1"}, {"summary", json::array()}}) +
      item_event("item/completed", {{"type", "reasoning"}, {"id", "r1"}, {"summary", {"One", "Two"}}}) +
      turn_completed("completed");
  auto t = translate(native);
  check_invariants(t);
  CHECK(text_of(t, "text-delta") == "Whole reply.Hello world");
  CHECK(text_of(t, "reasoning-delta") == "One\n\nTwo");
  auto result = of_type(lines_of(normalize(native)), "result");
  REQUIRE(result.size() == 1);
  CHECK(result[0]["result"] == "Hello world");
}

TEST_CASE("retrying errors are progress, not errors; a final error outside a turn is reported") {
  std::string retry = notify("error", {{"error", {{"message", "Reconnecting... 1/5"}}}, {"willRetry", true}});
  std::string final_error = notify("error", {{"error", {{"message", "usage limit"}}}, {"willRetry", false}});
  auto t = translate(thread_started() + retry + final_error);
  auto errors = chunks_of_type(t, "error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]["errorText"] == "usage limit");
  // Inside a turn the final error and the failed turn make one error.
  auto failed = translate(thread_started() + turn_started() + retry + final_error +
                          turn_completed("failed", turn_id, {{"message", "usage limit"}}));
  CHECK(chunks_of_type(failed, "error").size() == 1);
}

TEST_CASE("file changes: a rename keeps its target, a single file uses the item id, failures are errors") {
  json rename = {{"type", "fileChange"},
                 {"id", "p1"},
                 {"status", "inProgress"},
                 {"changes", {{{"path", "/w/a.txt"}, {"kind", {{"type", "update"}, {"move_path", "/w/b.txt"}}}, {"diff", "@@ -1 +1 @@\n-a\n+b\n"}}}}};
  json done = rename;
  done["status"] = "declined";
  auto t = translate(thread_started() + turn_started() + item_event("item/started", rename) +
                     item_event("item/completed", done) + turn_completed("completed"));
  check_invariants(t);
  auto input = input_of(t, "p1");
  CHECK(input["toolName"] == "Edit");
  CHECK(input["input"]["move_path"] == "/w/b.txt");
  auto outputs = outputs_for(t, "p1");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["type"] == "tool-output-error");
  CHECK(outputs[0]["errorText"] == "The file change was declined.");
}

TEST_CASE("a web search completed again updates the same tool call") {
  json first = {{"type", "webSearch"}, {"id", "w1"}, {"query", "q"}, {"action", {{"type", "search"}, {"query", "q"}}}, {"results", nullptr}};
  json again = first;
  again["results"] = json::array({{{"url", "https://a.example/"}}});
  auto t = translate(thread_started() + turn_started() + item_event("item/completed", first) +
                     item_event("item/completed", again) + item_event("item/completed", again) +
                     turn_completed("completed"));
  check_invariants(t);
  CHECK(chunks_of_type(t, "tool-input-start").size() == 1);
  auto outputs = outputs_for(t, "w1");
  REQUIRE(outputs.size() == 2);
  CHECK(outputs[1]["output"]["results"][0]["url"] == "https://a.example/");
}

TEST_CASE("MCP servers of the app get canonical names; a failed call without a message is an error") {
  json call = {{"type", "mcpToolCall"}, {"id", "m1"}, {"server", "app_tools"}, {"tool", "send_invoice"},
               {"status", "inProgress"}, {"arguments", {{"amount", 3}}}};
  json failed = call;
  failed["status"] = "failed";
  failed["result"] = {{"content", {{{"type", "text"}, {"text", "provider said no"}}}}, {"isError", true}};
  auto t = translate(thread_started() + turn_started() + item_event("item/started", call) +
                     item_event("item/completed", failed) + turn_completed("completed"));
  check_invariants(t);
  CHECK(input_of(t, "m1")["toolName"] == "mcp__app_tools__send_invoice");
  auto outputs = outputs_for(t, "m1");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["errorText"] == "provider said no");
}

TEST_CASE("a huge command output keeps preliminary updates bounded") {
  std::string native = thread_started() + turn_started() + item_event("item/started", command("c1", "inProgress"));
  std::string line(100, 'x');
  line += "\n";
  for (int i = 0; i < 5000; ++i) native += delta("item/commandExecution/outputDelta", "c1", line);
  native += item_event("item/completed", command("c1", "completed", "all", 0)) + turn_completed("completed");
  std::size_t output_bytes = 5000 * line.size();
  auto t = translate(native);
  check_invariants(t);
  auto outputs = outputs_for(t, "c1");
  REQUIRE(outputs.size() > 10);
  std::size_t shown = 0;
  for (const auto& o : outputs) {
    if (!o.contains("preliminary")) continue;
    auto text = o["output"]["output"].get<std::string>();
    CHECK(text.size() <= 16 * 1024);
    shown += text.size();
  }
  CHECK(shown <= 20 * output_bytes);
  CHECK(outputs.back()["output"]["output"] == "all");
  CHECK(outputs[outputs.size() - 2]["output"]["truncated"] == true);
}

TEST_CASE("malformed lines, unknown events and other threads change nothing") {
  std::string noise = "not json\n{\"method\":\n[1,2]\n{}\n" +
                      notify("mystery/event", {{"x", 1}}) +
                      notify("item/started", {{"threadId", "other-thread"}, {"turnId", "t9"},
                                              {"item", {{"type", "agentMessage"}, {"id", "z"}}}}) +
                      notify("turn/started", {{"threadId", "other-thread"}, {"turn", {{"id", "t9"}}}}) +
                      json{{"method", "item/commandExecution/requestApproval"}, {"id", 0}, {"params", {{"itemId", "c1"}}}}.dump() + "\n";
  std::string clean = thread_started() + turn_started() +
                      item_event("item/started", {{"type", "agentMessage"}, {"id", "a1"}}) +
                      delta("item/agentMessage/delta", "a1", "hi") +
                      item_event("item/completed", {{"type", "agentMessage"}, {"id", "a1"}, {"text", "hi"}}) +
                      turn_completed("completed");
  CHECK(normalize(noise).find("\"type\":\"system\"") == std::string::npos);
  std::string mixed = thread_started() + noise + clean.substr(thread_started().size());
  CHECK(translate(mixed).sse == translate(clean).sse);
}

TEST_CASE("the end of input mid-turn closes parts and tools without inventing a result") {
  std::string native = thread_started() + turn_started() +
                       item_event("item/started", {{"type", "agentMessage"}, {"id", "a1"}}) +
                       delta("item/agentMessage/delta", "a1", "half") +
                       item_event("item/started", command("c1", "inProgress"));
  auto messages = lines_of(normalize(native));
  CHECK(of_type(messages, "result").empty());
  auto t = translate(native);
  check_invariants(t);
  auto outputs = outputs_for(t, "c1");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["type"] == "tool-output-error");
}

TEST_CASE("a restarted app-server process ends the turn the old one left open") {
  auto wrap = [](int conn, const std::string& line) {
    return json{{"seq", 0}, {"conn", conn}, {"dir", "s2c"}, {"tMs", 0}, {"msg", json::parse(line)}}.dump() + "\n";
  };
  std::string native = wrap(0, thread_started()) + wrap(0, turn_started()) +
                       wrap(0, item_event("item/started", command("c1", "inProgress"))) +
                       wrap(1, turn_started("turn-2")) + wrap(1, turn_completed("completed", "turn-2"));
  auto t = translate(native);
  check_invariants(t);
  CHECK(chunks_of_type(t, "finish").size() == 2);
  auto outputs = outputs_for(t, "c1");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["errorText"] == "The runtime process restarted before this call finished.");
}

TEST_CASE("any split of the input gives the same worker messages") {
  std::string native = fixture("command-exec");
  std::string whole = normalize(native);
  for (std::size_t cut = 1; cut < native.size(); cut += 97) {
    auto n = platform::make_runtime_normalizer("runtime-b");
    std::string out;
    (*n)->feed(std::string_view(native).substr(0, cut), out);
    (*n)->feed(std::string_view(native).substr(cut), out);
    (*n)->finish(out);
    REQUIRE(out == whole);
  }
}

TEST_CASE("an item id used again in the same turn does not restart its tool call") {
  json web = {{"type", "webSearch"}, {"id", "c1"}, {"query", "q"}, {"action", {{"type", "search"}, {"query", "q"}}}};
  json call = {{"type", "mcpToolCall"}, {"id", "c1"}, {"server", "platform"}, {"tool", "x"}, {"status", "completed"}};
  std::string native = thread_started() + turn_started() +
                       item_event("item/started", command("c1", "inProgress")) +
                       item_event("item/completed", command("c1", "completed", "one", 0)) +
                       item_event("item/started", command("c1", "inProgress")) +
                       item_event("item/completed", command("c1", "failed", "two", 1)) +
                       item_event("item/completed", web) + item_event("item/completed", call) +
                       turn_completed("completed") + turn_started("turn-2") +
                       item_event("item/started", command("c1", "inProgress"), "turn-2") +
                       item_event("item/completed", command("c1", "completed", "three", 0), "turn-2") +
                       turn_completed("completed", "turn-2");
  auto t = translate(native);
  check_invariants(t);
  CHECK(chunks_of_type(t, "tool-input-start").size() == 2);  // once per turn
  auto outputs = outputs_for(t, "c1");
  REQUIRE(outputs.size() == 2);
  CHECK(outputs[0]["output"]["output"] == "one");
  CHECK(outputs[1]["output"]["output"] == "three");
}

}  // namespace runtime_b_test
