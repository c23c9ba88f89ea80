// The worker's extensions of its message lines for the web server: a result line's
// platform_turn_usage and the workspace_changes line, written and read back.
#include <doctest/doctest.h>

#include "platform/worker_message.hpp"

namespace worker_message_test {

using namespace platform;

TEST_CASE("a result line carries the turn's usage, read back as written") {
  worker_message::result_fields r;
  r.session_id = "s1";
  r.stop_reason = "end_turn";
  std::string line;
  worker_message::result(line, r);
  line.pop_back();
  run_usage u;
  u.total_input_tokens = 120;
  u.total_output_tokens = 30;
  u.total_cost_usd = 0.0125;
  worker_message::add_turn_usage(line, u);
  auto back = worker_message::turn_usage(line);
  REQUIRE(back);
  CHECK(back->total_input_tokens == 120);
  CHECK(back->total_output_tokens == 30);
  CHECK(back->total_cost_usd == doctest::Approx(0.0125));
  CHECK(line.find(R"("session_id":"s1")") != std::string::npos);
}

TEST_CASE("usage only from a result line, and only a well-formed one") {
  CHECK_FALSE(worker_message::turn_usage(R"({"type":"result"})"));
  CHECK_FALSE(worker_message::turn_usage(R"({"type":"assistant","platform_turn_usage":{"inputTokens":1}})"));
  CHECK_FALSE(worker_message::turn_usage(R"({"type":"result","platform_turn_usage":7})"));
  CHECK_FALSE(worker_message::turn_usage(R"({"type":"result","platform_turn_usage":{)"));
  CHECK_FALSE(worker_message::turn_usage(std::string(5000, '[') + "\"platform_turn_usage\""));
  std::string not_object = "plain text";
  worker_message::add_turn_usage(not_object, run_usage{});
  CHECK(not_object == "plain text");
}

TEST_CASE("workspace_changes: one line each way, read back") {
  std::string out;
  worker_message::workspace_changes(out, true);
  worker_message::workspace_changes(out, false);
  CHECK(out == "{\"type\":\"workspace_changes\",\"changed\":true}\n{\"type\":\"workspace_changes\",\"changed\":false}\n");
  CHECK(worker_message::workspace_changed(R"({"type":"workspace_changes","changed":true})") == true);
  CHECK(worker_message::workspace_changed(R"({"type":"workspace_changes","changed":false})") == false);
  CHECK_FALSE(worker_message::workspace_changed(R"({"type":"workspace_changes","changed":"yes"})"));
  CHECK_FALSE(worker_message::workspace_changed(R"({"type":"result","workspace_changes":true})"));
  CHECK_FALSE(worker_message::workspace_changed(R"({"type":"workspace_changes")"));
}

}  // namespace worker_message_test
