// agents.json validation on arbitrary bytes.
// Input: AGENTS_JSON, or SETUP_JSON + "\n----\n" + AGENTS_JSON to exercise the setup rules.
// Contract: never crashes; a config comes back iff there are no violations; every violation
// has a known code and the report is valid JSON; validating again gives the same report; in a
// valid config every agent id and tool name finds itself (they are unique).
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/agents_config.hpp"
#include "platform/integration_setup.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

const std::set<std::string_view>& known_codes() {
  static const std::set<std::string_view> codes = [] {
    std::set<std::string_view> s;
    for (const auto& c : platform::config_violation_codes()) s.insert(c.code);
    return s;
  }();
  return codes;
}

// Returns the report's JSON.
std::string check_report(const platform::agents_config_report& r) {
  check(r.config.has_value() == r.problems.empty());
  for (const auto& v : r.problems) {
    check(known_codes().count(v.code) == 1);
    check(!v.message.empty());
  }
  std::string json = platform::violations_to_json(r.problems);
  auto doc = nlohmann::json::parse(json, nullptr, false);
  check(!doc.is_discarded() && doc["ok"] == r.problems.empty() && doc["violations"].size() == r.problems.size());
  return json;
}

void check_lookups(const platform::agents_config& c) {
  check(!c.agents.empty() || !c.app_tools.empty());
  for (const auto& a : c.agents) {
    check(c.find_agent(a.id) == &a);
    for (const auto& t : a.tools) check(c.find_tool(t.name, a.id) == &t);
  }
  for (const auto& t : c.app_tools) {
    check(c.find_tool(t.name) == &t);
    check(t.type == platform::tool_type::custom && t.endpoint && t.integration && t.mock_data_json.size() >= 3);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view separator = "\n----\n";
  std::optional<platform::integration_setup> setup;
  std::string_view agents_text = input;
  if (auto at = input.find(separator); at != std::string_view::npos) {
    auto s = platform::validate_integration_setup(input.substr(0, at));
    check(s.setup.has_value() == s.problems.empty());
    setup = std::move(s.setup);
    agents_text = input.substr(at + separator.size());
  }
  const platform::integration_setup* with = setup ? &*setup : nullptr;
  auto first = platform::validate_agents_config(agents_text, with);
  std::string first_json = check_report(first);
  auto second = platform::validate_agents_config(agents_text, with);
  check(first_json == platform::violations_to_json(second.problems));
  if (first.config) check_lookups(*first.config);
  if (with != nullptr && first.config) {
    // The setup rules only add violations: a config valid with a setup is valid without it.
    check(platform::validate_agents_config(agents_text).config.has_value());
  }
  return 0;
}
