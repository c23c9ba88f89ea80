#pragma once
// The closed set of the Integration tool result's errorCode values (design notes): what a custom
// tool or an app action failed on, each with its one errorCategory. HTTP actions' own failures
// also carry whether a retry may help and the resolution said to the app. The table is in
// integration_error.cpp (platform/code_table.hpp); docs/http-executor.md lists it.
#include <optional>
#include <span>
#include <string_view>

#include "platform/integration_tool_result.hpp"

namespace platform {

enum class integration_error : unsigned char {
  // the tool's endpoint as agents.json writes it (spec)
  invalid_url,
  invalid_request,
  placeholder_in_host,
  invalid_method,
  invalid_header_name,
  invalid_header_value,
  forbidden_header,
  authorization_header_not_allowed,
  duplicate_header,
  invalid_placeholder,
  invalid_body,
  body_not_allowed,
  not_a_custom_tool,
  mock_data_missing,
  // the call's input
  invalid_input,
  missing_input,
  unexpected_input,
  // the integration's setup
  invalid_secret,
  missing_secret,
  missing_access_token,
  invalid_access_token,
  // the executor's guard
  scheme_not_allowed,
  host_not_allowed,
  address_not_allowed,
  // the network
  dns_failed,
  connect_failed,
  connection_lost,
  tls_failed,
  timeout,
  // limits
  url_too_long,
  response_too_large,
  too_many_redirects,
  // the provider's answer
  invalid_provider_response,
  provider_unauthorized,
  provider_forbidden,
  provider_http_error,
  // the platform
  credentials_unavailable,
  internal_error,
};

struct integration_error_info {
  std::string_view code;  // UPPER_SNAKE, as in errorCode
  error_category category;
  bool retryable;               // for the executor's own failures
  std::string_view resolution;  // the executor's own failures' resolution; else the caller's
};

const integration_error_info& info_of(integration_error e);
inline std::string_view code_of(integration_error e) { return info_of(e).code; }
inline error_category category_of(integration_error e) { return info_of(e).category; }
std::optional<integration_error> integration_error_named(std::string_view code);
// Every row, in enum order.
std::span<const integration_error_info> integration_error_table();

}  // namespace platform
