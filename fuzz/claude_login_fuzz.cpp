// The Claude Code login file and the token endpoint's reply on arbitrary bytes, each half of
// the input taking one role. Contract: never crashes or throws; an accepted login has an access
// token; a refresh applied to a login file gives a file that parses again, with the
// reply's access token and every other field kept.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/claude_login.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto split = text.find('\n');
  std::string_view file = text.substr(0, split);
  std::string_view reply = split == std::string_view::npos ? std::string_view() : text.substr(split + 1);
  auto login = platform::parse_claude_login(file);
  if (login) {
    check(!login->access_token.empty());
    (void)platform::claude_login_needs_refresh(*login, 1'800'000'000'000);
    check(!platform::claude_refresh_request(*login, "client").empty());
  }
  auto refreshed = platform::apply_claude_refresh(file, reply, 1'800'000'000'000);
  if (refreshed) {
    auto again = platform::parse_claude_login(*refreshed);
    check(again.has_value());
    auto before = nlohmann::json::parse(file);
    auto after = nlohmann::json::parse(*refreshed);
    for (const auto& [k, v] : before.items()) {
      if (k != "claudeAiOauth") check(after.contains(k) && after[k] == v);
    }
  } else {
    check(refreshed.error().code == platform::api_error::invalid_login || refreshed.error().code == platform::api_error::refresh_failed);
  }
  return 0;
}
