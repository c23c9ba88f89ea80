#pragma once
// The one way the platform writes an nlohmann value as text: compact, and invalid UTF-8 in
// strings replaced by U+FFFD rather than thrown on. It includes nlohmann/json.hpp: include it
// from .cpp files (and headers that need nlohmann anyway), not from widely included headers.
#include <string>

#include <nlohmann/json.hpp>

namespace platform {

// Compact JSON text of `j` (nlohmann::json or nlohmann::ordered_json).
template <class Json>
std::string compact_json(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace platform
