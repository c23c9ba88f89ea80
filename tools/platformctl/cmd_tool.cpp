// platformctl tool request: the HTTP request the executor would send for a custom tool, with
// secret values redacted, or the Integration tool result it would reply with instead.
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "platform/agents_config.hpp"
#include "platform/compact_json.hpp"
#include "platform/error.hpp"
#include "platform/tool_request.hpp"

namespace platformctl {
namespace {

using json = nlohmann::ordered_json;

// Stands in for the connected account's token: the output shows only its redaction marker.
constexpr const char* stand_in_access_token = "platformctl-stand-in-access-token";

// --secrets is a JSON object NAME -> string value.
std::optional<std::map<std::string, std::string>> parse_secrets(const std::string& text,
                                                                std::string& error) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = "tool request: --secrets must be a JSON object of NAME: \"value\"";
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : j.items()) {
    if (!value.is_string()) {
      error = "tool request: --secrets value of " + name + " must be a string";
      return std::nullopt;
    }
    out.emplace(name, value.get<std::string>());
  }
  return out;
}

int lookup_error(const std::string& code, const std::string& message) {
  print_line(platform::compact_json(json{{"ok", false}, {"error", {{"code", code}, {"message", message}}}}));
  return exit_invalid;
}

int print_outcome(const platform::tool_request_outcome& outcome) {
  if (!outcome) {
    print_line("{\"ok\":false,\"result\":" + outcome.error().to_json() + "}");
    return exit_invalid;
  }
  print_line("{\"ok\":true,\"request\":" + platform::to_json(outcome->redacted) + "}");
  return exit_ok;
}

int request(const args& a) {
  if (a.positional.size() != 3) return usage_error("tool request: expected FILE TOOL_NAME");
  std::string error;
  std::map<std::string, std::string> secrets;
  if (auto text = a.get("secrets")) {
    auto parsed = parse_secrets(*text, error);
    if (!parsed) return usage_error(error);
    secrets = std::move(*parsed);
  }
  auto text = read_input(a.positional[1]);
  if (!text) return exit_usage;
  auto report = platform::validate_agents_config(*text);
  if (!report.config) {
    print_line(platform::violations_to_json(report.problems));
    return exit_invalid;
  }
  const auto& config = *report.config;
  auto agent_id = a.get("agent");
  if (agent_id && config.find_agent(*agent_id) == nullptr) {
    return lookup_error("unknown_agent", "no agent with id " + *agent_id);
  }
  const std::string& name = a.positional[2];
  const platform::tool* t = config.find_tool(name, agent_id);
  if (t == nullptr) {
    return lookup_error("unknown_tool", "no tool named " + name +
                                            (agent_id ? " in agent " + *agent_id : " in appTools"));
  }
  platform::tool_request_options options;
  if (t->integration && t->integration->oauth2) options.oauth_access_token = stand_in_access_token;
  auto resolver = [&secrets](std::string_view secret) -> std::optional<std::string> {
    auto it = secrets.find(std::string(secret));
    if (it == secrets.end()) return std::nullopt;
    return it->second;
  };
  return print_outcome(platform::build_tool_request(*t, a.get("input").value_or(""), resolver, options));
}

}  // namespace

int run_tool(int argc, char** argv) {
  std::string err;
  auto a = parse_args(argc, argv, 2, {"agent", "input", "secrets"}, err);
  if (!a) return usage_error(err);
  if (a->positional.empty() || a->positional[0] != "request") {
    return usage_error("tool: expected 'request'");
  }
  return request(*a);
}

}  // namespace platformctl
