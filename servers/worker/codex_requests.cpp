#include "codex_requests.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"

namespace platform::worker {

using nlohmann::json;

namespace {

using servers::member;
using servers::string_field;

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// A genuine MCP elicitation (a server asking the user something) has no codex_approval_kind;
// other kinds (tool_suggest, …) are not tool calls.
bool elicitation_allowed(const json& params, const std::optional<broker_access>& broker) {
  if (!broker) return false;
  const json& meta = member(params, "_meta");
  if (string_field(meta, "codex_approval_kind") != "mcp_tool_call") return false;
  std::string server = string_field(params, "serverName");
  std::string tool = string_field(meta, "tool_name");
  if ((server != "platform" && server != "app_tools" && server != "app_data") || tool.empty()) return false;
  return contains(broker->servers, server) && contains(broker->tools, "mcp__" + server + "__" + tool);
}

std::string reply(const json& id, json result) {
  return compact_json(json({{"id", id}, {"result", std::move(result)}}));
}

}  // namespace

codex_answer answer_codex_request(std::string_view request, const std::optional<broker_access>& broker) {
  json m = servers::parse_json_within(request);
  const json& id = member(m, "id");
  std::string method = string_field(m, "method");
  const json& params = member(m, "params");
  if (method == "mcpServer/elicitation/request") {
    bool ok = elicitation_allowed(params, broker);
    std::string action = ok ? "accept" : "decline";
    return {reply(id, {{"action", action}, {"content", nullptr}, {"_meta", nullptr}}), action};
  }
  if (method == "item/commandExecution/requestApproval" || method == "item/fileChange/requestApproval") {
    return {reply(id, {{"decision", "decline"}}), "decline"};
  }
  if (method == "execCommandApproval" || method == "applyPatchApproval") {
    return {reply(id, {{"decision", "denied"}}), "denied"};
  }
  if (method == "item/permissions/requestApproval") {
    return {reply(id, {{"permissions", json::object()}, {"scope", "turn"}}), "decline"};  // nothing granted
  }
  if (method == "item/tool/requestUserInput") {
    return {reply(id, {{"answers", json::object()}}), "no_answer"};  // nobody is there to answer
  }
  json error = {{"id", id}, {"error", {{"code", -32601}, {"message", "not supported by this client"}}}};
  return {compact_json(error), "unsupported"};
}

}  // namespace platform::worker
