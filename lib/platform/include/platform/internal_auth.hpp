#pragma once
// Who may call the internal routes (worker -> web) and the worker's endpoints (web -> worker):
// the holder of INTERNAL_API_TOKEN, sent as `Authorization: Bearer <token>` and compared in
// constant time. Without a configured token (local development; production refuses to start
// so) only callers on this machine's loopback are accepted, the same rule on both servers.
#include "platform/api_error.hpp"
#include <optional>
#include <string_view>

namespace platform {

enum class internal_refusal {
  wrong_token,   // a token is configured and the request does not carry it
  not_loopback,  // no token is configured and the caller is not on loopback
};

struct internal_refusal_info {
  api_error error;  // the code and its status (api_error.hpp)
  std::string_view message;
};

internal_refusal_info describe(internal_refusal r) noexcept;

// Nothing when the caller is allowed. `remote_addr` is the peer's address as text
// ("127.0.0.1", "::1", "::ffff:127.0.0.1", ...).
std::optional<internal_refusal> check_internal_caller(std::string_view configured_token,
                                                      std::string_view authorization_header,
                                                      std::string_view remote_addr) noexcept;

}  // namespace platform
