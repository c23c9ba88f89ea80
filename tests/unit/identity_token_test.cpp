// The external identity token: HS256 and RS256, and every check that refuses one.
#include <doctest/doctest.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>

#include "platform/api_error.hpp"
#include "platform/identity_token.hpp"

namespace identity_token_test {

using platform::identity_token_keys;
using platform::verify_identity_token;

namespace {

identity_token_keys keys() {
  identity_token_keys k;
  k.hs256_secret = "0123456789abcdef0123456789abcdef";
  k.issuer = "https://idp.test";
  k.audience = "platform";
  return k;
}

std::string claims(long exp, std::string extra = "") {
  return R"({"iss":"https://idp.test","aud":"platform","sub":"u-1","email":"a@b.test","name":"A","exp":)" +
         std::to_string(exp) + extra + "}";
}

}  // namespace

TEST_CASE("a valid HS256 token gives the identity") {
  auto t = platform::sign_identity_token_hs256(claims(2000), keys().hs256_secret);
  auto id = verify_identity_token(t, keys(), 1000);
  REQUIRE(id);
  CHECK(id->user_id == "u-1");
  CHECK(id->email == "a@b.test");
  CHECK(id->name == "A");
}

TEST_CASE("refused: expiry, issuer, audience, signature, algorithm, shape") {
  auto k = keys();
  CHECK_FALSE(verify_identity_token(platform::sign_identity_token_hs256(claims(900), k.hs256_secret), k, 1000));
  CHECK_FALSE(verify_identity_token(
      platform::sign_identity_token_hs256(R"({"iss":"x","aud":"platform","sub":"u","exp":5000})", k.hs256_secret), k, 1000));
  CHECK_FALSE(verify_identity_token(
      platform::sign_identity_token_hs256(R"({"iss":"https://idp.test","aud":["other"],"sub":"u","exp":5000})",
                                          k.hs256_secret), k, 1000));
  CHECK(verify_identity_token(
      platform::sign_identity_token_hs256(R"({"iss":"https://idp.test","aud":["other","platform"],"sub":"u","exp":5000})",
                                          k.hs256_secret), k, 1000));
  CHECK_FALSE(verify_identity_token(platform::sign_identity_token_hs256(claims(2000), "wrong-secret"), k, 1000));
  CHECK_FALSE(verify_identity_token(platform::sign_identity_token_hs256(claims(2000, R"(,"nbf":1500)"), k.hs256_secret), k, 1000));
  // alg none, with or without a signature.
  CHECK_FALSE(verify_identity_token("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1In0.", k, 1000));
  CHECK_FALSE(verify_identity_token("a.b", k, 1000));
  CHECK_FALSE(verify_identity_token("", k, 1000));
  CHECK_FALSE(verify_identity_token("!!!.###.$$$", k, 1000));
  // HS256 refused when the verifier holds only an RS256 key.
  auto rs_only = k;
  rs_only.hs256_secret.clear();
  rs_only.rs256_public_pem = "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n";
  CHECK_FALSE(verify_identity_token(platform::sign_identity_token_hs256(claims(2000), k.hs256_secret), rs_only, 1000));
  auto e = verify_identity_token(platform::sign_identity_token_hs256(claims(2000), "wrong"), k, 1000);
  REQUIRE_FALSE(e);
  CHECK(e.error().code == platform::api_error::invalid_token);
  CHECK(e.error().message.find("signature") != std::string::npos);
}

TEST_CASE("RS256 with a generated key pair") {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  REQUIRE(key);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  REQUIRE(PEM_write_bio_PUBKEY(bio.get(), key.get()) == 1);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  auto k = keys();
  k.hs256_secret.clear();
  k.rs256_public_pem.assign(data, static_cast<std::size_t>(n));
  auto b64 = [](std::string_view in) {
    std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
    int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                              reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
    out.resize(static_cast<std::size_t>(len));
    for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
    while (!out.empty() && out.back() == '=') out.pop_back();
    return out;
  };
  std::string signed_part = b64(R"({"alg":"RS256","typ":"JWT"})") + "." + b64(claims(2000));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  REQUIRE(EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1);
  std::size_t siglen = 0;
  REQUIRE(EVP_DigestSign(ctx.get(), nullptr, &siglen, reinterpret_cast<const unsigned char*>(signed_part.data()),
                         signed_part.size()) == 1);
  std::string sig(siglen, '\0');
  REQUIRE(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &siglen,
                         reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1);
  sig.resize(siglen);
  std::string token = signed_part + "." + b64(sig);
  auto id = verify_identity_token(token, k, 1000);
  REQUIRE(id);
  CHECK(id->user_id == "u-1");
  // A byte in the middle of the signature (the last character holds padding bits too).
  char& c = token[signed_part.size() + 20];
  c = c == 'A' ? 'B' : 'A';
  CHECK_FALSE(verify_identity_token(token, k, 1000));
}

}  // namespace identity_token_test
