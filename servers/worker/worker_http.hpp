#pragma once
// Small pieces every worker route shares: the design notes' error body and reading optional
// string fields of a request body (servers/common/json_fields.hpp).
#include <httplib.h>

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"

namespace platform::worker {

inline void send_error(httplib::Response& res, int status, std::string_view code, std::string_view message) {
  res.status = status;
  res.set_content(nlohmann::json({{"error", {{"code", code}, {"message", message}}}}).dump(), "application/json");
}

using servers::string_field;

}  // namespace platform::worker
