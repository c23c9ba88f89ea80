#pragma once
// Lenient reading of JSON bodies and runtime messages: fields that are missing or of another
// type read as empty, and no text is parsed past the core's depth and size bounds
// (platform/json_limits.hpp). Both servers write JSON text with compact_json
// (platform/compact_json.hpp, included here): invalid UTF-8 in strings is replaced rather than
// thrown on.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"

namespace platform::servers {

// `text` parsed, or a discarded value when it is not JSON or passes `limits`. The servers parse
// every JSON text through this (bodies through read_json_body, which adds the 4xx): a value
// past the bounds never reaches a recursive dump, copy or comparison. The default fits what
// the platform reads back or passes along: stored values, the other server's replies, runtime
// output, provider answers.
inline nlohmann::json parse_json_within(std::string_view text, const json_limits& limits = stored_json_limits) {
  if (!within_json_limits(text, limits)) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, false);
}

// The same for a value that goes into a reply: null instead of a discarded value, which
// nlohmann would write as the text `<discarded>` (a row from before the bounds, or damaged).
inline nlohmann::json parse_json_or_null(std::string_view text, const json_limits& limits = stored_json_limits) {
  nlohmann::json v = parse_json_within(text, limits);
  return v.is_discarded() ? nlohmann::json() : v;
}

// `j[key]`, or null when `j` is not an object or has no such member.
inline const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json none;
  if (!j.is_object()) return none;
  auto it = j.find(key);
  return it == j.end() ? none : *it;
}

// The string at `key`, or `fallback` when it is missing or not a string.
inline std::string string_field(const nlohmann::json& j, const char* key, std::string fallback = {}) {
  const nlohmann::json& v = member(j, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

}  // namespace platform::servers
