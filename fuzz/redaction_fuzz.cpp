// The record redactor on arbitrary bytes. Contract: never crashes; the result is valid JSON
// within the total limit; a member named like a credential never keeps its value.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/redaction.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_masked(const nlohmann::json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (platform::secret_member_name(it.key())) check(*it == "[REDACTED]");
      else check_masked(*it);
    }
  } else if (v.is_array()) {
    for (const auto& item : v) check_masked(item);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  platform::redaction_limits limits;
  limits.max_total_bytes = 1024 + size % 4096;
  std::string out = platform::redact_json(text, limits);
  check(out.size() <= limits.max_total_bytes);
  auto v = nlohmann::json::parse(out, nullptr, false);
  check(!v.is_discarded());
  check_masked(v);
  return 0;
}
