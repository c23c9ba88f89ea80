#pragma once
// The pure half of tool execution on the web server: mock replies, the final shaping of every
// Integration tool result (secrets scrubbed, details bounded and redacted, the repair flag
// derived from the category), failure fingerprints and the builder repair prompt. No I/O, so
// the rules are unit-tested (tests/unit/tool_shaping_test.cpp).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/agents_config.hpp"
#include "platform/integration_tool_result.hpp"

namespace platform::web {

// Spec rule 7: a not-configured integration answers with mockData entry `index` (taken modulo
// the entry count), success and mock true. A tool without mockData (never approvable) fails
// as a spec problem instead.
integration_tool_result mock_result(const tool& t, std::string reason, std::size_t index);

// The reply as it may leave the server: every value of `secrets` (4 bytes or more) scrubbed
// from data, texts and details; details redacted and bounded; canRequestBuilderRepair true
// only for input/spec failures and absent on success.
integration_tool_result finalize_result(integration_tool_result r, const std::vector<std::string>& secrets);

// Failures that only the integration owner can fix (credentials, permission, configuration):
// never a builder repair (spec "Automatic tool failure recovery" 4).
bool owner_fixable(std::optional<error_category> c);

// A stable UPPER_SNAKE code of at most 64 bytes, or "UNKNOWN" (report payloads are untrusted).
std::string safe_error_code(std::string_view code);

// Hex sha256 of the failure's identity: app, tool, errorCode and the endpoint template
// (method and URL as in agents.json; secrets there are placeholders, never values).
std::string failure_fingerprint(std::string_view workspace_id, std::string_view app_id, std::string_view tool_name,
                                std::string_view error_code, const std::optional<tool_endpoint>& endpoint);

std::string sha256_hex(std::string_view data);

// What the builder repair run is asked: inspect agents.json, the app code, the integration
// setup and the app-agent prompt, then re-present governed agents or setup when they change.
// `report_json` is the redacted, bounded report; it is quoted as data, not as instructions.
struct repair_context {
  std::string source;  // "app_action" or "agent_tool"
  std::string tool_name;
  std::string error_code;
  std::string report_json;
};
std::string repair_prompt(const repair_context& c);

}  // namespace platform::web
