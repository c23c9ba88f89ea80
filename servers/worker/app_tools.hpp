#pragma once
// An app agent's broker tools (spec "What the service does" 10): its custom HTTP tools as
// mcp__app_tools__<name>, executed by the web server (`/api/internal/tool-execute`, with the
// runId and never a user id), the reserved mcp__app_tools__report_tool_call_failed, and
// mcp__app_data__read_app_data / update_app_data over its declared dataCollections only.
#include <string>
#include <vector>

#include "broker.hpp"
#include "worker_config.hpp"

namespace platform::worker {

// From the agentConfig the web server sent ({id, tools, dataCollections}, JSON text). Tools
// that are not custom or are switched off get no binding; a malformed config gives none.
std::vector<tool_binding> app_agent_tools(const config& cfg, const std::string& agent_config_json);

// The longest text of one tool failure record and of any string inside it.
inline constexpr std::size_t max_failure_record_bytes = 8 * 1024;

}  // namespace platform::worker
