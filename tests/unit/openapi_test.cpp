// The OpenAPI generator of platform-web (servers/web/openapi.cpp) on rows of its own: what a
// row becomes, and the rows and codes it refuses to describe (no summary, a body without a
// description, a code without a meaning). platform-web's own table is checked end to end by
// tests/js/e2e-openapi.mjs.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "openapi.hpp"

using namespace platform;
using namespace platform::web;
using json = nlohmann::ordered_json;

namespace {

const std::vector<api_error_info> codes = {
    {"invalid_body", 400, "The body is not what the route takes."},
    {"not_found", 404, "No such thing."},
    {"internal", 500, "The server failed."},
};

std::vector<openapi_route> rows() {
  return {
      {"GET", "/api/health", "health", "service", "The service's health", "anyone", openapi_auth::none},
      {"POST", "/api/workspaces/{workspace}/apps", "create_app", "builder", "Create an app", "members",
       openapi_auth::identity, openapi_body::required, "name"},
      {"POST", "/api/workspaces/{workspace}/apps/{app}/reviews", "request_review", "governance", "Ask for a review",
       "editors", openapi_auth::identity, openapi_body::optional, "optional note"},
      {"GET", "/metrics", "get_metrics", "service", "The counters", "the operator", openapi_auth::internal},
      {"POST", "/api/internal/app-data", "internal_app_data", "internal", "A run's data call", "the worker",
       openapi_auth::internal_run, openapi_body::required, "workspaceId, appId, runId"},
  };
}

std::string refusal_of(const std::vector<openapi_route>& r, const std::vector<api_error_info>& c = codes) {
  try {
    (void)openapi_document(r, c);
  } catch (const openapi_refusal& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("each row is an operation of its path, with its id, summary, tag, security and body") {
  json doc = openapi_document(rows(), codes);
  CHECK(doc["openapi"] == "3.1.0");
  CHECK(doc["info"]["title"] == "platform-web");
  CHECK(doc["paths"].size() == 5);

  const json& create = doc["paths"]["/api/workspaces/{workspace}/apps"]["post"];
  CHECK(create["operationId"] == "create_app");
  CHECK(create["summary"] == "Create an app");
  CHECK(create["tags"] == json::array({"builder"}));
  CHECK(create["x-caller"] == "members");
  CHECK(create["security"] == json::parse(R"([{"sessionCookie": []}, {"identityToken": []}])"));
  CHECK(create["requestBody"]["required"] == true);
  CHECK(create["requestBody"]["description"] == "name");
  CHECK(create["requestBody"]["content"]["application/json"]["schema"]["type"] == "object");
  CHECK(create["responses"]["4XX"]["$ref"] == "#/components/responses/Error");
  CHECK(create["responses"]["5XX"]["$ref"] == "#/components/responses/Error");
  CHECK(create["responses"].contains("2XX"));

  const json& params = doc["paths"]["/api/workspaces/{workspace}/apps/{app}/reviews"]["parameters"];
  REQUIRE(params.size() == 2);
  CHECK(params[0]["name"] == "workspace");
  CHECK(params[1]["name"] == "app");
  CHECK(params[1]["in"] == "path");
  CHECK(params[1]["required"] == true);
  CHECK(params[1]["schema"]["pattern"] == "^[A-Za-z0-9_-]{1,128}$");
  CHECK(doc["paths"]["/api/workspaces/{workspace}/apps/{app}/reviews"]["post"]["requestBody"]["required"] == false);

  CHECK(doc["paths"]["/api/health"]["get"]["security"] == json::array());
  CHECK_FALSE(doc["paths"]["/api/health"]["get"].contains("requestBody"));
  CHECK_FALSE(doc["paths"]["/api/health"].contains("parameters"));
  CHECK(doc["paths"]["/metrics"]["get"]["security"] == json::parse(R"([{"internalToken": []}])"));
  CHECK(doc["paths"]["/api/internal/app-data"]["post"]["security"] ==
        json::parse(R"([{"internalToken": [], "runCapability": []}])"));
  CHECK(doc["components"]["securitySchemes"]["runCapability"]["name"] == "X-Run-Capability");
  CHECK(doc["components"]["securitySchemes"]["sessionCookie"]["name"] == "platform_session");

  std::vector<std::string> tags;
  for (const json& t : doc["tags"]) tags.push_back(t["name"]);
  CHECK(tags == std::vector<std::string>{"service", "builder", "governance", "internal"});
}

TEST_CASE("the Error schema's code is an enum of every code, each with its status and meaning") {
  json doc = openapi_document(rows(), codes);
  const json& schemas = doc["components"]["schemas"];
  CHECK(schemas["Error"]["properties"]["error"]["required"] == json::array({"code", "message"}));
  CHECK(schemas["Error"]["properties"]["error"]["properties"]["code"]["$ref"] == "#/components/schemas/ErrorCode");
  CHECK(schemas["ErrorCode"]["enum"] == json::array({"invalid_body", "not_found", "internal"}));
  CHECK(schemas["ErrorCode"]["x-error-codes"]["not_found"] == json::parse(R"({"status": 404, "meaning": "No such thing."})"));
  std::string table = schemas["ErrorCode"]["description"];
  CHECK(table.find("| `not_found` | 404 | No such thing. |") != std::string::npos);
  CHECK(doc["components"]["responses"]["Error"]["content"]["application/json"]["schema"]["$ref"] ==
        "#/components/schemas/Error");
}

TEST_CASE("a row without a summary is refused, naming the row") {
  auto r = rows();
  r.push_back({"GET", "/api/workspaces/{workspace}/things", "list_things", "builder", "", "members", openapi_auth::identity});
  CHECK(refusal_of(r) == "GET /api/workspaces/{workspace}/things: the row has no summary (one line: what the route does)");
  r.back().summary = "two\nlines";
  CHECK(refusal_of(r).find("no summary") != std::string::npos);
}

TEST_CASE("a body without a description is refused, and a description without a body") {
  auto r = rows();
  r[1].body_description = "";
  CHECK(refusal_of(r) == "POST /api/workspaces/{workspace}/apps: the row's body has no description");
  r = rows();
  r[0].body_description = "something";
  CHECK(refusal_of(r).find("a body description on a row without a body") != std::string::npos);
}

TEST_CASE("an error code without a meaning is refused") {
  auto c = codes;
  c.push_back({"budget_exhausted", 409, ""});
  CHECK(refusal_of(rows(), c) == "error code budget_exhausted has no meaning");
  c.back() = {"budget_exhausted", 200, "A status that is not an error's."};
  CHECK(refusal_of(rows(), c) == "error code budget_exhausted has no error status");
  c.back() = {"not_found", 404, "Twice."};
  CHECK(refusal_of(rows(), c) == "error code not_found twice");
}

TEST_CASE("other rows the document cannot describe are refused") {
  auto r = rows();
  r.push_back({"GET", "/api/other", "health", "service", "Another health", "anyone"});
  CHECK(refusal_of(r) == "GET /api/other: operationId health twice");
  r.back() = {"GET", "/api/health", "health_again", "service", "The same route", "anyone"};
  CHECK(refusal_of(r) == "GET /api/health: two rows of one method and path");
  r.back() = {"GET", "/api/x", "x", "", "No area", "anyone"};
  CHECK(refusal_of(r).find("no area") != std::string::npos);
  r.back() = {"GET", "/api/x", "x", "service", "Nobody", ""};
  CHECK(refusal_of(r).find("who may call") != std::string::npos);
  r.back() = {"GET", "/api/x{y}", "x", "service", "A partial id", "anyone"};
  CHECK(refusal_of(r).find("{name}, whole") != std::string::npos);
  r.back() = {"TRACE", "/api/x", "x", "service", "A method no table has", "anyone"};
  CHECK(refusal_of(r).find("unknown method") != std::string::npos);
}
