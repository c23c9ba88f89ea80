// The worker's two broker rules a runtime cannot be trusted with (servers/worker/granted_turn):
// an approval stop ends the turn right after the card's tool result, and a turn whose runtime
// never connected to the broker fails instead of running without its tools.
#include <doctest/doctest.h>

#include <deque>

#include <nlohmann/json.hpp>

#include "broker.hpp"
#include "granted_turn.hpp"

using namespace platform::worker;
using nlohmann::json;

namespace {

// A runtime that replays scripted worker messages.
class scripted_turn final : public runtime_turn {
 public:
  explicit scripted_turn(std::deque<std::string> lines, bool* stopped) : lines_(std::move(lines)), stopped_(stopped) {}
  bool next(std::string& line) override {
    if (lines_.empty() || *stopped_) return false;
    line = lines_.front();
    lines_.pop_front();
    if (line.find("\"type\":\"result\"") != std::string::npos) result_ = true;
    return true;
  }
  std::optional<provider_session_state> session() const override {
    return provider_session_state{"runtime-a", "s-1", "{}"};
  }
  int exit_code() override { return 0; }
  bool result_seen() const override { return result_; }
  void stop() override { *stopped_ = true; }
  std::optional<platform::run_usage> stopped_usage() const override { return *stopped_ ? usage : std::nullopt; }
  // What the runtime reports for the turn once stopped (runtime-a: the result line it drains).
  std::optional<platform::run_usage> usage;

 private:
  std::deque<std::string> lines_;
  bool* stopped_;
  bool result_ = false;
};

std::vector<tool_binding> one_tool() {
  return {{{"mcp__platform__present_plan", "Plan", R"({"type":"object"})", {}},
           [](turn_context&, const platform::mcp_tool_call&) { return tool_outcome{"{}", false}; }}};
}

std::vector<json> drain(granted_turn& t) {
  std::vector<json> out;
  std::string line;
  while (t.next(line)) out.push_back(json::parse(line));
  return out;
}

const std::string assistant = R"({"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}})";
const std::string result = R"({"type":"result","subtype":"success","is_error":false,"result":"hi"})";
const std::string card_result =
    R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"{\"status\":\"awaiting_approval\"}"}]}})";

}  // namespace

TEST_CASE("a runtime that never connected to the broker gets an error before its result") {
  config cfg;
  broker b(cfg);
  auto lease = b.open(std::make_shared<turn_context>(), one_tool());
  REQUIRE(lease);
  bool stopped = false;
  granted_turn t(std::make_unique<scripted_turn>(std::deque<std::string>{assistant, result}, &stopped), std::move(*lease));
  auto lines = drain(t);
  REQUIRE(lines.size() == 3);
  CHECK(lines[1]["type"] == "error");
  CHECK(lines[1]["error"].get<std::string>().find("did not connect") != std::string::npos);
  CHECK(lines[2]["type"] == "result");
}

TEST_CASE("a turn without broker tools is not checked for a connection") {
  config cfg;
  broker b(cfg);
  auto lease = b.open(std::make_shared<turn_context>(), {});
  REQUIRE(lease);
  bool stopped = false;
  granted_turn t(std::make_unique<scripted_turn>(std::deque<std::string>{assistant, result}, &stopped), std::move(*lease));
  auto lines = drain(t);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1]["type"] == "result");
}

TEST_CASE("an approval stop ends the turn after the card's tool result with an approval_stop result") {
  config cfg;
  broker b(cfg);
  auto ctx = std::make_shared<turn_context>();
  auto lease = b.open(ctx, one_tool());
  REQUIRE(lease);
  bool stopped = false;
  granted_turn t(std::make_unique<scripted_turn>(std::deque<std::string>{assistant, card_result, assistant, result}, &stopped),
                 std::move(*lease));
  std::string line;
  REQUIRE(t.next(line));  // before the card: nothing to stop yet
  ctx->stop_requested = true;
  auto rest = drain(t);
  CHECK(stopped);
  REQUIRE(rest.size() == 2);
  CHECK(rest[0]["type"] == "user");
  CHECK(rest[1]["type"] == "result");
  CHECK(rest[1]["stop_reason"] == "approval_stop");
  CHECK(rest[1]["session_id"] == "s-1");
  CHECK(t.approval_stopped());
  CHECK(t.result_seen());
}

