// The Integration tool result (integration_tool_result.hpp): the closed set of error
// categories, the failure shape and the reply's JSON form.
#include "platform/integration_tool_result.hpp"

#include "platform/integration_error.hpp"

#include <array>
#include <utility>

#include <nlohmann/json.hpp>

#include "embed_json.hpp"
#include "platform/compact_json.hpp"

namespace platform {
namespace {

using nlohmann::ordered_json;

constexpr std::array<std::pair<error_category, std::string_view>, 11> category_names{{
    {error_category::input, "input"},
    {error_category::spec, "spec"},
    {error_category::configuration, "configuration"},
    {error_category::credentials, "credentials"},
    {error_category::permission, "permission"},
    {error_category::provider, "provider"},
    {error_category::network, "network"},
    {error_category::timeout, "timeout"},
    {error_category::limit, "limit"},
    {error_category::guard, "guard"},
    {error_category::internal, "internal"},
}};

}  // namespace

std::string_view to_string(error_category c) {
  for (const auto& [k, name] : category_names) {
    if (k == c) return name;
  }
  return "internal";
}

std::optional<error_category> parse_error_category(std::string_view s) {
  for (const auto& [k, name] : category_names) {
    if (name == s) return k;
  }
  return std::nullopt;
}

bool can_request_builder_repair(error_category c) {
  return c == error_category::input || c == error_category::spec;
}

integration_tool_result integration_tool_result::failure(integration_error code, std::string error,
                                                         std::string resolution,
                                                         std::optional<std::string> details_json) {
  const auto& info = info_of(code);
  integration_tool_result r;
  r.error = std::move(error);
  r.error_code = code;
  r.category = info.category;
  r.resolution = resolution.empty() ? std::string(info.resolution) : std::move(resolution);
  r.retryable = info.retryable;
  r.can_request_builder_repair = platform::can_request_builder_repair(info.category);
  r.details_json = std::move(details_json);
  return r;
}

std::string integration_tool_result::to_json() const {
  ordered_json o;
  o["success"] = success;
  if (data_json) o["data"] = embed_json(*data_json);
  o["mock"] = mock;
  if (mock_reason) o["mockReason"] = *mock_reason;
  if (status_code) o["statusCode"] = *status_code;
  if (error) o["error"] = *error;
  if (error_code) o["errorCode"] = std::string(code_of(*error_code));
  if (category) o["errorCategory"] = std::string(to_string(*category));
  if (resolution) o["resolution"] = *resolution;
  if (retryable) o["retryable"] = *retryable;
  if (can_request_builder_repair) o["canRequestBuilderRepair"] = *can_request_builder_repair;
  if (details_json) {
    o["details"] = details_json->size() > max_details_bytes ? ordered_json{{"truncated", true}}
                                                            : embed_json(*details_json);
  }
  return compact_json(o);
}

}  // namespace platform
