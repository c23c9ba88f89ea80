// AES-256-GCM through OpenSSL's EVP interface. The nonce is random per value (96 bits): with
// at most millions of values per key the collision chance stays far below GCM's bound.
#include "platform/secret_box.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>
#include <optional>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "platform/base64.hpp"

namespace platform {
namespace {

constexpr std::size_t nonce_bytes = 12;
constexpr std::size_t tag_bytes = 16;
constexpr std::string_view sealed_prefix = "v1.";

using cipher_ctx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

int b64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Standard or URL-safe alphabet, padding optional.
std::optional<std::vector<std::uint8_t>> from_base64(std::string_view s) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int d = b64_digit(c);
    if (d < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>((acc >> bits) & 0xff));
    }
  }
  if (bits >= 6) return std::nullopt;  // one dangling character is not a whole byte
  return out;
}

tl::unexpected<error> unreadable() {
  return fail(api_error::secret_unreadable, "a stored credential could not be decrypted (wrong PLATFORM_SECRETS_KEY or damaged value)");
}

}  // namespace

result<secrets_key> parse_secrets_key(std::string_view text) {
  secrets_key k;
  if (text.size() == 64) {
    for (std::size_t i = 0; i < 32; ++i) {
      int hi = hex_digit_value(text[2 * i]), lo = hex_digit_value(text[2 * i + 1]);
      if (hi < 0 || lo < 0) return fail(api_error::invalid_secrets_key, "PLATFORM_SECRETS_KEY: 64 characters but not hex");
      k.bytes[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    return k;
  }
  auto bytes = from_base64(text);
  if (!bytes || bytes->size() != 32) {
    return fail(api_error::invalid_secrets_key, "PLATFORM_SECRETS_KEY must be 32 bytes as 64 hex digits or base64");
  }
  std::copy(bytes->begin(), bytes->end(), k.bytes.begin());
  return k;
}

result<secrets_key> generate_secrets_key() {
  secrets_key k;
  if (RAND_bytes(k.bytes.data(), static_cast<int>(k.bytes.size())) != 1) {
    return fail(api_error::crypto_failed, "the random generator failed");
  }
  return k;
}

std::string to_hex(const secrets_key& k) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (auto b : k.bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0xf]);
  }
  return out;
}

result<std::string> seal_secret(const secrets_key& key, std::string_view plaintext, std::string_view aad) {
  std::vector<std::uint8_t> out(nonce_bytes + plaintext.size() + tag_bytes);
  if (RAND_bytes(out.data(), static_cast<int>(nonce_bytes)) != 1) return fail(api_error::crypto_failed, "the random generator failed");
  cipher_ctx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int len = 0;
  auto* ct = out.data() + nonce_bytes;
  bool ok = ctx && EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.bytes.data(), out.data()) == 1 &&
            EVP_EncryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(aad.data()),
                              static_cast<int>(aad.size())) == 1 &&
            EVP_EncryptUpdate(ctx.get(), ct, &len, reinterpret_cast<const unsigned char*>(plaintext.data()),
                              static_cast<int>(plaintext.size())) == 1 &&
            EVP_EncryptFinal_ex(ctx.get(), ct + len, &len) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag_bytes),
                                ct + plaintext.size()) == 1;
  if (!ok) return fail(api_error::crypto_failed, "encryption failed");
  return std::string(sealed_prefix) + base64url_encode(std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
}

result<std::string> open_secret(const secrets_key& key, std::string_view sealed, std::string_view aad) {
  if (sealed.substr(0, sealed_prefix.size()) != sealed_prefix) return unreadable();
  auto bytes = from_base64(sealed.substr(sealed_prefix.size()));
  if (!bytes || bytes->size() < nonce_bytes + tag_bytes) return unreadable();
  const std::size_t ct_size = bytes->size() - nonce_bytes - tag_bytes;
  std::string plain(ct_size, '\0');
  cipher_ctx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int len = 0;
  auto* ct = bytes->data() + nonce_bytes;
  bool ok = ctx && EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.bytes.data(), bytes->data()) == 1 &&
            EVP_DecryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(aad.data()),
                              static_cast<int>(aad.size())) == 1 &&
            EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(plain.data()), &len, ct,
                              static_cast<int>(ct_size)) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_bytes), ct + ct_size) == 1 &&
            EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(plain.data()) + len, &len) == 1;
  if (!ok) return unreadable();
  return plain;
}

}  // namespace platform
