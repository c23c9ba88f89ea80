// The assistant message assembled from a UI message stream, as the AI SDK client builds it.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "platform/bridge.hpp"
#include "platform/ui_message.hpp"
#include "platform/ui_stream.hpp"
#include "platform/worker_message.hpp"

namespace ui_message_test {

using nlohmann::json;
namespace wm = platform::worker_message;

namespace {

json assemble(const std::string& sse) {
  platform::sse_parser p;
  std::vector<std::string> events;
  REQUIRE(p.feed(sse, events));
  platform::ui_message_assembler a;
  for (const auto& e : events) a.feed(e);
  return json::parse(a.message_json());
}

}  // namespace

TEST_CASE("text, reasoning and a dynamic tool with preliminary then final output") {
  std::string t;
  wm::message_start(t, "m1", "x");
  wm::thinking_block_start(t, 0);
  wm::thinking_delta(t, 0, "hmm");
  wm::block_stop(t, 0);
  wm::text_block_start(t, 1);
  wm::text_delta(t, 1, "Hello ");
  wm::text_delta(t, 1, "world");
  wm::block_stop(t, 1);
  wm::tool_use_block_start(t, 2, "call1", "Bash");
  wm::input_json_delta(t, 2, R"({"command":"ls"})");
  wm::block_stop(t, 2);
  wm::message_stop(t);
  wm::tool_result(t, "call1", R"("a")", false, true);
  wm::tool_result(t, "call1", R"("a\nb")");
  platform::bridge_options o;
  o.message_id = "assistant-1";
  json m = assemble(platform::translate_worker_messages(t, o));
  CHECK(m["id"] == "assistant-1");
  CHECK(m["role"] == "assistant");
  auto& parts = m["parts"];
  REQUIRE(parts.size() == 4);
  CHECK(parts[0]["type"] == "step-start");
  CHECK(parts[1] == json({{"type", "reasoning"}, {"text", "hmm"}, {"state", "done"}}));
  CHECK(parts[2] == json({{"type", "text"}, {"text", "Hello world"}, {"state", "done"}}));
  CHECK(parts[3]["type"] == "dynamic-tool");
  CHECK(parts[3]["toolName"] == "Bash");
  CHECK(parts[3]["state"] == "output-available");
  CHECK(parts[3]["input"] == json({{"command", "ls"}}));
  CHECK(parts[3]["output"] == "a\nb");
  CHECK_FALSE(parts[3].contains("preliminary"));
}

TEST_CASE("errors, unknown tool ids and garbage are recorded or skipped, never fatal") {
  platform::ui_message_assembler a;
  a.feed(R"({"type":"start","messageId":"m"})");
  a.feed("not json");
  a.feed(R"({"type":"text-delta","id":"nope","delta":"x"})");
  a.feed(R"({"type":"tool-output-available","toolCallId":"ghost","output":1})");
  a.feed(R"({"type":"tool-input-available","toolCallId":"c","toolName":"T","input":{}})");
  a.feed(R"({"type":"tool-output-error","toolCallId":"c","errorText":"boom"})");
  a.feed("[DONE]");
  json m = json::parse(a.message_json());
  REQUIRE(m["parts"].size() == 1);
  CHECK(m["parts"][0]["state"] == "output-error");
  CHECK(m["parts"][0]["errorText"] == "boom");
}

TEST_CASE("message lists: count and append") {
  CHECK(platform::count_ui_messages(R"([{"role":"user","parts":[]}])").value() == 1);
  CHECK_FALSE(platform::count_ui_messages(R"({"role":"user"})"));
  CHECK_FALSE(platform::count_ui_messages(R"([1])"));
  // Nested past what stored JSON may be: refused, not parsed.
  CHECK_FALSE(platform::count_ui_messages(R"([{"role":"user","metadata":)" + std::string(100000, '[') +
                                          std::string(100000, ']') + "}]"));
  CHECK_FALSE(platform::append_ui_message("[]", std::string(100000, '[') + std::string(100000, ']')));
  auto all = platform::append_ui_message(R"([{"role":"user"}])", R"({"role":"assistant"})");
  REQUIRE(all);
  CHECK(platform::count_ui_messages(*all).value() == 2);
}

TEST_CASE("a preliminary flag of another type than boolean is no flag, and no crash (a fuzz finding)") {
  platform::ui_message_assembler a;
  a.feed(R"({"type":"tool-input-available","toolCallId":"c","toolName":"Bash","input":{}})");
  a.feed(R"({"type":"tool-output-available","toolCallId":"c","output":"x","preliminary":"yes"})");
  json m = json::parse(a.message_json());
  CHECK(m["parts"][0]["state"] == "output-available");
  CHECK_FALSE(m["parts"][0].contains("preliminary"));
}

}  // namespace ui_message_test
