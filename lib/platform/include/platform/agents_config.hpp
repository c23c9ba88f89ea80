#pragma once
// agents.json: the typed document and its validation (the rules present_agents applies).
// Free-form JSON parts (endpoint.body, responseSchema, mockData entries) are kept as
// compact JSON text so this header stays free of a JSON library.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct integration_setup;  // integration_setup.hpp

struct oauth2_auth {
  std::string provider_key;
  std::string identity;                // "triggering_user"
  std::string authorization_url;
  std::string token_url;
  std::vector<std::string> scopes;
};

struct tool_integration {
  std::string name;
  std::string domain;
  std::string key_slug = "default";   // missing is normalized to "default"
  std::optional<std::string> setup_search_query;
  std::optional<oauth2_auth> oauth2;  // set when integration.auth.type == "oauth2"
};

struct tool_endpoint {
  std::string method;
  std::string url;
  std::map<std::string, std::string> headers;
  std::map<std::string, std::string> query_params;
  std::optional<std::string> body_json;  // endpoint.body as compact JSON text
};

enum class tool_type { builtin, custom };

struct tool {
  tool_type type = tool_type::custom;
  std::string name;
  std::optional<std::string> display_name;
  std::string description;
  bool enabled = true;
  bool recommended = false;
  std::optional<tool_integration> integration;  // custom tools
  std::optional<tool_endpoint> endpoint;        // custom tools
  std::optional<std::string> response_schema_json;
  std::vector<std::string> mock_data_json;      // each entry as compact JSON text
};

// A routine's triggers (issue 37; docs/routines.md): the agent runs on a schedule, on a signed
// webhook, or both, once the document is published.
struct schedule_trigger {
  std::string cron;      // five fields, joined by single spaces
  std::string timezone;  // an IANA zone name, e.g. Europe/Paris, or UTC
  std::string prompt;    // what each scheduled run is asked
};

struct webhook_trigger {
  std::string prompt;    // put before the request's JSON body in the run's input; may be empty
};

struct agent_triggers {
  std::optional<schedule_trigger> schedule;
  std::optional<webhook_trigger> webhook;
  [[nodiscard]] bool any() const { return schedule || webhook; }
};

struct agent {
  std::string id;
  std::string name;
  std::string description;
  std::string system_prompt;
  std::vector<std::string> data_collections;
  std::vector<tool> tools;
  agent_triggers triggers;
};

struct agents_config {
  std::vector<tool> app_tools;
  std::vector<agent> agents;

  [[nodiscard]] const agent* find_agent(std::string_view id) const;
  // Looks in the agent's tools when agent_id is given, else in appTools.
  [[nodiscard]] const tool* find_tool(std::string_view tool_name,
                                      std::optional<std::string_view> agent_id = {}) const;
};

// Parses and validates. Every violation is reported at once; the config is returned only
// when there are none. `setup` enables the cross-file rules (declared secrets).
struct agents_config_report {
  std::optional<agents_config> config;  // set iff violations is empty
  violations problems;
};

agents_config_report validate_agents_config(std::string_view json_text,
                                            const integration_setup* setup = nullptr);

// Rule 1 for a host that found no agents.json: the report present_agents gives then
// (one `file_missing` violation).
agents_config_report agents_config_missing();

// Every violation code the agents.json and integration-setup.json validators can report.
// `file` is "agents.json", "integration-setup.json" or "both". docs/agents-json.md and
// docs/integration-setup.md explain each one with its fix.
struct violation_code_info {
  std::string_view code;
  std::string_view file;
  std::string_view meaning;
};
std::span<const violation_code_info> config_violation_codes();

}  // namespace platform
