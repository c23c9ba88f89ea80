#pragma once
// Private to libplatform: a text that should be JSON, as a value to put inside a reply
// (integration_tool_result's data and details, a tool request's JSON body in its JSON form).
#include <string>

#include <nlohmann/json.hpp>

#include "platform/json_limits.hpp"

namespace platform {

// The text parsed as JSON, or the text itself as a JSON string when it is not JSON (or nests
// deeper than a reply can be dumped safely). Ordered, so the template's and the agent's key
// order is kept.
inline nlohmann::ordered_json embed_json(const std::string& text) {
  using json = nlohmann::ordered_json;
  if (nests_deeper_than(text, 512)) return json(text);
  auto v = json::parse(text, nullptr, false);
  if (v.is_discarded()) return json(text);
  return v;
}

}  // namespace platform
