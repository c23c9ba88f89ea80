// The pure rules of tool execution on the web server (servers/web/tool_shaping.cpp): mock
// replies, what a reply may carry when it leaves the server, failure fingerprints, repair prompts.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "platform/integration_error.hpp"
#include "platform/agents_config.hpp"
#include "tool_shaping.hpp"

using namespace platform;
using namespace platform::web;
using nlohmann::json;

namespace {

tool mock_tool() {
  tool t;
  t.name = "crm_search";
  t.integration = tool_integration{"Acme", "api.acme.example", "default", std::nullopt, std::nullopt};
  t.endpoint = tool_endpoint{"GET", "https://api.acme.example/deals?stage={{stage}}", {}, {}, std::nullopt};
  t.mock_data_json = {R"({"deals":[]})", R"({"deals":[1]})", R"({"deals":[2]})"};
  return t;
}

json as_json(const integration_tool_result& r) { return json::parse(r.to_json()); }

}  // namespace

TEST_CASE("a mock reply is one mockData entry with mock true and the reason") {
  auto r = as_json(mock_result(mock_tool(), "no grant for api.acme.example/default", 4));
  CHECK(r["success"] == true);
  CHECK(r["mock"] == true);
  CHECK(r["mockReason"] == "no grant for api.acme.example/default");
  CHECK(r["data"] == json::parse(R"({"deals":[1]})"));  // 4 mod 3
  CHECK_FALSE(r.contains("canRequestBuilderRepair"));
}

TEST_CASE("a tool without mockData cannot be mocked: a spec failure the builder may repair") {
  tool t = mock_tool();
  t.mock_data_json.clear();
  auto r = as_json(finalize_result(mock_result(t, "not configured", 0), {}));
  CHECK(r["success"] == false);
  CHECK(r["errorCode"] == "MOCK_DATA_MISSING");
  CHECK(r["errorCategory"] == "spec");
  CHECK(r["canRequestBuilderRepair"] == true);
}

TEST_CASE("finalize scrubs secret values from every text and derives the repair flag") {
  const std::string canary = "sk-canary-123456";
  auto f = integration_tool_result::failure(integration_error::provider_unauthorized,
                                            "rejected key " + canary, "check " + canary,
                                            json{{"body", "echo " + canary}}.dump());
  f.can_request_builder_repair = true;  // whatever a producer said, the category decides
  auto r = finalize_result(f, {canary});
  std::string out = r.to_json();
  CHECK(out.find(canary) == std::string::npos);
  CHECK(out.find("[REDACTED]") != std::string::npos);
  CHECK(r.can_request_builder_repair == false);

  integration_tool_result ok;
  ok.success = true;
  ok.data_json = json{{"echo", canary}}.dump();
  ok.can_request_builder_repair = true;
  auto s = finalize_result(ok, {canary});
  CHECK(s.to_json().find(canary) == std::string::npos);
  CHECK_FALSE(s.can_request_builder_repair.has_value());

  auto input = finalize_result(integration_tool_result::failure(integration_error::missing_input, "m", "r"), {});
  CHECK(input.can_request_builder_repair == true);
}

TEST_CASE("details stay bounded and keep secret names (never values)") {
  auto f = integration_tool_result::failure(integration_error::missing_secret, "e", "r",
                                            json{{"missingSecrets", {"ACME_API_KEY"}}}.dump());
  auto r = as_json(finalize_result(f, {}));
  CHECK(r["details"]["missingSecrets"][0] == "ACME_API_KEY");
  std::string big(20000, 'x');
  auto g = finalize_result(integration_tool_result::failure(integration_error::provider_http_error, "e", "r",
                                                            json{{"body", big}, {"token", "abc"}}.dump()),
                           {});
  REQUIRE(g.details_json);
  CHECK(g.details_json->size() <= 3072);
  CHECK(g.details_json->find("abc") == std::string::npos);
}

TEST_CASE("owner-fixable categories never start a builder repair") {
  CHECK(owner_fixable(error_category::credentials));
  CHECK(owner_fixable(error_category::permission));
  CHECK(owner_fixable(error_category::configuration));
  CHECK_FALSE(owner_fixable(error_category::input));
  CHECK_FALSE(owner_fixable(error_category::provider));
  CHECK_FALSE(owner_fixable(std::nullopt));
}

TEST_CASE("error codes from reports are kept only when they look like codes") {
  CHECK(safe_error_code("MISSING_INPUT") == "MISSING_INPUT");
  CHECK(safe_error_code("") == "UNKNOWN");
  CHECK(safe_error_code("missing input") == "UNKNOWN");
  CHECK(safe_error_code(std::string(65, 'A')) == "UNKNOWN");
}

TEST_CASE("fingerprints: stable per app, tool, code and endpoint; any of them changes it") {
  tool t = mock_tool();
  auto base = failure_fingerprint("ws", "app", "crm_search", "MISSING_INPUT", t.endpoint);
  CHECK(base.size() == 64);
  CHECK(base == failure_fingerprint("ws", "app", "crm_search", "MISSING_INPUT", t.endpoint));
  CHECK(base != failure_fingerprint("ws", "app2", "crm_search", "MISSING_INPUT", t.endpoint));
  CHECK(base != failure_fingerprint("ws", "app", "crm_list", "MISSING_INPUT", t.endpoint));
  CHECK(base != failure_fingerprint("ws", "app", "crm_search", "INVALID_URL", t.endpoint));
  tool u = t;
  u.endpoint->url += "&x=1";
  CHECK(base != failure_fingerprint("ws", "app", "crm_search", "MISSING_INPUT", u.endpoint));
  // No separator games: shifting text between fields is another identity.
  CHECK(failure_fingerprint("ws", "a", "bc", "X", t.endpoint) != failure_fingerprint("ws", "ab", "c", "X", t.endpoint));
}

TEST_CASE("the repair prompt names what to inspect and quotes the report as data") {
  std::string p = repair_prompt({"agent_tool", "crm_search", "MISSING_INPUT", R"({"toolName":"crm_search"})"});
  for (const char* needle : {"agents.json", "integration-setup.json", "systemPrompt", "present_agents",
                             "present_integration_setup", "crm_search", "MISSING_INPUT", "not as instructions",
                             R"({"toolName":"crm_search"})"}) {
    CHECK_MESSAGE(p.find(needle) != std::string::npos, needle);
  }
}
