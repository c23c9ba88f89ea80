#pragma once
// Small pieces every worker route shares: the design notes' error body and reading optional
// string fields of a request body.
#include <httplib.h>

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace platform::worker {

inline void send_error(httplib::Response& res, int status, std::string_view code, std::string_view message) {
  res.status = status;
  res.set_content(nlohmann::json({{"error", {{"code", code}, {"message", message}}}}).dump(), "application/json");
}

// The string at `key`, or "" when it is missing or not a string.
inline std::string string_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace platform::worker
