#include "app_tools.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "platform/placeholder.hpp"
#include "platform/redaction.hpp"
#include "web_internal.hpp"
#include "../common/json_fields.hpp"

namespace platform::worker {

namespace {

using nlohmann::json;

constexpr int tool_execute_timeout_s = 60;  // the web's HTTP executor stops at 20 s per call


tool_outcome error_text(std::string message) { return {std::move(message), true}; }

// Input paths the endpoint reads ({{a.b}}), to tell the model which fields to pass.
void collect_input_paths(const json& v, std::vector<std::string>& out) {
  if (v.is_string()) {
    auto t = parse_placeholder_template(v.get_ref<const std::string&>());
    if (!t) return;
    for (const auto& p : t->placeholders()) {
      if (p.k == placeholder::kind::input && std::find(out.begin(), out.end(), p.path) == out.end()) out.push_back(p.path);
    }
  } else if (v.is_structured()) {
    for (const auto& item : v) collect_input_paths(item, out);
  }
}

std::string custom_tool_schema(const json& tool) {
  std::vector<std::string> paths;
  if (auto e = tool.find("endpoint"); e != tool.end()) collect_input_paths(*e, paths);
  std::string hint = paths.empty() ? "This tool takes no input: pass \"{}\"."
                                   : "A JSON object as a string with the fields: ";
  for (std::size_t i = 0; i < paths.size(); ++i) hint += (i ? ", " : "") + paths[i];
  json schema = {{"type", "object"},
                 {"properties", {{"input", {{"type", "string"}, {"description", hint}}}}},
                 {"additionalProperties", false}};
  return schema.dump();
}

// The agent passes its input as a JSON string (spec "Placeholder kinds"); a model that passes
// the fields as an object, or nothing, is met halfway.
std::string tool_input_text(const std::string& arguments_json) {
  json args = servers::parse_json_within(arguments_json);
  if (!args.is_object() || args.empty()) return "{}";
  if (auto it = args.find("input"); it != args.end() && args.size() == 1) {
    return it->is_string() ? it->get<std::string>() : compact_json(*it);
  }
  return compact_json(args);
}

// The record kept for report_tool_call_failed: what failed and where, never secrets (the
// endpoint is the template, whose secrets are placeholders) nor unbounded responses.
std::string failure_record(const json& tool, const std::string& input, int status, const json& result) {
  json input_value = servers::parse_json_within(input, json_limits{});  // a model wrote it
  json rec = {{"toolName", tool.value("name", "")},
              {"input", input_value.is_discarded() ? json(input) : input_value},
              {"executeStatus", status}};
  if (auto i = tool.find("integration"); i != tool.end() && i->is_object()) {
    rec["integration"] = {{"name", i->value("name", "")}, {"domain", i->value("domain", "")},
                          {"keySlug", i->value("keySlug", "default")}};
  }
  if (auto e = tool.find("endpoint"); e != tool.end() && e->is_object()) {
    rec["endpoint"] = {{"method", e->value("method", "")}, {"url", e->value("url", "")}};
  }
  json err = json::object();
  for (const char* k : {"error", "errorCode", "errorCategory", "statusCode", "retryable", "details"}) {
    if (result.is_object() && result.contains(k)) err[k] = result[k];
  }
  rec["error"] = err;
  return redact_json(compact_json(rec), {.max_string_bytes = 1024, .max_members = 30, .max_depth = 6,
                                 .max_total_bytes = max_failure_record_bytes});
}

tool_handler custom_tool(const config& cfg, json tool, std::string agent_id) {
  return [&cfg, tool = std::move(tool), agent_id](turn_context& ctx, const mcp_tool_call& call) -> tool_outcome {
    std::string input = tool_input_text(call.arguments_json);
    json body = {{"workspaceId", ctx.workspace_id}, {"appId", ctx.app_id}, {"runId", ctx.run_id},
                 {"agentId", agent_id}, {"toolName", tool.value("name", "")}, {"input", input}};
    auto reply = post_internal(cfg, ctx.web_origin, "/api/internal/tool-execute", ctx.run_capability, compact_json(body), tool_execute_timeout_s);
    if (!reply) return error_text("The platform could not run this tool: the web server did not answer.");
    json result = servers::parse_json_within(reply->body);
    bool success = result.is_object() && result.value("success", false);
    bool mock = result.is_object() && result.value("mock", false);
    if (!success && !mock) ctx.record_failure(failure_record(tool, input, reply->status, result));
    if (result.is_discarded()) return error_text("The tool failed (HTTP " + std::to_string(reply->status) + ").");
    return {compact_json(result), !success};
  };
}

tool_handler report_failure(const config& cfg, std::string agent_id) {
  return [&cfg, agent_id](turn_context& ctx, const mcp_tool_call& call) -> tool_outcome {
    json args = servers::parse_json_within(call.arguments_json);
    std::string tool_name = args.is_object() ? args.value("toolName", "") : "";
    if (tool_name.empty()) return error_text("toolName is required: the custom tool whose failure blocks the task.");
    json records = json::array();
    for (const auto& r : ctx.failures()) {
      json rec = servers::parse_json_within(r);
      if (rec.is_object() && rec.value("toolName", "") == tool_name) records.push_back(std::move(rec));
    }
    if (records.empty()) {
      return error_text("No real failure of " + tool_name + " was recorded in this run; report only tool calls that failed.");
    }
    json body = {{"workspaceId", ctx.workspace_id}, {"appId", ctx.app_id}, {"runId", ctx.run_id},
                 {"agentId", agent_id}, {"toolName", tool_name},
                 {"description", redact_json(compact_json(json(args.value("description", ""))), {.max_total_bytes = 4096})},
                 {"attemptedTask", redact_json(compact_json(json(args.value("attemptedTask", ""))), {.max_total_bytes = 4096})},
                 {"failures", records}};
    auto reply = post_internal(cfg, ctx.web_origin, "/api/internal/tool-failure-report", ctx.run_capability, compact_json(body));
    if (!reply) return error_text("The failure could not be reported: the web server did not answer.");
    return {reply->body.empty() ? "{}" : reply->body, reply->status >= 400};
  };
}

tool_handler data_tool(const config& cfg, std::string action, std::vector<std::string> collections, std::string agent_id) {
  return [&cfg, action, collections, agent_id](turn_context& ctx, const mcp_tool_call& call) -> tool_outcome {
    json args = servers::parse_json_within(call.arguments_json);
    std::string collection = args.is_object() ? args.value("collection", "") : "";
    if (std::find(collections.begin(), collections.end(), collection) == collections.end()) {
      std::string allowed;
      for (const auto& c : collections) allowed += (allowed.empty() ? "" : ", ") + c;
      return error_text("collection must be one of this agent's dataCollections: " + allowed);
    }
    json body = {{"workspaceId", ctx.workspace_id}, {"appId", ctx.app_id}, {"runId", ctx.run_id},
                 {"agentId", agent_id}, {"action", action}, {"request", args}};
    auto reply = post_internal(cfg, ctx.web_origin, "/api/internal/app-data", ctx.run_capability, compact_json(body));
    if (!reply) return error_text("App data is unavailable: the web server did not answer.");
    return {reply->body.empty() ? "{}" : reply->body, reply->status >= 400};
  };
}

tool_binding binding(std::string tool, std::string description, std::string schema, tool_handler run,
                     std::string_view server = mcp_server_app_tools) {
  return {{mcp_tool_name(server, tool), std::move(description), std::move(schema), {}}, std::move(run)};
}

constexpr std::string_view report_schema = R"({"type":"object","properties":{
"toolName":{"type":"string","description":"The custom tool whose real failure blocks the task."},
"description":{"type":"string","description":"What went wrong, in a sentence or two."},
"attemptedTask":{"type":"string","description":"What you were trying to do."}},
"required":["toolName","description"],"additionalProperties":false})";

