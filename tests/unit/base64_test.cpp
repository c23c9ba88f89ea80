#include <doctest/doctest.h>

#include <string>

#include "platform/base64.hpp"

namespace base64_test {

using platform::base64_decode;
using platform::base64_encode;
using platform::base64url_decode;
using platform::base64url_encode;

TEST_CASE("base64: the RFC 4648 test vectors, both ways") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},  {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CHECK(base64_encode(plain) == encoded);
    CHECK(base64_decode(encoded) == std::optional<std::string>(plain));
  }
}

TEST_CASE("base64: every byte value round-trips") {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (std::size_t n = 0; n <= all.size(); n += 37) CHECK(base64_decode(base64_encode(all.substr(0, n))) == all.substr(0, n));
}

TEST_CASE("base64: anything but canonical padded text is refused") {
  for (const char* bad : {"Zg", "Zg=", "Z===", "Zm9v\n", "Zm9v Yg==", "Zh==", "Zm9=", "Zm=v", "Zm9v====", "*m9v", "Zm-_"}) {
    CHECK_MESSAGE(!base64_decode(bad), bad);
  }
}

TEST_CASE("base64url: the URL alphabet without padding, as JWTs use it") {
  CHECK(base64url_encode("\xfb\xff") == "-_8");
  CHECK(base64url_decode("-_8") == std::optional<std::string>("\xfb\xff"));
  CHECK(base64url_encode("") == "");
  CHECK(base64url_encode(R"({"alg":"HS256","typ":"JWT"})") == "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (std::size_t n = 0; n <= all.size(); n += 31) CHECK(base64url_decode(base64url_encode(all.substr(0, n))) == all.substr(0, n));
  for (const char* bad : {"Z", "Zg==", "+_8", "/_8", "Zm9v\n", "Zh", "Zm9"}) CHECK_MESSAGE(!base64url_decode(bad), bad);
}

}  // namespace base64_test
