#include "platform/internal_auth.hpp"

#include <openssl/crypto.h>

#include <array>

#include "platform/ascii.hpp"

namespace platform {

namespace {

constexpr std::array internal_refusal_table{
    internal_refusal_info{api_error::unauthenticated, "this route needs the internal API token"},
    internal_refusal_info{api_error::unauthenticated,
                          "without INTERNAL_API_TOKEN this route accepts callers on this machine's loopback only"},
};

bool is_loopback_peer(std::string_view addr) noexcept {
  if (addr == "::1") return true;
  if (istarts_with(addr, "::ffff:")) addr.remove_prefix(7);
  return addr.substr(0, 4) == "127.";
}

}  // namespace

internal_refusal_info describe(internal_refusal r) noexcept { return internal_refusal_table[static_cast<std::size_t>(r)]; }

std::optional<internal_refusal> check_internal_caller(std::string_view configured_token,
                                                      std::string_view authorization_header,
                                                      std::string_view remote_addr) noexcept {
  if (configured_token.empty()) {
    if (is_loopback_peer(remote_addr)) return std::nullopt;
    return internal_refusal::not_loopback;
  }
  constexpr std::string_view scheme = "Bearer ";
  if (!istarts_with(authorization_header, scheme)) return internal_refusal::wrong_token;
  std::string_view sent = authorization_header.substr(scheme.size());
  if (sent.size() != configured_token.size() ||
      CRYPTO_memcmp(sent.data(), configured_token.data(), sent.size()) != 0) {
    return internal_refusal::wrong_token;
  }
  return std::nullopt;
}

}  // namespace platform
