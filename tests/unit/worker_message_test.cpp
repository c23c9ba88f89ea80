// The worker's extensions of its message lines for the web server: a result line's
// platform_turn_usage and the platform_turn_end line, written and read back.
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

TEST_CASE("platform_turn_end: the closing line of a builder turn, written and read back") {
  namespace wm = worker_message;
  std::string out;
  wm::turn_end_line(out, {.workspace_changed = true, .session_state_json = R"({"runtimeId":"runtime-b","sessionId":"t1"})",
                          .build_digest = "sha256:ab"});
  wm::turn_end_line(out, {.workspace_changed = false, .session_state_json = "null"});
  wm::turn_end_line(out, {.workspace_changed = false});
  CHECK(out ==
        "{\"type\":\"platform_turn_end\",\"workspaceChanged\":true,\"sessionState\":{\"runtimeId\":\"runtime-b\",\"sessionId\":\"t1\"},"
        "\"buildDigest\":\"sha256:ab\"}\n"
        "{\"type\":\"platform_turn_end\",\"workspaceChanged\":false,\"sessionState\":null}\n"
        "{\"type\":\"platform_turn_end\",\"workspaceChanged\":false}\n");
  std::string_view rest(out);
  auto line = [&] {
    auto nl = rest.find('\n');
    auto l = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    return l;
  };
  auto a = wm::turn_end_of(line());
  REQUIRE(a);
  CHECK(a->workspace_changed);
  CHECK(a->session_state_json == R"({"runtimeId":"runtime-b","sessionId":"t1"})");
  CHECK(a->build_digest == "sha256:ab");
  auto b = wm::turn_end_of(line());
  REQUIRE(b);
  CHECK(b->session_state_json == "null");
  auto c = wm::turn_end_of(line());
  REQUIRE(c);
  CHECK(c->session_state_json.empty());  // not carried: the web asks for it
  // A session too large for a stream event is left out, not cut.
  std::string big;
  wm::turn_end_line(big, {.session_state_json = "{\"data\":\"" + std::string(wm::turn_end_max_session_bytes, 'x') + "\"}"});
  auto d = wm::turn_end_of(big.substr(0, big.size() - 1));
  REQUIRE(d);
  CHECK(d->session_state_json.empty());
  // Not well formed: no closing line at all.
  CHECK_FALSE(wm::turn_end_of(R"({"type":"platform_turn_end","workspaceChanged":"yes"})"));
  CHECK_FALSE(wm::turn_end_of(R"({"type":"platform_turn_end","workspaceChanged":true,"sessionState":"s"})"));
  CHECK_FALSE(wm::turn_end_of(R"({"type":"platform_turn_end","workspaceChanged":true,"buildDigest":1})"));
  CHECK_FALSE(wm::turn_end_of(R"({"type":"platform_turn_end",)"));
  CHECK_FALSE(wm::turn_end_of(R"({"type":"result","platform_turn_end":true})"));
}

}  // namespace worker_message_test
