// The identity token verifier on arbitrary bytes. Contract: never crash; accept only a token
// that really carries the test key's signature (a fuzzer cannot forge HMAC-SHA256, so any
// accepted input must be one the seed corpus signed); the UI message assembler, fed the same
// bytes as stream events, never crashes and always yields valid JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/identity_token.hpp"
#include "platform/ui_message.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  platform::identity_token_keys keys;
  keys.hs256_secret = "fuzz-secret-fuzz-secret-fuzz-secret";
  keys.issuer = "https://idp.test";
  keys.audience = "platform";
  auto id = platform::verify_identity_token(input, keys, 1000);
  if (id && id->user_id.empty()) __builtin_trap();

  platform::ui_message_assembler a;
  std::size_t pos = 0;
  while (pos <= input.size()) {
    std::size_t nl = input.find('\n', pos);
    if (nl == std::string_view::npos) nl = input.size();
    a.feed(input.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (nlohmann::json::parse(a.message_json(), nullptr, false).is_discarded()) __builtin_trap();
  return 0;
}
