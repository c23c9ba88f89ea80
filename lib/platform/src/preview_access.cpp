#include "platform/preview_access.hpp"

#include <openssl/crypto.h>
#include <openssl/hmac.h>

#include <charconv>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "platform/host_header.hpp"
#include "platform/ids.hpp"

namespace platform {
namespace {

constexpr std::string_view hex_digits = "0123456789abcdef";
constexpr std::string_view digest_prefix = "sha256:";

std::string hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += hex_digits[c >> 4];
    out += hex_digits[c & 15];
  }
  return out;
}

std::string mac_of(std::string_view key, std::string_view app_id, std::string_view digest_hex, std::int64_t expires) {
  // The app id is part of what is signed but not of the token: a token taken to another app's
  // origin does not verify there.
  std::string data = "platform-preview-v1\n" + std::string(app_id) + "\n" + std::string(digest_hex) + "\n" + std::to_string(expires);
  unsigned char out[32];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out, &len);
  return hex(std::string_view(reinterpret_cast<const char*>(out), len));
}

bool lower_hex(std::string_view s) { return !s.empty() && s.find_first_not_of(hex_digits) == std::string_view::npos; }

bool safe_file_segment(std::string_view s) {
  if (s.empty() || s.front() == '.') return false;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7f || c == '\\') return false;
  }
  return true;
}

}  // namespace

std::string preview_token(std::string_view key, const preview_grant& grant) {
  std::string_view digest = grant.digest;
  if (digest.substr(0, digest_prefix.size()) == digest_prefix) digest.remove_prefix(digest_prefix.size());
  return std::to_string(grant.expires_at) + "." + std::string(digest) + "." + mac_of(key, grant.app_id, digest, grant.expires_at);
}

result<preview_grant> verify_preview_token(std::string_view key, std::string_view token, std::string_view app_id,
                                           std::int64_t now) {
  auto first = token.find('.');
  auto second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.size() > 512) return fail(api_error::invalid_preview_token, "not a preview token");
  std::string_view expires_text = token.substr(0, first);
  std::string_view digest_hex = token.substr(first + 1, second - first - 1);
  std::string_view mac = token.substr(second + 1);
  std::int64_t expires = 0;
  auto [end, ec] = std::from_chars(expires_text.data(), expires_text.data() + expires_text.size(), expires);
  if (ec != std::errc() || end != expires_text.data() + expires_text.size() || !lower_hex(digest_hex) || mac.size() != 64) {
    return fail(api_error::invalid_preview_token, "not a preview token");
  }
  std::string expected = mac_of(key, app_id, digest_hex, expires);
  if (CRYPTO_memcmp(expected.data(), mac.data(), expected.size()) != 0) return fail(api_error::invalid_preview_token, "not a preview token of this app");
  if (now >= expires) return fail(api_error::preview_token_expired, "the preview link expired; reload the builder page");
  return preview_grant{std::string(app_id), std::string(digest_prefix) + std::string(digest_hex), expires};
}

std::optional<std::string> preview_app_of_host(std::string_view host, std::string_view preview_domain) {
  host = split_host_header(host).name;
  if (preview_domain.empty() || host.size() <= preview_domain.size() + 1) return std::nullopt;
  // Host names are case-insensitive; app ids are not, so only the domain part is folded.
  if (!iends_with(host, preview_domain) || host[host.size() - preview_domain.size() - 1] != '.') return std::nullopt;
  std::string_view app = host.substr(0, host.size() - preview_domain.size() - 1);
  if (!is_valid_id(app)) return std::nullopt;
  return std::string(app);
}

std::optional<preview_path> parse_preview_path(std::string_view path) {
  constexpr std::string_view prefix = "/p/";
  if (path.substr(0, prefix.size()) != prefix) return std::nullopt;
  path.remove_prefix(prefix.size());
  auto slash = path.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  preview_path out{std::string(path.substr(0, slash)), {}};
  std::string_view rest = path.substr(slash + 1);
  if (rest.empty()) {
    out.file = "index.html";
    return out;
  }
  std::size_t at = 0;
  while (at <= rest.size()) {
    auto end = rest.find('/', at);
    std::string_view seg = rest.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (!safe_file_segment(seg)) return std::nullopt;
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  out.file = std::string(rest);
  return out;
}

std::string preview_entry_path(std::string_view key, const preview_grant& grant) {
  return "/p/" + preview_token(key, grant) + "/index.html";
}

std::vector<preview_header> preview_headers(std::string_view builder_origins) {
  std::string ancestors = builder_origins.empty() ? "'none'" : std::string(builder_origins);
  return {
      {"Content-Security-Policy",
       "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "font-src 'self' data:; media-src 'self' data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'; "
       "object-src 'none'; frame-ancestors " + ancestors},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "private, max-age=300"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
  };
}

}  // namespace platform
