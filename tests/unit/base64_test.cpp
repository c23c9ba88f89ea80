#include <doctest/doctest.h>

#include <string>

#include "platform/base64.hpp"

using platform::base64_decode;
using platform::base64_encode;

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
