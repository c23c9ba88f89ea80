#pragma once
// A routine's webhook requests are signed (issue 37; docs/routines.md): the sender puts
//   X-Platform-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
// on each request. A request is accepted only with a valid signature made within the replay
// window of now; the store refuses a signature it has seen in that window (a replay). Sans-I/O:
// the secret, the header, the body and the time come in.
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

inline constexpr std::string_view webhook_signature_header = "X-Platform-Signature";
inline constexpr std::int64_t webhook_replay_window_s = 300;

// The header for `body` at `t`: what a sender computes (and what tests send).
std::string sign_webhook(std::string_view secret, std::int64_t t, std::string_view body);

struct webhook_stamp {
  std::int64_t t = 0;
  std::string signature;  // the v1 hex digest, which the replay check keys on
};

// Errors: invalid_signature (no header, a malformed one, or a digest that does not match),
// signature_expired (t is more than the window away from now).
result<webhook_stamp> verify_webhook(std::string_view secret, std::string_view header, std::string_view body,
                                     std::int64_t now_s, std::int64_t window_s = webhook_replay_window_s);

}  // namespace platform