TEST_CASE("the approval stop's result carries what the stopped turn used") {
  config cfg;
  broker b(cfg);
  auto ctx = std::make_shared<turn_context>();
  auto lease = b.open(ctx, one_tool());
  REQUIRE(lease);
  bool stopped = false;
  auto turn = std::make_unique<scripted_turn>(std::deque<std::string>{card_result, result}, &stopped);
  platform::run_usage used;
  used.add("claude-opus-5-5", {.input_tokens = 1200, .output_tokens = 90, .cache_creation_input_tokens = 2000, .cost_usd = 0.0166});
  turn->usage = used;
  granted_turn t(std::move(turn), std::move(*lease));
  ctx->stop_requested = true;
  auto lines = drain(t);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1]["stop_reason"] == "approval_stop");
  CHECK(lines[1]["platform_turn_usage"] == json::parse(platform::run_usage_to_json(used)));
  CHECK(lines[1]["platform_turn_usage"]["totalInputTokens"] == 1200);
}

TEST_CASE("an approval stop without reported usage has no platform_turn_usage") {
  config cfg;
  broker b(cfg);
  auto ctx = std::make_shared<turn_context>();
  auto lease = b.open(ctx, one_tool());
  REQUIRE(lease);
  bool stopped = false;
  granted_turn t(std::make_unique<scripted_turn>(std::deque<std::string>{card_result, result}, &stopped), std::move(*lease));
  ctx->stop_requested = true;
  auto lines = drain(t);
  REQUIRE(lines.size() == 2);
  CHECK_FALSE(lines[1].contains("platform_turn_usage"));
}

TEST_CASE("a grant ends with its lease") {
  config cfg;
  broker b(cfg);
  {
    auto lease = b.open(std::make_shared<turn_context>(), one_tool());
    REQUIRE(lease);
    CHECK(b.live_grants() == 1);
    CHECK((*lease)->access().token.size() == 64);
    CHECK((*lease)->access().servers == std::vector<std::string>{"platform"});
  }
  CHECK(b.live_grants() == 0);
}

TEST_CASE("the grant ends when the turn's messages end, while the turn itself is still held") {
  config cfg;
  broker b(cfg);
  auto ctx = std::make_shared<turn_context>();
  auto lease = b.open(ctx, {});
  REQUIRE(lease);
  bool stopped = false;
  granted_turn t(std::make_unique<scripted_turn>(std::deque<std::string>{assistant, result}, &stopped), std::move(*lease));
  std::string line;
  REQUIRE(t.next(line));
  REQUIRE(t.next(line));
  CHECK(b.live_grants() == 1);  // the result line is not the end: the runtime may still be finishing
  CHECK_FALSE(t.next(line));
  CHECK(b.live_grants() == 0);
  CHECK(t.lease() == nullptr);
  CHECK(t.result_seen());
  CHECK(t.session()->session_id == "s-1");
}

TEST_CASE("an approval stop ends the grant with the turn") {
  config cfg;
  broker b(cfg);
  auto ctx = std::make_shared<turn_context>();
  auto lease = b.open(ctx, one_tool());
  REQUIRE(lease);
  bool stopped = false;
  granted_turn t(std::make_unique<scripted_turn>(std::deque<std::string>{card_result, assistant, result}, &stopped),
                 std::move(*lease));
  ctx->stop_requested = true;
  auto lines = drain(t);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1]["stop_reason"] == "approval_stop");
  CHECK(b.live_grants() == 0);
}
