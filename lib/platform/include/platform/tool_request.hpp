#pragma once
// The custom tool request builder: the pure half of the executor. It turns a tool, the input
// the agent passed and the app's secrets into the exact HTTP request to send, or into the
// Integration tool result failure to reply with instead (and then nothing is sent).
// Rules and decisions: docs/placeholders.md.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "platform/agents_config.hpp"
#include "platform/integration_tool_result.hpp"

namespace platform {

struct http_request {
  std::string method;  // upper case
  std::string url;
  // Exactly what goes on the wire, in order: endpoint headers by name, then Content-Type
  // when there is a body and the endpoint declares none, then Authorization for OAuth tools.
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::string> body;
  std::string content_type;  // effective Content-Type of the body; empty without a body
};

// `{"method","url","headers":{...},"body":...}`; a JSON body is embedded as JSON, any other
// body as a string, no body as null.
std::string to_json(const http_request& r);

// Looks up a static secret of the app by NAME; nullopt when it is not configured.
using secret_resolver = std::function<std::optional<std::string>(std::string_view name)>;

struct tool_request_options {
  // OAuth tools: the triggering user's access token, sent as `Authorization: Bearer`.
  std::optional<std::string> oauth_access_token;
};

struct tool_request {
  http_request request;   // what the executor sends
  http_request redacted;  // the same with every secret as `[REDACTED:NAME]`: for logs and CLIs
  std::vector<std::string> secret_names;  // secrets the request carries, sorted
};

// Longest URL the builder produces; longer ones fail with category `limit`.
inline constexpr std::size_t max_request_url_bytes = 8192;
// Deepest nesting accepted in tool input and endpoint bodies.
inline constexpr std::size_t max_json_depth = 64;

using tool_request_outcome = tl::expected<tool_request, integration_tool_result>;

// input_json is the JSON text the agent passed: an object, or empty / `{}` for no input.
// The resolver is called once per secret NAME and only after the input passed its checks.
tool_request_outcome build_tool_request(const tool& t, std::string_view input_json,
                                        const secret_resolver& secrets,
                                        const tool_request_options& options = {});

// Whether a failure of build_tool_request means the integration is not configured (a secret or
// the OAuth access token is missing), which the spec answers with mock data (execution rule 7),
// not with the failure.
bool means_not_configured(const integration_tool_result& failure);

// Redaction marker of a secret value in logs and redacted views.
std::string redaction_marker(std::string_view secret_name);

}  // namespace platform
