#pragma once
// Lenient reading of JSON bodies and runtime messages, and the one way both servers write
// JSON text: fields that are missing or of another type read as empty, and invalid UTF-8 in
// strings is replaced rather than thrown on.
#include <string>

#include <nlohmann/json.hpp>

namespace platform::servers {

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

// Compact JSON text.
inline std::string compact_json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace platform::servers
