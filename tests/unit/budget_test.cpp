// Budgets (issue 37): the limits' rules, the month, the wire form, the per-step usage each
// runtime's accumulator reports, and a builder turn stopped by a budget.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/budget.hpp"
#include "platform/builder_turn.hpp"
#include "platform/usage.hpp"
#include "platform/worker_message.hpp"

namespace budget_test {

using namespace platform;
using nlohmann::json;

namespace {

spend_limit usd(double d) { return {d, std::nullopt}; }
spend_limit tokens(std::int64_t n) { return {std::nullopt, n}; }

run_usage usage_of(double cost, std::int64_t in, std::int64_t out) {
  run_usage u;
  u.add("m", {in, out, 0, 0, cost});
  return u;
}

// 2026-12-02T18:00:00Z and friends.
constexpr std::int64_t dec2 = 1796234400000;
constexpr std::int64_t dec1 = 1796083200000;   // 2026-12-01T00:00:00Z
constexpr std::int64_t jan1 = 1798761600000;   // 2027-01-01T00:00:00Z

}  // namespace

TEST_CASE("spend counts every token kind and the dollars; a limit is reached in either unit") {
  run_usage u;
  u.add("a", {10, 20, 30, 40, 0.5});
  auto s = spend_of(u);
  CHECK(s.usd == doctest::Approx(0.5));
  CHECK(s.tokens == 100);
  CHECK(usd(0.5).reached_by(s));
  CHECK_FALSE(usd(0.51).reached_by(s));
  CHECK(tokens(100).reached_by(s));
  CHECK_FALSE(tokens(101).reached_by(s));
  CHECK_FALSE(spend_limit{}.reached_by(s));
  CHECK(spend_limit{1.0, 200}.used_fraction(s) == doctest::Approx(0.5));
  CHECK(spend_limit{}.used_fraction(s) == 0);
}

TEST_CASE("an app's override replaces the workspace's default; the run cap depends on the kind") {
  budget_settings ws{usd(100), usd(10), usd(0.5), usd(0.25)};
  app_budget_overrides none;
  auto b = run_budget_of(ws, none, budget_run_kind::builder_turn);
  CHECK(b.workspace_monthly == usd(100));
  CHECK(b.app_monthly == usd(10));
  CHECK(b.run_cap == usd(0.5));
  CHECK(run_budget_of(ws, none, budget_run_kind::agent_run).run_cap == usd(0.25));
  app_budget_overrides mine{usd(20), spend_limit{}, std::nullopt};
  auto o = run_budget_of(ws, mine, budget_run_kind::builder_turn);
  CHECK(o.app_monthly == usd(20));
  CHECK(o.run_cap.unlimited());  // an empty override lifts the default
  CHECK(run_budget_of(ws, mine, budget_run_kind::agent_run).run_cap == usd(0.25));
}

TEST_CASE("a start past a spent budget is refused with who can raise it; the workspace's first") {
  run_budget b{usd(100), usd(10), usd(1)};
  CHECK_FALSE(refuse_start(b, {{50, 0}, {9.99, 0}}));
  auto app = refuse_start(b, {{50, 0}, {10, 0}});
  REQUIRE(app);
  CHECK(app->scope == budget_scope::app);
  CHECK(app->message == "This app's monthly budget of $10.00 is spent. A workspace admin can raise it on the app's Runs tab.");
  auto ws = refuse_start(b, {{100, 0}, {10, 0}});
  REQUIRE(ws);
  CHECK(ws->scope == budget_scope::workspace);
  CHECK(ws->message.find("A workspace admin can raise it") != std::string::npos);
}

TEST_CASE("a step stops the run at its cap, or at a spent monthly budget counting runs in flight") {
  run_budget b{usd(100), usd(10), usd(0.5)};
  CHECK_FALSE(stop_at_step(b, {0.49, 0}, {{1, 0}, {1, 0}}));
  auto cap = stop_at_step(b, {0.5, 0}, {{1, 0}, {1, 0}});
  REQUIRE(cap);
  CHECK(cap->scope == budget_scope::run);
  CHECK(cap->message == "Stopped: this run reached its $0.50 cap.");
  auto app = stop_at_step(b, {0.1, 0}, {{20, 0}, {10.2, 0}});
  REQUIRE(app);
  CHECK(app->message == "Stopped: this app's monthly budget of $10.00 is spent.");
  run_budget t{{}, {}, tokens(200000)};
  auto by_tokens = stop_at_step(t, {0, 200001}, {});
  REQUIRE(by_tokens);
  CHECK(by_tokens->message == "Stopped: this run reached its 200,000-token cap.");
}

TEST_CASE("monthly budgets warn at 80 %") {
  run_budget b{usd(100), usd(10), {}};
  CHECK(budgets_to_warn(b, {{79, 0}, {7.9, 0}}).empty());
  auto both = budgets_to_warn(b, {{80, 0}, {8, 0}});
  REQUIRE(both.size() == 2);
  CHECK(both[0] == budget_scope::app);
  CHECK(both[1] == budget_scope::workspace);
  CHECK(budgets_to_warn(run_budget{}, {{1e6, 0}, {1e6, 0}}).empty());
}

TEST_CASE("the month is the UTC calendar month, December into January") {
  CHECK(budget_month_start(dec2) == dec1);
  CHECK(budget_month_start(dec1) == dec1);
  CHECK(budget_month_start(dec1 - 1) == 1793491200000);  // 2026-11-01
  CHECK(budget_month_end(dec2) == jan1);
  CHECK(budget_month_end(1801000000000) == 1801440000000);  // in January 2027: 2027-02-01
  CHECK(budget_month_end(1801440000000) == 1803859200000);  // February 2027 has 28 days
}

TEST_CASE("limits and overrides round-trip their wire form; bad input names its field") {
  budget_settings s{usd(100), {0.5, 1000}, {}, tokens(5)};
  auto back = budget_settings_from_json(budget_settings_to_json(s));
  REQUIRE(back);
  CHECK(*back == s);
  app_budget_overrides o{std::nullopt, spend_limit{}, usd(2)};
  auto o2 = app_budget_overrides_from_json(app_budget_overrides_to_json(o));
  REQUIRE(o2);
  CHECK(*o2 == o);
  CHECK(budget_settings_from_json("{}").value() == budget_settings{});
  for (const char* bad : {"[]", "nope", R"({"monthly":{}})", R"({"appMonthly":{"usd":-1}})", R"({"appMonthly":{"usd":"5"}})",
                          R"({"appMonthly":{"tokens":1.5}})", R"({"appMonthly":{"usd":1,"eur":2}})", R"({"appMonthly":3})",
                          R"({"appMonthly":{"usd":1e10}})"}) {
    auto r = budget_settings_from_json(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == platform::api_error::invalid_body);
  }
  auto named = budget_settings_from_json(R"({"builderTurn":{"usd":0}})");
  REQUIRE_FALSE(named);
  CHECK(named.error().message.find("builderTurn.usd") != std::string::npos);
  CHECK_FALSE(app_budget_overrides_from_json(R"({"workspaceMonthly":null})"));
  CHECK(describe_limit(spend_limit{0.5, 200000}) == "$0.50 or 200,000 tokens");
  CHECK(describe_limit({}) == "no limit");
}

TEST_CASE("runtime-a: the usage so far after each model call, once per message, priced from the table") {
  usage_context ctx;
  ctx.model = "claude-x";
  ctx.pricing["claude-x"] = {1, 10, 0, 0};  // $/MTok
  auto acc = make_usage_accumulator("runtime-a", ctx);
  REQUIRE(acc);
  auto& a = **acc;
  std::string call1 = R"({"type":"assistant","message":{"id":"m1","model":"claude-x","content":[],"usage":{"input_tokens":1000000,"output_tokens":100000}}})";
  CHECK_FALSE(a.feed_line(call1));
  auto p1 = a.progress();
  REQUIRE(p1);
  CHECK(p1->total_cost_usd == doctest::Approx(2.0));
  CHECK_FALSE(a.progress());  // once per change
  a.feed_line(call1);  // the CLI repeats the message per content block
  CHECK_FALSE(a.progress());
  a.feed_line(R"({"type":"assistant","message":{"id":"m2","model":"claude-x","content":[],"usage":{"input_tokens":1000000,"output_tokens":0}}})");
  auto p2 = a.progress();
  REQUIRE(p2);
  CHECK(p2->total_cost_usd == doctest::Approx(3.0));
  CHECK(p2->total_input_tokens == 2000000);
  // The result's own figure is what is recorded, and the next turn starts from nothing.
  auto turn = a.feed_line(R"({"type":"result","subtype":"success","total_cost_usd":3.1,"modelUsage":{"claude-x":{"inputTokens":2000000,"outputTokens":100000,"costUSD":3.1}}})");
  REQUIRE(turn);
  CHECK(turn->total_cost_usd == doctest::Approx(3.1));
  CHECK_FALSE(a.progress());
}

TEST_CASE("runtime-b and runtime-c: the usage so far after each step") {
  usage_context ctx;
  ctx.model = "gpt-x";
  ctx.pricing["gpt-x"] = {1, 10, 0.1, 1};
  auto b = make_usage_accumulator("runtime-b", ctx);
  REQUIRE(b);
  (*b)->feed_line(R"({"method":"turn/started","params":{"turn":{"id":"t1"}}})");
  CHECK_FALSE((*b)->progress());
  (*b)->feed_line(R"({"method":"thread/tokenUsage/updated","params":{"turnId":"t1","tokenUsage":{"last":{"inputTokens":1000000,"cachedInputTokens":0,"outputTokens":0}}}})");
  auto p = (*b)->progress();
  REQUIRE(p);
  CHECK(p->total_cost_usd == doctest::Approx(1.0));
  (*b)->feed_line(R"({"method":"thread/tokenUsage/updated","params":{"turnId":"t1","tokenUsage":{"last":{"inputTokens":1000000,"cachedInputTokens":0,"outputTokens":0}}}})");
  REQUIRE((*b)->progress());
  CHECK((*b)->feed_line(R"({"method":"turn/completed","params":{"turn":{"id":"t1"}}})")->total_cost_usd == doctest::Approx(2.0));
  CHECK_FALSE((*b)->progress());

  auto c = make_usage_accumulator("runtime-c", ctx);
  REQUIRE(c);
  (*c)->feed_line(R"({"type":"step_finish","part":{"cost":0.25,"tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}}})");
  auto c1 = (*c)->progress();
  REQUIRE(c1);
  CHECK(c1->total_cost_usd == doctest::Approx(0.25));
  (*c)->feed_line(R"({"type":"step_finish","part":{"cost":0.25,"tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}}})");
  CHECK((*c)->progress()->total_cost_usd == doctest::Approx(0.5));
  CHECK((*c)->finish()->total_cost_usd == doctest::Approx(0.5));
}

