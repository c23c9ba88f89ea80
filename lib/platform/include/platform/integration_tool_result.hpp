#pragma once
// The Integration tool result: what a custom tool or app action replies with, success or not.
// Shared by the request builder (its failures), the executor and the web server.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace platform {

enum class integration_error : unsigned char;  // errorCode's closed set: integration_error.hpp

// Design notes: the closed set of errorCategory values.
enum class error_category {
  input,
  spec,
  configuration,
  credentials,
  permission,
  provider,
  network,
  timeout,
  limit,
  guard,
  internal,
};

std::string_view to_string(error_category c);
std::optional<error_category> parse_error_category(std::string_view s);

// Only failures the builder can fix by editing the tool call or agents.json may offer
// "Ask builder to fix"; credentials, permission and provider problems belong to the owner.
bool can_request_builder_repair(error_category c);

struct integration_tool_result {
  bool success = false;
  std::optional<std::string> data_json;  // provider response as JSON text
  bool mock = false;
  std::optional<std::string> mock_reason;
  std::optional<int> status_code;
  std::optional<std::string> error;
  std::optional<integration_error> error_code;  // errorCode: its stable UPPER_SNAKE name
  std::optional<error_category> category;
  std::optional<std::string> resolution;
  std::optional<bool> retryable;
  std::optional<bool> can_request_builder_repair;
  std::optional<std::string> details_json;  // bounded, redacted object as JSON text

  // A failure with the code's category and retryable flag, and canRequestBuilderRepair derived
  // from the category; an empty `resolution` is the code's own (integration_error.hpp).
  // Callers must never put secret values in any of the texts.
  static integration_tool_result failure(integration_error code, std::string error, std::string resolution,
                                         std::optional<std::string> details_json = {});

  // Compact JSON with the spec's field names; absent optionals are omitted. data and
  // details are embedded as JSON (as a string when the text is not JSON); details over
  // max_details_bytes are replaced by {"truncated":true}.
  [[nodiscard]] std::string to_json() const;
};

inline constexpr std::size_t max_details_bytes = 4096;

}  // namespace platform
