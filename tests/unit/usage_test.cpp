#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "platform/api_error.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/usage.hpp"

namespace usage_test {

using namespace platform;
using doctest::Approx;

namespace {

std::string read_data(const std::string& name) {
  std::ifstream in(std::string(PLATFORM_TEST_DATA) + "/runtime/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing test data " << name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

usage_context context(std::string model = {}) {
  usage_context c;
  c.model = std::move(model);
  c.pricing = builtin_runtime_registry().pricing();
  return c;
}

std::vector<run_usage> turns(const std::string& runtime, const std::string& transcript, usage_context ctx) {
  auto t = turn_usages(runtime, transcript, std::move(ctx));
  REQUIRE(t.has_value());
  return *t;
}

run_usage only_turn(const std::string& runtime, const std::string& transcript, usage_context ctx) {
  auto t = turns(runtime, transcript, std::move(ctx));
  REQUIRE(t.size() == 1);
  return t[0];
}

// Tokens of one model, as {input, output, cacheRead, cacheCreation}.
void check_tokens(const run_usage& u, const std::string& model, std::int64_t in, std::int64_t out, std::int64_t read,
                  std::int64_t write) {
  REQUIRE_MESSAGE(u.by_model.count(model) == 1, model);
  const model_usage& m = u.by_model.at(model);
  CHECK(m.input_tokens == in);
  CHECK(m.output_tokens == out);
  CHECK(m.cache_read_input_tokens == read);
  CHECK(m.cache_creation_input_tokens == write);
}

std::string strip_member(const std::string& line, const char* key) {
  auto j = nlohmann::json::parse(line);
  j.erase(key);
  return j.dump();
}

}  // namespace

// ------------------------------------------------------------------ runtime-a

TEST_CASE("runtime-a: one result line gives that turn's usage and the CLI's cost") {
  // 1200 in, 42 out, 3000 cache read, 500 cache write on sonnet-4-5 at $3/$15/$0.30/$3.75:
  // 3600 + 630 + 900 + 1875 = 7005 µ$ = 0.007005 (the CLI reports 0.007004999999999999).
  auto u = only_turn("runtime-a", read_data("runtime-a-text-thinking-partial.result.json"), context());
  check_tokens(u, "claude-sonnet-4-5-20250929", 1200, 42, 3000, 500);
  CHECK(u.total_cost_usd == Approx(0.007005).epsilon(1e-9));
  CHECK(u.total_input_tokens == 1200);
  CHECK(u.total_output_tokens == 42);
  CHECK(u.total_cache_read_tokens == 3000);
  CHECK(u.total_cache_creation_tokens == 500);
  CHECK(u.cost_known());
}

TEST_CASE("runtime-a: the default model's cost is the CLI's; the table reproduces it") {
  // opus-5-5 at $4/$20/$0.20/$5: 4800 + 840 + 600 + 2500 = 8740 µ$.
  auto u = only_turn("runtime-a", read_data("runtime-a-text-default-model.result.json"), context());
  check_tokens(u, "claude-opus-5-5", 1200, 42, 3000, 500);
  CHECK(u.total_cost_usd == Approx(0.00874).epsilon(1e-9));
  auto p = builtin_runtime_registry().pricing().at("claude-opus-5-5");
  CHECK(cost_of(u.by_model.at("claude-opus-5-5"), p) == Approx(0.00874).epsilon(1e-9));
}

TEST_CASE("runtime-a: tool-write turn, two API calls summed by the CLI") {
  // 3150·3 + 100·15 + 1500·0.3 = 9450 + 1500 + 450 = 11400 µ$.
  auto u = only_turn("runtime-a", read_data("runtime-a-tool-write.result.json"), context());
  check_tokens(u, "claude-sonnet-4-5-20250929", 3150, 100, 1500, 0);
  CHECK(u.total_cost_usd == Approx(0.0114).epsilon(1e-9));
}

TEST_CASE("runtime-a: an error result with no model usage is an empty turn") {
  auto u = only_turn("runtime-a", read_data("runtime-a-error-401.result.json"), context());
  CHECK(u.by_model.empty());
  CHECK(u.total_cost_usd == 0);
  CHECK(u == run_usage{});
}

TEST_CASE("runtime-a: multi-turn process, per-result deltas add up to the cumulative totals") {
  // Turn 1: 1100 in, 12 out → 3300 + 180 = 3480 µ$. Turn 2: 1150 in, 14 out, 1100 cache read →
  // 3450 + 210 + 330 = 3990 µ$. The CLI's cumulative modelUsage after turn 2: 2250/26/1100, 0.00747.
  std::string transcript = read_data("runtime-a-cli-multi-turn.jsonl");
  auto t = turns("runtime-a", transcript, context());
  REQUIRE(t.size() == 2);
  check_tokens(t[0], "claude-sonnet-4-5-20250929", 1100, 12, 0, 0);
  CHECK(t[0].total_cost_usd == Approx(0.00348).epsilon(1e-9));
  check_tokens(t[1], "claude-sonnet-4-5-20250929", 1150, 14, 1100, 0);
  CHECK(t[1].total_cost_usd == Approx(0.00399).epsilon(1e-9));
  run_usage total = t[0] + t[1];
  check_tokens(total, "claude-sonnet-4-5-20250929", 2250, 26, 1100, 0);
  CHECK(total.total_cost_usd == Approx(0.00747).epsilon(1e-9));
  CHECK(total.total_input_tokens == 2250);
}

TEST_CASE("runtime-a: without the per-result delta, the cumulative values are differenced") {
  std::string transcript;
  std::string all = read_data("runtime-a-cli-multi-turn.jsonl");
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t nl = all.find('\n', start);
    std::string line = all.substr(start, nl - start);
    if (line.find("\"type\":\"result\"") != std::string::npos) line = strip_member(line, "model_usage_since_last_result");
    transcript += line + "\n";
    start = nl == std::string::npos ? all.size() : nl + 1;
  }
  auto t = turns("runtime-a", transcript, context());
  REQUIRE(t.size() == 2);
  check_tokens(t[0], "claude-sonnet-4-5-20250929", 1100, 12, 0, 0);
  check_tokens(t[1], "claude-sonnet-4-5-20250929", 1150, 14, 1100, 0);
  CHECK(t[1].total_cost_usd == Approx(0.00399).epsilon(1e-9));
}

TEST_CASE("runtime-a: a resumed session needs the baseline when only cumulative values exist") {
  std::string line = read_data("runtime-a-resume.result.json");
  // With the delta: turn 2 only.
  auto with_delta = only_turn("runtime-a", line, context());
  check_tokens(with_delta, "claude-sonnet-4-5-20250929", 1150, 14, 1100, 0);
  CHECK(with_delta.total_cost_usd == Approx(0.00399).epsilon(1e-9));

  std::string cumulative_only = strip_member(line, "model_usage_since_last_result");
  // Without it and without a baseline the whole session is counted (turn 1 again).
  auto whole = only_turn("runtime-a", cumulative_only, context());
  check_tokens(whole, "claude-sonnet-4-5-20250929", 2250, 26, 1100, 0);
  // With turn 1's usage as the baseline, only turn 2 remains.
  usage_context ctx = context();
  ctx.baseline.add("claude-sonnet-4-5-20250929", {1100, 12, 0, 0, 0.00348});
  auto delta = only_turn("runtime-a", cumulative_only, ctx);
  check_tokens(delta, "claude-sonnet-4-5-20250929", 1150, 14, 1100, 0);
  CHECK(delta.total_cost_usd == Approx(0.00399).epsilon(1e-9));
}

TEST_CASE("runtime-a: a cumulative value that went down starts over") {
  std::string first = R"({"type":"result","modelUsage":{"m":{"inputTokens":100,"outputTokens":10,"costUSD":0.5}}})";
  std::string second = R"({"type":"result","modelUsage":{"m":{"inputTokens":40,"outputTokens":4,"costUSD":0.2}}})";
  auto t = turns("runtime-a", first + "\n" + second + "\n", context());
  REQUIRE(t.size() == 2);
  check_tokens(t[1], "m", 40, 4, 0, 0);
  CHECK(t[1].total_cost_usd == Approx(0.2));
}

TEST_CASE("runtime-a: a guessed cost (costBasis unknown) is replaced by the table or marked unknown") {
  std::string known = R"({"type":"result","model_usage_since_last_result":{"claude-sonnet-4-5":{"inputTokens":1000,)"
                      R"("outputTokens":100,"costUSD":9.99,"costBasis":"unknown"}}})";
  auto u = only_turn("runtime-a", known, context());
  CHECK(u.total_cost_usd == Approx(0.0045));  // 1000·3 + 100·15 = 4500 µ$
  CHECK(u.cost_known());
  std::string unknown = R"({"type":"result","model_usage_since_last_result":{"claude-nova-1":{"inputTokens":1000,)"
                        R"("outputTokens":100,"costUSD":9.99,"costBasis":"unknown"}}})";
  auto v = only_turn("runtime-a", unknown, context());
  check_tokens(v, "claude-nova-1", 1000, 100, 0, 0);
  CHECK(v.total_cost_usd == 0);
  CHECK(v.cost_unknown_models == std::vector<std::string>{"claude-nova-1"});
}

TEST_CASE("runtime-a: other lines and broken lines are ignored") {
  std::string text = "not json\n{\"type\":\"result\"\n{\"type\":\"assistant\",\"result\":1}\n[1,2]\n";
  CHECK(turns("runtime-a", text, context()).empty());
}

// ------------------------------------------------------------------ runtime-b

TEST_CASE("runtime-b: tokens of a turn, cached input priced once") {
  // last: 5120 in of which 4096 cached, 64 out (32 of them reasoning) on gpt-5.5 ($5/$0.50/$30):
  // uncached 1024·5 = 5120, cached 4096·0.5 = 2048, output 64·30 = 1920 → 9088 µ$.
  auto u = only_turn("runtime-b", read_data("runtime-b-text-reasoning.jsonl"), context("gpt-5.5"));
  check_tokens(u, "gpt-5.5", 1024, 64, 4096, 0);
  CHECK(u.total_cost_usd == Approx(0.009088).epsilon(1e-9));
  CHECK(u.cost_known());
}

TEST_CASE("runtime-b: two model responses in one turn are summed") {
  // 6000 + 6300 = 12300 in, 4096 + 6000 = 10096 cached, 80 + 20 = 100 out:
  // 2204·5 + 10096·0.5 + 100·30 = 11020 + 5048 + 3000 = 19068 µ$.
  auto u = only_turn("runtime-b", read_data("runtime-b-command-exec.jsonl"), context());
  check_tokens(u, "gpt-5.5", 2204, 100, 10096, 0);  // model taken from thread/started
  CHECK(u.total_cost_usd == Approx(0.019068).epsilon(1e-9));
}

TEST_CASE("runtime-b: a resumed thread's replayed totals are not counted again") {
  // Turn 1: 5000 in, 12 out → 25000 + 360 = 25360 µ$. The restarted app-server replays turn 1's
  // usage before turn 2 starts. Turn 2: 5100 in, 5000 cached, 12 out → 500 + 2500 + 360 = 3360 µ$.
  auto t = turns("runtime-b", read_data("runtime-b-resume-existing.jsonl"), context("gpt-5.5"));
  REQUIRE(t.size() == 2);
  check_tokens(t[0], "gpt-5.5", 5000, 12, 0, 0);
  CHECK(t[0].total_cost_usd == Approx(0.02536).epsilon(1e-9));
  check_tokens(t[1], "gpt-5.5", 100, 12, 5000, 0);
  CHECK(t[1].total_cost_usd == Approx(0.00336).epsilon(1e-9));
  CHECK((t[0] + t[1]).total_cost_usd == Approx(0.02872).epsilon(1e-9));
}

TEST_CASE("runtime-b: an interrupted turn before any response used nothing") {
  auto u = only_turn("runtime-b", read_data("runtime-b-turn-interrupt.jsonl"), context("gpt-5.5"));
  CHECK(u == run_usage{});
}

TEST_CASE("runtime-b: unknown pricing records tokens, cost 0 and says so") {
  usage_context ctx = context("gpt-5.5");
  ctx.pricing.clear();
  auto u = only_turn("runtime-b", read_data("runtime-b-text-reasoning.jsonl"), ctx);
  check_tokens(u, "gpt-5.5", 1024, 64, 4096, 0);
  CHECK(u.total_cost_usd == 0);
  CHECK_FALSE(u.cost_known());
  CHECK(u.cost_unknown_models == std::vector<std::string>{"gpt-5.5"});
  auto j = nlohmann::json::parse(run_usage_to_json(u));
  CHECK(j["costUnknownModels"] == nlohmann::json::array({"gpt-5.5"}));
}

TEST_CASE("runtime-b: raw JSON-RPC lines; a turn cut off is flushed by finish()") {
  auto acc = make_usage_accumulator("runtime-b", context("gpt-5.4"));
  REQUIRE(acc.has_value());
  auto& a = **acc;
  CHECK(!a.feed_line(R"({"method":"turn/started","params":{"threadId":"T","turn":{"id":"U1"}}})"));
  CHECK(!a.feed_line(R"({"method":"thread/tokenUsage/updated","params":{"threadId":"T","turnId":"OTHER","tokenUsage":{"last":{"inputTokens":999}}}})"));
  CHECK(!a.feed_line(R"({"method":"thread/tokenUsage/updated","params":{"threadId":"T","turnId":"U1","tokenUsage":{"last":{"inputTokens":1000,"cachedInputTokens":200,"outputTokens":10}}}})"));
  // Completion of another turn id does not close this one.
  CHECK(!a.feed_line(R"({"method":"turn/completed","params":{"threadId":"T","turn":{"id":"U0","status":"completed"}}})"));
  auto u = a.finish();
  REQUIRE(u.has_value());
  check_tokens(*u, "gpt-5.4", 800, 10, 200, 0);
  // gpt-5.4 at $2.50/$0.25/$15: 2000 + 50 + 150 = 2200 µ$.
  CHECK(u->total_cost_usd == Approx(0.0022).epsilon(1e-9));
  CHECK(!a.finish());
}

// ------------------------------------------------------------------ runtime-c

TEST_CASE("runtime-c: one step, reasoning billed as output, cost from the step") {
  // 1000 in, 12 + 8 reasoning out, 200 cache read; cost 0.00106 = 1000·1 + 20·2 + 200·0.1 µ$.
  auto u = only_turn("runtime-c", read_data("runtime-c-text-reasoning.jsonl"), context("mock/mock-model"));
  check_tokens(u, "mock/mock-model", 1000, 20, 200, 0);
  CHECK(u.total_cost_usd == Approx(0.00106).epsilon(1e-9));
  CHECK(u.cost_known());
}

TEST_CASE("runtime-c: three steps of one run are one turn") {
  // 5000 + 100 + 100 in, 40 + 30 + 10 out, 0 + 5000 + 5100 cache read; 0.00508 + 0.00066 + 0.00063.
  auto u = only_turn("runtime-c", read_data("runtime-c-tool-bash-write.jsonl"), context("mock/mock-model"));
  check_tokens(u, "mock/mock-model", 5200, 80, 10100, 0);
  CHECK(u.total_cost_usd == Approx(0.00637).epsilon(1e-9));
}

TEST_CASE("runtime-c: a step without cost is priced from the table, else unknown") {
  std::string step = R"({"type":"step_finish","part":{"tokens":{"input":1000,"output":10,"reasoning":0,"cache":{"read":0,"write":0}}}})";
  usage_context priced = context("mock/mock-model");
  priced.pricing["mock/mock-model"] = {1, 2, 0.1, 0};
  auto u = only_turn("runtime-c", step, priced);
  CHECK(u.total_cost_usd == Approx(0.00102).epsilon(1e-9));
  auto v = only_turn("runtime-c", step, context("nosuch/model"));
  CHECK(v.total_cost_usd == 0);
  CHECK(v.cost_unknown_models == std::vector<std::string>{"nosuch/model"});
  CHECK(turns("runtime-c", "{\"type\":\"text\"}\n", context("x/y")).empty());
}

// ------------------------------------------------------------------ RunUsage

TEST_CASE("RunUsage JSON uses the spec's field names and round-trips") {
  run_usage u;
  u.add("claude-opus-5-5", {1200, 42, 3000, 500, 0.00874});
  u.add("gpt-5.5", {1024, 64, 4096, 0, 0.009088});
  u.mark_cost_unknown("x/y");
  std::string text = run_usage_to_json(u);
  CHECK(text ==
        R"({"totalCostUsd":0.017828,"totalInputTokens":2224,"totalOutputTokens":106,"totalCacheReadTokens":7096,)"
        R"("totalCacheCreationTokens":500,"byModel":{"claude-opus-5-5":{"inputTokens":1200,"outputTokens":42,)"
        R"("cacheReadInputTokens":3000,"cacheCreationInputTokens":500,"costUsd":0.00874},"gpt-5.5":{"inputTokens":1024,)"
        R"("outputTokens":64,"cacheReadInputTokens":4096,"cacheCreationInputTokens":0,"costUsd":0.009088}},)"
        R"("costUnknownModels":["x/y"]})");
  auto back = run_usage_from_json(text);
  REQUIRE(back.has_value());
  CHECK(*back == u);
  CHECK(run_usage_to_json(run_usage{}) ==
        R"({"totalCostUsd":0.0,"totalInputTokens":0,"totalOutputTokens":0,"totalCacheReadTokens":0,)"
        R"("totalCacheCreationTokens":0,"byModel":{}})");
}

TEST_CASE("RunUsage from JSON: missing fields are 0, wrong ones are errors") {
  auto empty = run_usage_from_json("{}");
  REQUIRE(empty.has_value());
  CHECK(*empty == run_usage{});
  auto doubles = run_usage_from_json(R"({"totalInputTokens":12.0,"byModel":{"m":{"inputTokens":12.0}}})");
  REQUIRE(doubles.has_value());
  CHECK(doubles->by_model.at("m").input_tokens == 12);

  CHECK(run_usage_from_json("[]").error().code == platform::api_error::usage_invalid_json);
  CHECK(run_usage_from_json("{").error().code == platform::api_error::usage_invalid_json);
  auto e = run_usage_from_json(R"({"totalInputTokens":-1})");
  CHECK(e.error().code == platform::api_error::usage_invalid_field);
  CHECK(e.error().message == "totalInputTokens must be a non-negative whole number");
  e = run_usage_from_json(R"({"byModel":{"gpt-5.5":{"outputTokens":1.5}}})");
  CHECK(e.error().message == "byModel[\"gpt-5.5\"].outputTokens must be a non-negative whole number");
  e = run_usage_from_json(R"({"byModel":{"m":{"costUsd":"1"}}})");
  CHECK(e.error().message == "byModel.m.costUsd must be a non-negative number");
  CHECK(run_usage_from_json(R"({"byModel":[]})").error().message == "byModel must be an object");
  CHECK(run_usage_from_json(R"({"costUnknownModels":[1]})").error().code == platform::api_error::usage_invalid_field);
}

TEST_CASE("RunUsage + RunUsage adds every field and merges the unknown-cost list") {
  run_usage a;
  a.add("m1", {10, 1, 100, 5, 0.1});
  a.mark_cost_unknown("z");
  run_usage b;
  b.add("m1", {20, 2, 200, 0, 0.2});
  b.add("m2", {1, 1, 1, 1, 0.7});
  b.mark_cost_unknown("a");
  b.mark_cost_unknown("z");
  run_usage s = a + b;
  check_tokens(s, "m1", 30, 3, 300, 5);
  check_tokens(s, "m2", 1, 1, 1, 1);
  CHECK(s.by_model.at("m1").cost_usd == Approx(0.3));
  CHECK(s.total_cost_usd == 1.0);  // rounded sums: no 0.30000000000000004
  CHECK(s.total_input_tokens == 31);
  CHECK(s.total_output_tokens == 4);
  CHECK(s.total_cache_read_tokens == 301);
  CHECK(s.total_cache_creation_tokens == 6);
  CHECK(s.cost_unknown_models == std::vector<std::string>{"a", "z"});
  // Accumulating turn by turn equals adding all at once.
  run_usage stepwise;
  stepwise += a;
  stepwise += b;
  CHECK(stepwise == s);
}

TEST_CASE("unknown runtime has no accumulator") {
  auto acc = make_usage_accumulator("runtime-z", {});
  REQUIRE_FALSE(acc.has_value());
  CHECK(acc.error().code == platform::api_error::unknown_runtime);
}

TEST_CASE("sums saturate where the JSON form stops accepting them, so they always read back") {
  run_usage u;
  u.add("m", {900'000'000'000'000, 0, 0, 0, 9e11});
  u.add("m", {900'000'000'000'000, -5, 0, 0, 9e11});
  CHECK(u.total_input_tokens == 1'000'000'000'000'000);
  CHECK(u.by_model.at("m").input_tokens == 1'000'000'000'000'000);
  CHECK(u.total_output_tokens == 0);  // a negative count adds nothing
  CHECK(u.total_cost_usd == 1e12);
  auto back = run_usage_from_json(run_usage_to_json(u));
  REQUIRE(back.has_value());
  CHECK(*back == u);
}

}  // namespace usage_test
