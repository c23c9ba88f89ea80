#pragma once
// Private to libplatform: nlohmann's parser behind the scan of platform/json_limits.hpp, for
// text that comes from outside the core (runtime output, stored values, tokens), so that no
// value the core dumps, copies or compares is deeper than it can recurse over.
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/json_limits.hpp"

namespace platform {

// `text` parsed, or a discarded value when it is not JSON or passes `limits`.
template <class Json = nlohmann::json>
Json parse_json_within(std::string_view text, const json_limits& limits) {
  if (!within_json_limits(text, limits)) return Json(Json::value_t::discarded);
  return Json::parse(text, nullptr, false);
}

}  // namespace platform
