// Secret scrubbing on arbitrary bytes (platform/secret_scrub.hpp). The first byte picks how
// long the secret is, the next bytes are the secret, the rest is the provider's answer.
// Contract: never crashes; a secret of 4 bytes or more (UTF-8 text, not made of the marker's
// characters, which a replacement could complete) is not in the output as is; and when the output is JSON, none
// of its decoded strings or keys holds it: what the platform parses and passes on is clean.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/secret_scrub.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_strings(const nlohmann::json& v, const std::string& secret) {
  std::vector<const nlohmann::json*> stack{&v};
  while (!stack.empty()) {
    const nlohmann::json* x = stack.back();
    stack.pop_back();
    if (x->is_string()) check(x->get_ref<const std::string&>().find(secret) == std::string::npos);
    if (x->is_object()) {
      for (auto it = x->begin(); it != x->end(); ++it) {
        check(it.key().find(secret) == std::string::npos);
        stack.push_back(&*it);
      }
    } else if (x->is_array()) {
      for (const auto& item : *x) stack.push_back(&item);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::size_t n = std::min<std::size_t>(data[0] % 24, size - 1);
  std::string secret(reinterpret_cast<const char*>(data + 1), n);
  std::string text(reinterpret_cast<const char*>(data + 1 + n), size - 1 - n);
  std::string out = platform::scrub_secrets(text, {secret});
  if (secret.size() < 4 || secret.find_first_of("[]") != std::string::npos) return 0;
  // Secrets are text: one that is not UTF-8 could start inside a character an escape decodes to.
  try {
    (void)nlohmann::json(secret).dump();
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  // "REDACTED" itself, or a secret made of its letters next to a bracket, can reappear.
  if (std::string_view("[REDACTED]").find(secret.substr(0, 1)) != std::string_view::npos) return 0;
  check(out.find(secret) == std::string::npos);
  auto v = nlohmann::json::parse(out, nullptr, false);
  if (!v.is_discarded()) check_strings(v, secret);
  return 0;
}
