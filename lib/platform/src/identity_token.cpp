#include "platform/identity_token.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "bounded_json.hpp"
#include "platform/api_error.hpp"
#include "platform/base64.hpp"

namespace platform {
namespace {

using nlohmann::json;

tl::unexpected<error> invalid(std::string why) { return fail(api_error::invalid_token, "identity token rejected: " + why); }

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return std::string(reinterpret_cast<char*>(mac), len);
}

bool rs256_verify(std::string_view pem, std::string_view data, std::string_view sig) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  if (!bio) return false;
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  if (!key) return false;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
}

bool audience_matches(const json& aud, const std::string& want) {
  if (aud.is_string()) return aud.get<std::string>() == want;
  if (!aud.is_array()) return false;
  for (const auto& a : aud) {
    if (a.is_string() && a.get<std::string>() == want) return true;
  }
  return false;
}

result<void> check_signature(const json& header, std::string_view signed_part, std::string_view sig,
                             const identity_token_keys& keys) {
  if (!header.is_object() || !header.contains("alg") || !header["alg"].is_string()) return invalid("no algorithm");
  std::string alg = header["alg"];
  if (alg == "HS256" && !keys.hs256_secret.empty()) {
    std::string mac = hmac_sha256(keys.hs256_secret, signed_part);
    if (mac.size() != sig.size() || CRYPTO_memcmp(mac.data(), sig.data(), mac.size()) != 0) {
      return invalid("bad signature");
    }
    return {};
  }
  if (alg == "RS256" && !keys.rs256_public_pem.empty()) {
    if (!rs256_verify(keys.rs256_public_pem, signed_part, sig)) return invalid("bad signature");
    return {};
  }
  return invalid("algorithm not accepted");
}

result<void> check_claims(const json& claims, const identity_token_keys& keys, std::int64_t now) {
  if (!claims.is_object()) return invalid("claims are not an object");
  if (!claims.contains("iss") || claims["iss"] != keys.issuer) return invalid("wrong issuer");
  if (!claims.contains("aud") || !audience_matches(claims["aud"], keys.audience)) return invalid("wrong audience");
  if (!claims.contains("exp") || !claims["exp"].is_number()) return invalid("no expiry");
  if (claims["exp"].get<double>() + static_cast<double>(keys.leeway_seconds) <= static_cast<double>(now)) {
    return invalid("expired");
  }
  if (claims.contains("nbf") && (!claims["nbf"].is_number() ||
                                 claims["nbf"].get<double>() > static_cast<double>(now + keys.leeway_seconds))) {
    return invalid("not valid yet");
  }
  if (!claims.contains("sub") || !claims["sub"].is_string() || claims["sub"].get<std::string>().empty()) {
    return invalid("no subject");
  }
  return {};
}

}  // namespace

result<identity> verify_identity_token(std::string_view token, const identity_token_keys& keys, std::int64_t now) {
  if (token.size() > 16384) return invalid("too long");
  auto d1 = token.find('.');
  auto d2 = d1 == std::string_view::npos ? d1 : token.find('.', d1 + 1);
  if (d2 == std::string_view::npos || token.find('.', d2 + 1) != std::string_view::npos) {
    return invalid("not a compact JWT");
  }
  auto header_part = base64url_decode(token.substr(0, d1));
  auto claims_part = base64url_decode(token.substr(d1 + 1, d2 - d1 - 1));
  auto sig_part = base64url_decode(token.substr(d2 + 1));
  if (!header_part || !claims_part || !sig_part) return invalid("bad encoding");
  const std::string& header_text = *header_part;
  const std::string& claims_text = *claims_part;
  const std::string& sig = *sig_part;
  // Parsed before the signature is checked, so bounded like any body a stranger sends.
  const json_limits token_json{.max_depth = body_max_depth, .max_bytes = 16384};
  json header = parse_json_within(header_text, token_json);
  json claims = parse_json_within(claims_text, token_json);
  if (header.is_discarded() || claims.is_discarded()) return invalid("bad JSON");
  if (auto s = check_signature(header, token.substr(0, d2), sig, keys); !s) return tl::unexpected(s.error());
  if (auto c = check_claims(claims, keys, now); !c) return tl::unexpected(c.error());
  identity id;
  id.user_id = claims["sub"].get<std::string>();
  if (claims.contains("email") && claims["email"].is_string()) id.email = claims["email"];
  if (claims.contains("name") && claims["name"].is_string()) id.name = claims["name"];
  id.expires_at = static_cast<std::int64_t>(claims["exp"].get<double>());
  return id;
}

std::string sign_identity_token_hs256(std::string_view claims_json, std::string_view secret) {
  std::string signed_part = base64url_encode(R"({"alg":"HS256","typ":"JWT"})") + "." + base64url_encode(claims_json);
  return signed_part + "." + base64url_encode(hmac_sha256(secret, signed_part));
}

}  // namespace platform
