// AES-256-GCM at rest (platform/secret_box.hpp): round trips, fresh nonces, and refusal of a
// wrong key, wrong associated data or tampered bytes; key text forms.
#include <doctest/doctest.h>

#include <string>

#include "platform/api_error.hpp"
#include "platform/secret_box.hpp"

namespace secret_box_test {

using namespace platform;

namespace {
secrets_key key_of(char fill) {
  secrets_key k;
  k.bytes.fill(static_cast<std::uint8_t>(fill));
  return k;
}
}  // namespace

TEST_CASE("sealed values open with the same key and associated data") {
  auto k = key_of('a');
  for (std::string plain : {std::string(), std::string("sk_live_canary_123"), std::string(5000, 'x')}) {
    auto sealed = seal_secret(k, plain, "secret|ws|app");
    REQUIRE(sealed);
    CHECK(sealed->rfind("v1.", 0) == 0);
    CHECK(sealed->find(plain.empty() ? "\x01" : plain) == std::string::npos);
    auto opened = open_secret(k, *sealed, "secret|ws|app");
    REQUIRE(opened);
    CHECK(*opened == plain);
  }
}

TEST_CASE("every seal uses a fresh nonce") {
  auto k = key_of('b');
  CHECK(seal_secret(k, "same", "ad").value() != seal_secret(k, "same", "ad").value());
}

TEST_CASE("a wrong key, other associated data or changed bytes do not open") {
  auto k = key_of('c');
  auto sealed = seal_secret(k, "value", "app-A").value();
  CHECK(open_secret(key_of('d'), sealed, "app-A").error().code == platform::api_error::secret_unreadable);
  CHECK(open_secret(k, sealed, "app-B").error().code == platform::api_error::secret_unreadable);
  std::string tampered = sealed;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  CHECK_FALSE(open_secret(k, tampered, "app-A"));
  CHECK_FALSE(open_secret(k, sealed.substr(0, 10), "app-A"));
  CHECK_FALSE(open_secret(k, "plaintext", "app-A"));
}

TEST_CASE("keys are 32 bytes as hex or base64") {
  auto hex = std::string(64, 'f');
  auto k = parse_secrets_key(hex);
  REQUIRE(k);
  CHECK(k->bytes[0] == 0xff);
  CHECK(to_hex(*k) == hex);
  auto b64 = parse_secrets_key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");
  REQUIRE(b64);
  CHECK(b64->bytes[31] == 31);
  CHECK(parse_secrets_key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").has_value());  // unpadded
  CHECK(parse_secrets_key("short").error().code == platform::api_error::invalid_secrets_key);
  CHECK_FALSE(parse_secrets_key(std::string(64, 'g')));
  CHECK_FALSE(parse_secrets_key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg=="));  // 31 bytes
  auto g1 = generate_secrets_key().value(), g2 = generate_secrets_key().value();
  CHECK(g1.bytes != g2.bytes);
}

}  // namespace secret_box_test
