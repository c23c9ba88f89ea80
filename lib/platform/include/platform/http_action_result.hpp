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

#include "platform/http_response_parser.hpp"
#include "platform/integration_tool_result.hpp"
#include "platform/secret_scrub.hpp"  // scrub_secrets, applied to every reply

namespace platform {

enum class http_action_failure {
  invalid_url,          // spec INVALID_URL: the tool's own URL does not parse
  invalid_request,      // spec INVALID_REQUEST: a method or header that cannot be sent
  scheme_not_allowed,   // guard SCHEME_NOT_ALLOWED
  host_not_allowed,     // guard HOST_NOT_ALLOWED
  address_not_allowed,  // guard ADDRESS_NOT_ALLOWED
  dns_failed,           // network DNS_FAILED
  connect_failed,       // network CONNECT_FAILED
  connection_lost,      // network CONNECTION_LOST: reset or closed mid-response
  tls_failed,           // network TLS_FAILED
  timeout,              // timeout TIMEOUT
  response_too_large,   // limit RESPONSE_TOO_LARGE
  too_many_redirects,   // limit TOO_MANY_REDIRECTS
  invalid_response,     // provider INVALID_PROVIDER_RESPONSE: not readable as HTTP/1.x
  internal,             // internal INTERNAL_ERROR
};

std::string_view error_code(http_action_failure f);
error_category category_of(http_action_failure f);

// A failure reply with the code's category, resolution and retryable flag.
integration_tool_result http_action_failed(http_action_failure f, std::string message,
                                           std::optional<std::string> details_json = {});

// Which failure a parse_url / resolve_url / redirected error code stands for.
http_action_failure failure_of_url_error(std::string_view code);

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
