// Contract of canonicalize_json on arbitrary bytes: never crash; accept exactly the JSON the
// strict parser accepts (minus duplicate keys, out-of-range numbers, excess depth); the
// output is a fixed point and denotes the same value as the input (numbers as doubles).
// The approval hash on the same bytes is stable under re-hashing its normalized payload.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/approval_hash.hpp"
#include "platform/canonical_json.hpp"

namespace {

using json = nlohmann::json;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// JSON value equality where every number is an ECMAScript double.
bool same_value(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_value(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !same_value(it.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

void check_canonical(std::string_view input) {
  auto out = platform::canonicalize_json(input);
  if (!out) {
    const auto& code = out.error().code;
    check(!out.error().message.empty());
    if (code == platform::api_error::invalid_json || code == platform::api_error::invalid_utf8) check(!json::accept(input));
    return;
  }
  auto again = platform::canonicalize_json(*out);
  check(again.has_value() && *again == *out);
  json original = json::parse(input, nullptr, false);
  json reparsed = json::parse(*out, nullptr, false);
  check(!original.is_discarded() && !reparsed.is_discarded());
  check(same_value(original, reparsed));
}

void check_approval(std::string_view input) {
  auto first = platform::approval_hash_v1(input);
  if (!first) return;
  check(platform::hash_scheme_of(first->hash) == platform::hash_scheme::v1);
  auto again = platform::approval_hash_v1(first->normalized_payload_json);
  check(again.has_value() && again->hash == first->hash &&
        again->normalized_payload_json == first->normalized_payload_json);
  // v2 (triggers) is idempotent too, and never differs from v1 on a document without triggers.
  auto v2 = platform::approval_hash_v2(input);
  check(v2.has_value());
  auto v2_again = platform::approval_hash_v2(v2->normalized_payload_json);
  check(v2_again.has_value() && v2_again->hash == v2->hash);
  if (platform::scheme_for_agents(input) == platform::hash_scheme::v1) {
    check(platform::approval_hash_of(input)->hash == first->hash);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_canonical(input);
  check_approval(input);
  return 0;
}
