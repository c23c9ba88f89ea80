#pragma once
// Integration credentials at rest (static secret values, OAuth client secrets, access and
// refresh tokens): AES-256-GCM under the operator's key (PLATFORM_SECRETS_KEY). A sealed value
// is bound to its place by associated data (e.g. the app and secret name), so a ciphertext
// copied into another app's row does not open there. Decisions: docs/app-runtime.md.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

struct secrets_key {
  std::array<std::uint8_t, 32> bytes{};
};

// 32 bytes written as 64 hex digits or as base64 (44 characters with padding, or 43 without).
// Errors (`invalid_secrets_key`) never echo the text.
result<secrets_key> parse_secrets_key(std::string_view text);

// A fresh random key from OpenSSL's CSPRNG, and its 64-hex-digit text form (the key file).
result<secrets_key> generate_secrets_key();
std::string to_hex(const secrets_key& k);

// "v1." + base64url(12-byte random nonce | ciphertext | 16-byte tag). Every call uses a new
// nonce, so equal values never give equal ciphertexts.
result<std::string> seal_secret(const secrets_key& key, std::string_view plaintext, std::string_view aad);

// The plaintext, or `secret_unreadable` when the key, the associated data or the bytes differ
// from what sealed it (the message says which part is wrong only as far as GCM can tell).
result<std::string> open_secret(const secrets_key& key, std::string_view sealed, std::string_view aad);

}  // namespace platform