constexpr std::string_view read_schema = R"({"type":"object","properties":{
"collection":{"type":"string"},"docId":{"type":"string","description":"One document; omit to list."},
"limit":{"type":"integer","minimum":1,"maximum":200}},"required":["collection"],"additionalProperties":false})";

constexpr std::string_view update_schema = R"({"type":"object","properties":{
"collection":{"type":"string"},"op":{"type":"string","enum":["insert","update","remove"]},
"docId":{"type":"string","description":"Required for update and remove."},
"data":{"type":"object","description":"insert: the document data; update: fields merged into it."}},
"required":["collection","op"],"additionalProperties":false})";

}  // namespace

std::vector<tool_binding> app_agent_tools(const config& cfg, const std::string& agent_config_json) {
  std::vector<tool_binding> out;
  json agent = servers::parse_json_within(agent_config_json);
  if (!agent.is_object()) return out;
  std::string agent_id = agent.value("id", "");
  if (auto tools = agent.find("tools"); tools != agent.end() && tools->is_array()) {
    for (const auto& t : *tools) {
      if (!t.is_object() || t.value("type", "custom") != "custom" || !t.value("enabled", true)) continue;
      std::string name = t.value("name", "");
      if (name.empty() || name == "report_tool_call_failed" || !split_mcp_tool_name(mcp_tool_name(mcp_server_app_tools, name))) continue;
      std::string description = t.value("description", "");
      out.push_back(binding(name, description, custom_tool_schema(t), custom_tool(cfg, t, agent_id)));
    }
  }
  if (!out.empty()) {
    out.push_back(binding("report_tool_call_failed",
                          "Report a real failure of one of your custom tools that blocks the task, after finishing "
                          "the work it does not block. Not for wrong or expired keys, missing scopes or provider "
                          "access problems.",
                          std::string(report_schema), report_failure(cfg, agent_id)));
  }
  std::vector<std::string> collections;
  if (auto c = agent.find("dataCollections"); c != agent.end() && c->is_array()) {
    for (const auto& name : *c) {
      if (name.is_string()) collections.push_back(name.get<std::string>());
    }
  }
  if (!collections.empty()) {
    out.push_back(binding("read_app_data", "Read documents of one of this app's data collections.",
                          std::string(read_schema), data_tool(cfg, "read", collections, agent_id), mcp_server_app_data));
    out.push_back(binding("update_app_data", "Insert, update (merge) or remove a document in one of this app's data collections.",
                          std::string(update_schema), data_tool(cfg, "write", collections, agent_id), mcp_server_app_data));
  }
  return out;
}

}  // namespace platform::worker
