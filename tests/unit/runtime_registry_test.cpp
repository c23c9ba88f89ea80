#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "platform/api_error.hpp"
#include "platform/opencode_catalog.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/runtime_registry_json.hpp"
#include "platform/runtime_settings.hpp"

namespace runtime_registry_test {

using namespace platform;
using strings = std::vector<std::string>;
using params_t = std::map<std::string, std::string>;

namespace {

std::string read_data(const std::string& name) {
  std::ifstream in(std::string(PLATFORM_TEST_DATA) + "/runtime/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing test data " << name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

normalized_settings normalize_ok(const runtime_registry& r, const std::string& runtime,
                                 std::optional<std::string> model, const params_t& params = {}) {
  auto s = normalize_runtime_settings(r, runtime, std::move(model), params);
  REQUIRE_MESSAGE(s.has_value(), (s ? std::string() : std::string(platform::code_name(s.error())) + ": " + s.error().message));
  return *s;
}

error normalize_err(const runtime_registry& r, const std::string& runtime, std::optional<std::string> model,
                    const params_t& params = {}) {
  auto s = normalize_runtime_settings(r, runtime, std::move(model), params);
  REQUIRE_FALSE(s.has_value());
  return s.error();
}

// The value a param ends with on a model, and how many downgrades were noted.
std::pair<std::string, std::size_t> outcome(const std::string& model, const std::string& param,
                                            const std::string& value) {
  auto s = normalize_ok(builtin_runtime_registry(), "runtime-a", model, {{param, value}});
  return {s.runtime_params.at(param), s.downgrades.size()};
}

runtime_registry registry_with_mock_catalog() {
  runtime_registry r = builtin_runtime_registry();
  auto catalog = parse_opencode_models(read_data("opencode-models-verbose-mock.txt"));
  REQUIRE(catalog.has_value());
  REQUIRE(r.set_models("runtime-c", runtime_c_models(*catalog)).has_value());
  return r;
}

const strings runtime_a_models = {"claude-opus-5-5", "claude-fable-5-2", "claude-sonnet-5-5", "claude-haiku-5-5",
                                  "claude-sonnet-4-5-20250929"};

}  // namespace

TEST_CASE("built-in registry lists the three runtimes with their params") {
  auto r = builtin_runtime_registry();
  REQUIRE(r.runtimes().size() == 3);
  CHECK(r.find("runtime-a")->display_name == "Claude Code");
  CHECK(r.find("runtime-b")->default_model == "gpt-5.5");
  CHECK(r.find("runtime-c")->dynamic_models);
  CHECK(r.find("runtime-c")->models.empty());
  CHECK(r.find("runtime-d") == nullptr);
  CHECK(r.find("runtime-a")->find_param("effort")->values == strings{"low", "medium", "high", "xhigh", "max"});
  CHECK(r.find("runtime-a")->find_param("thinking")->values == strings{"adaptive", "enabled", "disabled"});
  CHECK(r.find("runtime-b")->find_param("sandboxMode")->values == strings{"read-only", "workspace-write"});
  CHECK(r.find("runtime-c")->find_param("variant")->default_value == "auto");
}

TEST_CASE("runtime-a data agrees with the CLI's initialize answer") {
  auto init = nlohmann::json::parse(read_data("runtime-a-initialize.json"));
  const auto& models = init["response"]["response"]["models"];
  REQUIRE(models.size() == 5);
  const runtime_registry registry = builtin_runtime_registry();
  const runtime_info* a = registry.find("runtime-a");
  for (const auto& cli : models) {
    std::string alias = cli["value"], resolved = cli["resolvedModel"];
    const runtime_model* m = a->find_model(alias);
    REQUIRE_MESSAGE(m != nullptr, alias);
    CHECK(m->id == resolved);
    REQUIRE(a->find_model(resolved) == m);
    // The spec's table only ever narrows what the CLI advertises.
    strings cli_efforts = cli["supportedEffortLevels"];
    for (const auto& e : m->values.at("effort")) CHECK(std::find(cli_efforts.begin(), cli_efforts.end(), e) != cli_efforts.end());
    CHECK(cli["supportsAdaptiveThinking"] == true);
  }
  // "default" is the CLI's recommended model: the newest largest, the registry's default.
  CHECK(a->find_model("default")->id == a->default_model);
  CHECK(a->default_model == "claude-opus-5-5");
}

TEST_CASE("default settings: newest largest model, effort xhigh, thinking adaptive, summarized display") {
  auto s = normalize_ok(builtin_runtime_registry(), "runtime-a", std::nullopt);
  CHECK(s.runtime_id == "runtime-a");
  CHECK(s.runtime_model == "claude-opus-5-5");
  CHECK(s.runtime_params == params_t{{"effort", "xhigh"}, {"thinking", "adaptive"}});
  CHECK(s.downgrades.empty());
  CHECK(s.args == strings{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                          "--include-partial-messages", "--model=claude-opus-5-5", "--effort=xhigh",
                          "--thinking=adaptive", "--thinking-display=summarized"});
  CHECK(s.protocol_params_json == "{}");
}

TEST_CASE("capability row: effort xhigh only on the newest largest model, else high") {
  CHECK(outcome("claude-opus-5-5", "effort", "xhigh") == std::pair<std::string, std::size_t>{"xhigh", 0});
  for (const auto& m : {"claude-fable-5-2", "claude-sonnet-5-5", "claude-haiku-5-5", "claude-sonnet-4-5-20250929"}) {
    CAPTURE(m);
    CHECK(outcome(m, "effort", "xhigh") == std::pair<std::string, std::size_t>{"high", 1});
  }
}

TEST_CASE("capability row: effort max on the two largest newest and one mid-size model, else high") {
  for (const auto& m : {"claude-opus-5-5", "claude-fable-5-2", "claude-sonnet-5-5"}) {
    CAPTURE(m);
    CHECK(outcome(m, "effort", "max") == std::pair<std::string, std::size_t>{"max", 0});
  }
  for (const auto& m : {"claude-haiku-5-5", "claude-sonnet-4-5-20250929"}) {
    CAPTURE(m);
    CHECK(outcome(m, "effort", "max") == std::pair<std::string, std::size_t>{"high", 1});
  }
}

TEST_CASE("capability row: thinking adaptive on the same three models, else disabled") {
  for (const auto& m : {"claude-opus-5-5", "claude-fable-5-2", "claude-sonnet-5-5"}) {
    CAPTURE(m);
    CHECK(outcome(m, "thinking", "adaptive") == std::pair<std::string, std::size_t>{"adaptive", 0});
  }
  for (const auto& m : {"claude-haiku-5-5", "claude-sonnet-4-5-20250929"}) {
    CAPTURE(m);
    CHECK(outcome(m, "thinking", "adaptive") == std::pair<std::string, std::size_t>{"disabled", 1});
  }
}

TEST_CASE("capability row: thinking enabled on two of them, adaptive on the newest") {
  for (const auto& m : {"claude-fable-5-2", "claude-sonnet-5-5"}) {
    CAPTURE(m);
    CHECK(outcome(m, "thinking", "enabled") == std::pair<std::string, std::size_t>{"enabled", 0});
  }
  CHECK(outcome("claude-opus-5-5", "thinking", "enabled") == std::pair<std::string, std::size_t>{"adaptive", 1});
  // Outside the three, the chain goes on: enabled → adaptive → disabled, one note.
  for (const auto& m : {"claude-haiku-5-5", "claude-sonnet-4-5-20250929"}) {
    CAPTURE(m);
    CHECK(outcome(m, "thinking", "enabled") == std::pair<std::string, std::size_t>{"disabled", 1});
  }
}

TEST_CASE("values every model supports are never downgraded") {
  for (const auto& m : runtime_a_models) {
    CAPTURE(m);
    for (const auto& e : {"low", "medium", "high"}) CHECK(outcome(m, "effort", e) == std::pair<std::string, std::size_t>{e, 0});
    CHECK(outcome(m, "thinking", "disabled") == std::pair<std::string, std::size_t>{"disabled", 0});
  }
}

TEST_CASE("a downgrade note says what changed and why") {
  auto s = normalize_ok(builtin_runtime_registry(), "runtime-a", "claude-haiku-5-5",
                        {{"effort", "xhigh"}, {"thinking", "enabled"}});
  REQUIRE(s.downgrades.size() == 2);
  CHECK(s.downgrades[0].param == "effort");
  CHECK(s.downgrades[0].from == "xhigh");
  CHECK(s.downgrades[0].to == "high");
  CHECK(s.downgrades[0].reason == "effort xhigh is not available on claude-haiku-5-5 (available: low, medium, high)");
  CHECK(s.downgrades[1].param == "thinking");
  CHECK(s.downgrades[1].from == "enabled");
  CHECK(s.downgrades[1].to == "disabled");
  CHECK(s.downgrades[1].reason ==
        "thinking enabled and adaptive are not available on claude-haiku-5-5 (available: disabled)");
  CHECK(s.args[7] == "--effort=high");
  CHECK(s.args[8] == "--thinking=disabled");
}

TEST_CASE("defaults follow the model's rules without downgrade notes") {
  auto sonnet = normalize_ok(builtin_runtime_registry(), "runtime-a", "claude-sonnet-5-5");
  CHECK(sonnet.runtime_params == params_t{{"effort", "high"}, {"thinking", "adaptive"}});
  CHECK(sonnet.downgrades.empty());
  auto haiku = normalize_ok(builtin_runtime_registry(), "runtime-a", "claude-haiku-5-5");
  CHECK(haiku.runtime_params == params_t{{"effort", "high"}, {"thinking", "disabled"}});
  CHECK(haiku.downgrades.empty());
  auto partial = normalize_ok(builtin_runtime_registry(), "runtime-a", "claude-fable-5-2", {{"effort", "low"}});
  CHECK(partial.runtime_params == params_t{{"effort", "low"}, {"thinking", "adaptive"}});
}

TEST_CASE("runtime-a aliases resolve to the CLI's model ids") {
  auto r = builtin_runtime_registry();
  CHECK(normalize_ok(r, "runtime-a", "opus").runtime_model == "claude-opus-5-5");
  CHECK(normalize_ok(r, "runtime-a", "default").runtime_model == "claude-opus-5-5");
  CHECK(normalize_ok(r, "runtime-a", "fable").runtime_model == "claude-fable-5-2");
  CHECK(normalize_ok(r, "runtime-a", "sonnet").runtime_model == "claude-sonnet-5-5");
  CHECK(normalize_ok(r, "runtime-a", "haiku").runtime_model == "claude-haiku-5-5");
  auto old = normalize_ok(r, "runtime-a", "claude-sonnet-4-5");
  CHECK(old.runtime_model == "claude-sonnet-4-5-20250929");
  CHECK(old.args[6] == "--model=claude-sonnet-4-5-20250929");
}

TEST_CASE("thinking enabled is sent as a fixed thinking budget") {
  auto s = normalize_ok(builtin_runtime_registry(), "runtime-a", "claude-fable-5-2", {{"thinking", "enabled"}, {"effort", "max"}});
  CHECK(s.args == strings{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                          "--include-partial-messages", "--model=claude-fable-5-2", "--effort=max",
                          "--max-thinking-tokens=31999", "--thinking-display=summarized"});
}

TEST_CASE("validation errors name the problem and list what is allowed") {
  auto r = builtin_runtime_registry();
  auto e = normalize_err(r, "runtime-x", std::nullopt);
  CHECK(e.code == platform::api_error::unknown_runtime);
  CHECK(e.message == "unknown runtime 'runtime-x'; runtimes: runtime-a, runtime-b, runtime-c");

  e = normalize_err(r, "runtime-a", "claude-opus-9");
  CHECK(e.code == platform::api_error::unknown_model);
  CHECK(e.message.find("unknown model 'claude-opus-9' for runtime-a; models: claude-opus-5-5 (default, opus)") == 0);
  CHECK(e.message.find("claude-sonnet-4-5-20250929 (claude-sonnet-4-5)") != std::string::npos);

  e = normalize_err(r, "runtime-a", std::nullopt, {{"temperature", "1"}});
  CHECK(e.code == platform::api_error::unknown_param);
  CHECK(e.message == "unknown param 'temperature' for runtime-a; params: effort, thinking");

  e = normalize_err(r, "runtime-a", std::nullopt, {{"effort", "extreme"}});
  CHECK(e.code == platform::api_error::invalid_param_value);
  CHECK(e.message == "invalid value 'extreme' for effort; allowed on claude-opus-5-5: low, medium, high, xhigh, max");

  e = normalize_err(r, "runtime-a", "claude-haiku-5-5", {{"thinking", ""}});
  CHECK(e.code == platform::api_error::invalid_param_value);
  CHECK(e.message == "invalid value '' for thinking; allowed on claude-haiku-5-5: disabled");

  e = normalize_err(r, "runtime-b", std::nullopt, {{"sandboxMode", "workspaceWrite"}});
  CHECK(e.code == platform::api_error::invalid_param_value);
  CHECK(e.message == "invalid value 'workspaceWrite' for sandboxMode; allowed on gpt-5.5: read-only, "
                     "workspace-write");

  // Not an app creator's to choose: no inner sandbox at all (docs/security.md).
  e = normalize_err(r, "runtime-b", std::nullopt, {{"sandboxMode", "danger-full-access"}});
  CHECK(e.code == platform::api_error::invalid_param_value);

  e = normalize_err(r, "runtime-b", std::nullopt, {{"effort", "high"}});  // runtime-a's name
  CHECK(e.code == platform::api_error::unknown_param);
  CHECK(e.message == "unknown param 'effort' for runtime-b; params: reasoningEffort, sandboxMode");

  e = normalize_err(r, "runtime-c", std::nullopt);
  CHECK(e.code == platform::api_error::unknown_model);
  CHECK(e.message == "runtime-c has no models: feed the output of `opencode models --verbose`");
  e = normalize_err(r, "runtime-c", "mock/mock-model");
  CHECK(e.code == platform::api_error::unknown_model);
  CHECK(e.message.find("(feed the output of `opencode models --verbose`)") != std::string::npos);
}

TEST_CASE("runtime-b: app-server launch, thread and turn params") {
  auto r = builtin_runtime_registry();
  auto s = normalize_ok(r, "runtime-b", std::nullopt);
  CHECK(s.runtime_model == "gpt-5.5");
  CHECK(s.runtime_params == params_t{{"reasoningEffort", "medium"}, {"sandboxMode", "workspace-write"}});
  CHECK(s.args == strings{"app-server"});
  CHECK(s.protocol_params_json ==
        R"({"thread":{"model":"gpt-5.5","sandbox":"workspace-write"},"turn":{"model":"gpt-5.5","effort":"medium","summary":"detailed"}})");

  auto ro = normalize_ok(r, "runtime-b", "gpt-5.4", {{"sandboxMode", "read-only"}, {"reasoningEffort", "xhigh"}});
  CHECK(ro.downgrades.empty());
  auto p = nlohmann::json::parse(ro.protocol_params_json);
  CHECK(p["thread"]["sandbox"] == "read-only");
  CHECK(p["turn"]["effort"] == "xhigh");
  CHECK(p["turn"]["model"] == "gpt-5.4");
}

TEST_CASE("runtime-b: efforts a model lacks are clamped like codex does") {
  auto r = builtin_runtime_registry();
  auto s = normalize_ok(r, "runtime-b", "gpt-5.5", {{"reasoningEffort", "ultra"}});
  CHECK(s.runtime_params.at("reasoningEffort") == "xhigh");
  REQUIRE(s.downgrades.size() == 1);
  CHECK(s.downgrades[0].reason == "reasoningEffort ultra and max are not available on gpt-5.5 (available: low, medium, high, xhigh)");
  auto mini = normalize_ok(r, "runtime-b", "gpt-5.4-mini", {{"reasoningEffort", "xhigh"}});
  CHECK(mini.runtime_params.at("reasoningEffort") == "high");
  CHECK(normalize_err(r, "runtime-b", "gpt-4o").code == platform::api_error::unknown_model);
  CHECK(normalize_err(r, "runtime-b", std::nullopt, {{"reasoningEffort", "minimal"}}).code == platform::api_error::invalid_param_value);
}

TEST_CASE("runtime-c: models from the catalog, variant auto omits the flag") {
  auto r = registry_with_mock_catalog();
  const runtime_info* c = r.find("runtime-c");
  REQUIRE(c->models.size() == 1);
  CHECK(c->default_model == "mock/mock-model");
  CHECK(c->find_param("variant")->values == strings{"auto", "low", "medium", "high"});

  auto s = normalize_ok(r, "runtime-c", std::nullopt);
  CHECK(s.runtime_model == "mock/mock-model");
  CHECK(s.runtime_params == params_t{{"variant", "auto"}});
  CHECK(s.args == strings{"run", "--format", "json", "--thinking", "--model", "mock/mock-model"});

  auto high = normalize_ok(r, "runtime-c", "mock/mock-model", {{"variant", "high"}});
  CHECK(high.args == strings{"run", "--format", "json", "--thinking", "--model", "mock/mock-model", "--variant", "high"});

  auto e = normalize_err(r, "runtime-c", "mock/mock-model", {{"variant", "max"}});
  CHECK(e.code == platform::api_error::invalid_param_value);
  CHECK(e.message == "invalid value 'max' for variant; allowed on mock/mock-model: low, medium, high, auto");
  CHECK(normalize_err(r, "runtime-c", "mock/other").code == platform::api_error::unknown_model);
}

TEST_CASE("runtime-c: a variant of another model is not available on this one") {
  auto catalog = parse_opencode_models(read_data("opencode-models-verbose-multi.txt"));
  REQUIRE(catalog.has_value());
  auto r = builtin_runtime_registry();
  REQUIRE(r.set_models("runtime-c", runtime_c_models(*catalog), "mock/mock-model").has_value());
  CHECK(r.find("runtime-c")->default_model == "mock/mock-model");
  auto e = normalize_err(r, "runtime-c", "mock/mock-model", {{"variant", "max"}});
  CHECK(e.code == platform::api_error::unsupported_param_value);
  CHECK(e.message == "variant 'max' is not available on mock/mock-model; allowed: low, medium, high, auto");
  CHECK(normalize_ok(r, "runtime-c", "anthropic/claude-fable-5", {{"variant", "max"}}).args.back() == "max");
  CHECK(!r.set_models("runtime-c", {}, "mock/nope").has_value());
  CHECK(r.set_models("runtime-z", {}).error().code == platform::api_error::unknown_runtime);
}

TEST_CASE("opencode models --verbose: the mock provider's one model") {
  auto c = parse_opencode_models(read_data("opencode-models-verbose-mock.txt"));
  REQUIRE(c.has_value());
  REQUIRE(c->models.size() == 1);
  const auto& m = c->models[0];
  CHECK(m.id == "mock/mock-model");
  CHECK(m.name == "Mock Model");
  CHECK(m.provider_id == "mock");
  CHECK(m.toolcall);
  CHECK(m.reasoning);
  CHECK(m.variants == strings{"low", "medium", "high"});
  REQUIRE(m.cost.has_value());
  CHECK(m.cost->input == 1);
  CHECK(m.cost->output == 2);
  CHECK(m.cost->cache_read == doctest::Approx(0.1));
  CHECK(m.cost->cache_write == 0);
  CHECK(m.context_limit == 128000);
  CHECK(m.status == "active");
  CHECK(c->skipped.empty());
  CHECK(c->error.empty());
}

TEST_CASE("opencode models without --verbose: ids only, nothing offered") {
  auto plain = parse_opencode_models(read_data("opencode-models.txt"));
  REQUIRE(plain.has_value());
  CHECK(plain->models.empty());
  CHECK(plain->skipped.size() == 9);
  CHECK(plain->skipped.front() == "opencode/big-pickle");
  CHECK(plain->skipped.back() == "mock/mock-model");

  auto anthropic = parse_opencode_models(read_data("opencode-models-env-anthropic.txt"));
  REQUIRE(anthropic.has_value());
  CHECK(anthropic->models.empty());
  CHECK(anthropic->skipped.size() == 18);
}

TEST_CASE("opencode models for an unknown provider is an error") {
  auto c = parse_opencode_models(read_data("opencode-models-unknown-provider.txt"));
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error().code == platform::api_error::opencode_models_error);
  CHECK(c.error().message == "Provider not found: nosuch");
  // Other CLI output is not a model listing.
  auto providers = parse_opencode_models(read_data("opencode-providers-list.txt"));
  REQUIRE(providers.has_value());
  CHECK(providers->models.empty());
  CHECK(providers->skipped.empty());
}

TEST_CASE("opencode catalog: only tool-call models, sane variant names, first listing wins") {
  auto c = parse_opencode_models(read_data("opencode-models-verbose-multi.txt"));
  REQUIRE(c.has_value());
  strings ids;
  for (const auto& m : c->models) ids.push_back(m.id);
  CHECK(ids == strings{"anthropic/claude-fable-5", "mock/mock-model", "openrouter/vendor/model:free"});
  CHECK(c->skipped == strings{"opencode/embed-small", "broken/json", "opencode/no-details"});
  CHECK(c->models[0].variants == strings{"high", "max"});  // "auto", "-x" and "two words" dropped
  CHECK(!c->models[0].cost.has_value());                   // negative price → unknown
  CHECK(c->models[2].variants.empty());
  auto models = runtime_c_models(*c);
  CHECK(models[2].values.at("variant") == strings{"auto"});
}

TEST_CASE("opencode parser gives the same catalog for any split of its input") {
  std::string text = read_data("opencode-models-verbose-multi.txt") + read_data("opencode-models-verbose-mock.txt");
  auto whole = parse_opencode_models(text);
  REQUIRE(whole.has_value());
  for (std::size_t step : {1u, 2u, 7u, 64u}) {
    opencode_models_parser p;
    for (std::size_t i = 0; i < text.size(); i += step) p.feed(std::string_view(text).substr(i, step));
    auto split = p.finish();
    REQUIRE(split.models.size() == whole->models.size());
    for (std::size_t i = 0; i < split.models.size(); ++i) {
      CHECK(split.models[i].id == whole->models[i].id);
      CHECK(split.models[i].variants == whole->models[i].variants);
    }
    CHECK(split.skipped == whole->skipped);
  }
}

TEST_CASE("opencode parser: CRLF lines and an unterminated last block") {
  std::string text =
      "p/a\r\n{\r\n  \"capabilities\": {\"toolcall\": true},\r\n  \"variants\": {\"fast\": {}}\r\n}\r\n"
      "p/b\n{\n  \"capabilities\": {\"toolcall\": true}\n";
  auto c = parse_opencode_models(text);
  REQUIRE(c.has_value());
  REQUIRE(c->models.size() == 1);
  CHECK(c->models[0].id == "p/a");
  CHECK(c->models[0].variants == strings{"fast"});
  CHECK(c->skipped == strings{"p/b"});
  // Ids are printable ASCII: anything else is not an id line.
  auto odd = parse_opencode_models("p/\xc3\xa9\n{\n\"capabilities\":{\"toolcall\":true}\n}\n-p/x\n");
  REQUIRE(odd.has_value());
  CHECK(odd->models.empty());
  CHECK(odd->skipped.empty());
  // The parser is reusable after finish().
  opencode_models_parser p;
  p.feed(text);
  (void)p.finish();
  p.feed("q/x\n{\n\"capabilities\":{\"toolcall\":true}\n}\n");
  CHECK(p.finish().models.size() == 1);
}

TEST_CASE("registry pricing covers ids and aliases") {
  auto r = registry_with_mock_catalog();
  auto table = r.pricing();
  CHECK(table.at("claude-sonnet-4-5-20250929").cache_write == doctest::Approx(3.75));
  CHECK(table.at("claude-sonnet-4-5").input == 3);
  CHECK(table.at("opus").output == 20);
  CHECK(table.at("gpt-5.5").cache_read == doctest::Approx(0.5));
  CHECK(table.at("mock/mock-model").output == 2);
}

TEST_CASE("registry JSON lists per-model values and effective defaults") {
  auto j = nlohmann::json::parse(runtime_registry_to_json(registry_with_mock_catalog()));
  REQUIRE(j["runtimes"].size() == 3);
  const auto& a = j["runtimes"][0];
  CHECK(a["id"] == "runtime-a");
  CHECK(a["defaultModel"] == "claude-opus-5-5");
  CHECK(a["dynamicModels"] == false);
  CHECK(a["params"][0]["name"] == "effort");
  CHECK(a["params"][0]["default"] == "xhigh");
  CHECK(a["fallbacks"].size() == 4);
  REQUIRE(a["models"].size() == 5);
  CHECK(a["models"][0]["id"] == "claude-opus-5-5");
  CHECK(a["models"][0]["aliases"] == nlohmann::json::array({"default", "opus"}));
  CHECK(a["models"][0]["params"]["thinking"]["values"] == nlohmann::json::array({"adaptive", "disabled"}));
  CHECK(a["models"][2]["params"]["effort"]["default"] == "high");
  CHECK(a["models"][0]["pricing"]["inputPerMTok"] == 4.0);
  const auto& c = j["runtimes"][2];
  CHECK(c["dynamicModels"] == true);
  CHECK(c["models"][0]["id"] == "mock/mock-model");
  CHECK(c["models"][0]["params"]["variant"]["default"] == "auto");
}

TEST_CASE("normalized settings JSON") {
  auto s = normalize_ok(builtin_runtime_registry(), "runtime-a", "claude-sonnet-5-5", {{"effort", "xhigh"}});
  auto j = nlohmann::json::parse(normalized_settings_to_json(s));
  CHECK(j["settings"]["runtimeId"] == "runtime-a");
  CHECK(j["settings"]["runtimeModel"] == "claude-sonnet-5-5");
  CHECK(j["settings"]["runtimeParams"] == nlohmann::json{{"effort", "high"}, {"thinking", "adaptive"}});
  CHECK(j["downgrades"][0]["from"] == "xhigh");
  CHECK(j["downgrades"][0]["to"] == "high");
  CHECK(j["args"].size() == 10);
  CHECK(j["protocolParams"] == nlohmann::json::object());
  CHECK(error_to_json({platform::api_error::unknown_model, "say \"x\""}) == R"({"error":{"code":"unknown_model","message":"say \"x\""}})");
}

}  // namespace runtime_registry_test
