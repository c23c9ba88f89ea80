#pragma once
// Builder repair runs for tool failures (spec "Automatic tool failure recovery"): the loop
// guard, the repair run (run_reason app_tool_failure) started server-side through the chat
// machinery with a platform-generated prompt, and the audit event with compact metadata and
// hashes. Shared by report-failure (app actions) and the internal tool-failure-report.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>  // a member by value

#include "platform/error.hpp"
#include "platform/integration_tool_result.hpp"

namespace platform::web {

struct web_app;

struct repair_request {
  std::string workspace_id;
  std::string app_id;
  std::string source;      // "app_action" or "agent_tool"
  std::string actor;       // "user:<id>" or "agent_run:<runId>"
  std::string tool_name;
  std::string error_code;  // safe_error_code()'d
  std::optional<error_category> category;
  std::string fingerprint;
  std::string report_json; // redacted and bounded
  nlohmann::json metadata = nlohmann::json::object();  // compact ids and hashes for the audit event
};

// The reply of both routes: {ok, status, builderRunId?, error?}. ok:false with status
// "loop_guard" when the fingerprint's bound is reached, "not_repairable" for failures only the
// integration owner can fix. Errors: the store's, and the repair run's start.
result<nlohmann::json> request_repair(web_app& app, const repair_request& r);

}  // namespace platform::web
