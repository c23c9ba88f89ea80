#pragma once
// The Integration tool result of an HTTP action: the provider's final response as a reply, and
// the executor's own failures with their errorCategory/errorCode (design notes). Messages and
// details name at most the origin (scheme, host, port): paths, queries and header values may
// carry secrets. Codes and resolutions: docs/http-executor.md.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/http_response_parser.hpp"
#include "platform/integration_error.hpp"
#include "platform/integration_tool_result.hpp"
#include "platform/secret_scrub.hpp"  // scrub_secrets, applied to every reply

namespace platform {

// A failure reply with the code's category, resolution and retryable flag.
integration_tool_result http_action_failed(integration_error f, std::string message,
                                           std::optional<std::string> details_json = {});

// Which failure a parse_url / resolve_url / redirected error code stands for.
integration_error failure_of_url_error(api_error code);

// The reply for the provider's final response. 2xx: success with the body as data (JSON
// bodies as JSON, anything else as a string) and statusCode. Any other status:
// PROVIDER_HTTP_ERROR with statusCode and details {statusCode, origin, contentType, body}, the
// body redacted and bounded. Every secret value is scrubbed from data and details.
integration_tool_result http_action_result(const http_response& response, std::string_view origin,
                                           const std::vector<std::string>& secret_values);

// Values worth scrubbing from what the provider sends back: the values of credential headers
// (Authorization, Cookie, and names like X-Api-Key or token), and the credential after an
// auth scheme word ("Bearer abc" gives "abc" too).
std::vector<std::string> credential_values(const std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace platform
