#include "platform/json_limits.hpp"

#include <string>

#include "platform/api_error.hpp"

namespace platform {
namespace {

enum class scan_stop : unsigned char { end, too_deep };

struct scan_result {
  std::size_t max_depth = 0;
  scan_stop stop = scan_stop::end;
};

// One pass, constant memory: the depth is a counter, so the scan itself cannot be what a deep
// text overflows.
scan_result scan(std::string_view text, std::size_t limit) noexcept {
  scan_result r;
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped byte (", \, or the u of \uXXXX) cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > limit) {
          r.max_depth = depth;
          r.stop = scan_stop::too_deep;
          return r;
        }
        if (depth > r.max_depth) r.max_depth = depth;
        break;
      case ']':
      case '}':
        // Unbalanced closers are the parser's to refuse; never let them buy depth back.
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return r;
}

}  // namespace

result<std::size_t> check_json_limits(std::string_view text, const json_limits& limits) {
  if (text.size() > limits.max_bytes) {
    return fail(api_error::too_large, "the JSON text is " + std::to_string(text.size()) + " bytes, more than the " +
                                 std::to_string(limits.max_bytes) + " allowed");
  }
  scan_result r = scan(text, limits.max_depth);
  if (r.stop == scan_stop::too_deep) {
    return fail(api_error::too_deep, "the JSON nests deeper than " + std::to_string(limits.max_depth) +
                                " levels of arrays and objects: flatten it");
  }
  return r.max_depth;
}

bool within_json_limits(std::string_view text, const json_limits& limits) noexcept {
  return text.size() <= limits.max_bytes && scan(text, limits.max_depth).stop == scan_stop::end;
}

bool nests_deeper_than(std::string_view text, std::size_t limit) noexcept {
  return scan(text, limit).stop == scan_stop::too_deep;
}

}  // namespace platform
