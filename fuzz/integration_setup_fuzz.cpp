// integration-setup.json validation on arbitrary bytes.
// Contract: never crashes; a setup comes back iff there are no violations; every code is known
// and the report is valid JSON; validating again gives the same report; registration takes all
// integrations of a valid file and none of an invalid one; in a valid setup every
// (domain, keySlug) and every secret name finds itself (they are unique).
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

bool known_code(std::string_view code) {
  for (const auto& c : platform::config_violation_codes()) {
    if (c.code == code) return c.file != "agents.json";
  }
  return false;
}

void check_lookups(const platform::integration_setup& s) {
  check(!s.integrations.empty());
  for (const auto& i : s.integrations) {
    check(!i.name.empty() && !i.domain.empty() && !i.key_slug.empty());
    check(s.find_integration(i.domain, i.key_slug) == &i);
    for (const auto& secret : i.secrets) check(i.find_secret(secret.name) == &secret);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto first = platform::validate_integration_setup(input);
  check(first.setup.has_value() == first.problems.empty());
  for (const auto& v : first.problems) check(known_code(v.code) && !v.message.empty());
  std::string report = platform::violations_to_json(first.problems);
  auto doc = nlohmann::json::parse(report, nullptr, false);
  check(!doc.is_discarded() && doc["violations"].size() == first.problems.size());
  check(platform::violations_to_json(platform::validate_integration_setup(input).problems) == report);
  auto registered = platform::integrations_to_register(input);
  check(registered.not_registered_reason.has_value() == !first.setup.has_value());
  if (first.setup) {
    check(registered.integrations.size() == first.setup->integrations.size());
    check_lookups(*first.setup);
  } else {
    check(registered.integrations.empty());
  }
  return 0;
}
