#pragma once
#include <string_view>
#include <vector>

namespace platform {

// Every field of `s` between separators `sep`, empty ones included: "a..b" gives {"a", "", "b"},
// "" gives {""}. The fields view `s`.
inline std::vector<std::string_view> split_fields(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

}  // namespace platform