TEST_CASE("the step usage line round-trips and is nothing of the stream; a budget stop aborts with its sentence") {
  std::string line;
  worker_message::step_usage(line, usage_of(0.3, 100, 10));
  REQUIRE(line.back() == '\n');
  line.pop_back();
  auto back = worker_message::step_usage_of(line);
  REQUIRE(back);
  CHECK(back->total_cost_usd == doctest::Approx(0.3));
  CHECK_FALSE(worker_message::step_usage_of(R"({"type":"result","usage":{}})"));
  CHECK_FALSE(worker_message::step_usage_of(R"({"type":"platform_step_usage","usage":7})"));

  builder_turn t({"msg-1", {}});
  std::string start;
  worker_message::message_start(start, "m1", "model");
  start.pop_back();
  CHECK_FALSE(t.feed(start).events.empty());
  CHECK(t.feed(line).events.empty());
  auto so_far = t.take_step_usage();
  REQUIRE(so_far);
  CHECK(so_far->total_input_tokens == 100);
  CHECK_FALSE(t.take_step_usage());

  builder_turn_end how;
  how.stop_requested = true;
  how.stop_code = std::string(budget_stop_code);
  how.stop_message = "Stopped: this run reached its $0.50 cap.";
  auto out = t.end(how);
  bool aborted = false;
  for (auto e : out.events) {
    if (e.find(R"("type":"abort")") == std::string_view::npos) continue;
    aborted = true;
    CHECK(json::parse(e.substr(6, e.size() - 8))["reason"] == "Stopped: this run reached its $0.50 cap.");
  }
  CHECK(aborted);
  auto rec = t.record("[]", 0);
  CHECK(rec.status == run_status::failed);
  CHECK(rec.stop_reason == "budget");
  CHECK(rec.stop_message == "Stopped: this run reached its $0.50 cap.");
}

}  // namespace budget_test
