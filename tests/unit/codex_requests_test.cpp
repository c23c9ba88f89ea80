// The worker's answers to codex app-server's server requests (servers/worker/codex_requests.cpp):
// MCP tool-call approvals only for granted tools of allowlisted servers (spec "Authentication"
// 5), every other approval declined, unservable requests refused. Request shapes are codex
// 0.169.0's (shared/fixtures/runtime-b/mcp-tool-call*.jsonl, command-approval.jsonl).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "codex_requests.hpp"

using nlohmann::json;
using namespace platform::worker;

namespace {

broker_access grant() {
  broker_access b;
  b.base_url = "http://127.0.0.1:1";
  b.token = "t";
  b.servers = {"platform", "app_data", "github"};
  b.tools = {"mcp__platform__present_plan", "mcp__app_data__read_app_data", "mcp__github__create_issue"};
  return b;
}

std::string elicitation(const std::string& server, const json& meta, json id = 0) {
  return json({{"method", "mcpServer/elicitation/request"},
               {"id", id},
               {"params", {{"threadId", "T"}, {"turnId", "U"}, {"serverName", server}, {"mode", "form"}, {"_meta", meta},
                           {"message", "Allow?"}, {"requestedSchema", {{"type", "object"}, {"properties", json::object()}}}}}})
      .dump();
}

json tool_call(const std::string& tool) { return {{"codex_approval_kind", "mcp_tool_call"}, {"tool_name", tool}}; }

json reply_of(const codex_answer& a) { return json::parse(a.reply); }

}  // namespace

TEST_CASE("a tool-call approval of a granted tool on an allowlisted server is accepted") {
  auto a = answer_codex_request(elicitation("platform", tool_call("present_plan"), 7), grant());
  CHECK(a.decision == "accept");
  CHECK(reply_of(a) == json::parse(R"({"id":7,"result":{"action":"accept","content":null,"_meta":null}})"));
  CHECK(answer_codex_request(elicitation("app_data", tool_call("read_app_data")), grant()).decision == "accept");
}

TEST_CASE("every other elicitation is declined") {
  auto b = grant();
  SUBCASE("a tool the turn was not granted") {
    CHECK(answer_codex_request(elicitation("platform", tool_call("done_building")), b).decision == "decline");
  }
  SUBCASE("a server outside the allowlist, even when listed in the grant") {
    CHECK(answer_codex_request(elicitation("github", tool_call("create_issue")), b).decision == "decline");
  }
  SUBCASE("an allowlisted server this turn has no grant on") {
    b.servers = {"platform"};
    CHECK(answer_codex_request(elicitation("app_data", tool_call("read_app_data")), b).decision == "decline");
  }
  SUBCASE("a genuine MCP elicitation (no approval kind)") {
    CHECK(answer_codex_request(elicitation("platform", nullptr), b).decision == "decline");
  }
  SUBCASE("another approval kind") {
    json meta = tool_call("present_plan");
    meta["codex_approval_kind"] = "tool_suggest";
    CHECK(answer_codex_request(elicitation("platform", meta), b).decision == "decline");
  }
  SUBCASE("no broker this turn") {
    CHECK(answer_codex_request(elicitation("platform", tool_call("present_plan")), std::nullopt).decision == "decline");
  }
  SUBCASE("malformed fields") {
    CHECK(answer_codex_request(elicitation("platform", {{"codex_approval_kind", 1}, {"tool_name", "present_plan"}}), b).decision ==
          "decline");
    CHECK(answer_codex_request(elicitation("platform", {{"codex_approval_kind", "mcp_tool_call"}, {"tool_name", 5}}), b).decision ==
          "decline");
  }
  auto a = answer_codex_request(elicitation("platform", nullptr, "req-1"), b);
  CHECK(reply_of(a) == json::parse(R"({"id":"req-1","result":{"action":"decline","content":null,"_meta":null}})"));
}

TEST_CASE("command, file and permission approvals are declined; user input gets no answers") {
  auto ask = [](const char* method) {
    return json({{"method", method}, {"id", 3}, {"params", {{"threadId", "T"}, {"command", "rm -rf /"}}}}).dump();
  };
  CHECK(reply_of(answer_codex_request(ask("item/commandExecution/requestApproval"), grant())) ==
        json::parse(R"({"id":3,"result":{"decision":"decline"}})"));
  CHECK(reply_of(answer_codex_request(ask("item/fileChange/requestApproval"), grant())) ==
        json::parse(R"({"id":3,"result":{"decision":"decline"}})"));
  CHECK(reply_of(answer_codex_request(ask("execCommandApproval"), grant())) ==
        json::parse(R"({"id":3,"result":{"decision":"denied"}})"));
  CHECK(reply_of(answer_codex_request(ask("item/permissions/requestApproval"), grant())) ==
        json::parse(R"({"id":3,"result":{"permissions":{},"scope":"turn"}})"));
  CHECK(reply_of(answer_codex_request(ask("item/tool/requestUserInput"), grant())) ==
        json::parse(R"({"id":3,"result":{"answers":{}}})"));
}

TEST_CASE("requests a headless client cannot serve get a JSON-RPC error") {
  auto a = answer_codex_request(R"({"method":"account/chatgptAuthTokens/refresh","id":9,"params":{}})", grant());
  CHECK(a.decision == "unsupported");
  CHECK(reply_of(a) == json::parse(R"({"id":9,"error":{"code":-32601,"message":"not supported by this client"}})"));
}
