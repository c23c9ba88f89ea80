// Webhook signatures: HMAC-SHA256 over "<t>.<body>", compared in constant time.
#include "platform/webhook_signature.hpp"

#include <charconv>

#include <openssl/crypto.h>

#include "platform/api_error.hpp"
#include "platform/hmac.hpp"

namespace platform {
namespace {

std::string hmac_hex(std::string_view key, std::string_view t, std::string_view body) {
  std::string data;
  data.reserve(t.size() + 1 + body.size());
  data.append(t).append(".").append(body);
  return hmac_sha256_hex(key, data);
}

}  // namespace

std::string sign_webhook(std::string_view secret, std::int64_t t, std::string_view body) {
  const std::string ts = std::to_string(t);
  return "t=" + ts + ",v1=" + hmac_hex(secret, ts, body);
}

result<webhook_stamp> verify_webhook(std::string_view secret, std::string_view header, std::string_view body,
                                     std::int64_t now_s, std::int64_t window_s) {
  auto bad = [](std::string why) { return fail(api_error::invalid_signature, std::move(why)); };
  if (header.empty()) return bad("the request has no X-Platform-Signature header: sign it with the routine's webhook secret");
  if (header.size() > 256) return bad("the X-Platform-Signature header is too long");
  std::string_view ts, v1;
  std::size_t pos = 0;
  while (pos <= header.size()) {
    std::size_t comma = header.find(',', pos);
    std::string_view part = header.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.substr(0, 2) == "t=") ts = part.substr(2);
    else if (part.substr(0, 3) == "v1=") v1 = part.substr(3);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  std::int64_t t = 0;
  auto [end, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
  if (ts.empty() || ec != std::errc() || end != ts.data() + ts.size() || t < 0) {
    return bad("the X-Platform-Signature header needs t=<Unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">");
  }
  if (v1.size() != 64) return bad("the X-Platform-Signature header's v1 is not a hex HMAC-SHA256 digest");
  const std::string expected = hmac_hex(secret, ts, body);
  if (CRYPTO_memcmp(expected.data(), v1.data(), expected.size()) != 0) {
    return bad("the signature does not match this routine's webhook secret and the request's body");
  }
  if (t > now_s + window_s || t < now_s - window_s) {
    return fail(api_error::signature_expired, "the signature was made at t=" + std::string(ts) + ", more than " +
                                                  std::to_string(window_s) + " s from now: sign each request when it is sent");
  }
  return webhook_stamp{t, std::string(v1)};
}

}  // namespace platform
