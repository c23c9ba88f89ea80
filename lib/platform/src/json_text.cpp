#include "platform/json_text.hpp"

#include "json_string_bytes.hpp"

namespace platform {
namespace {

using json_string_bytes::skip_plain;
using json_string_bytes::utf8_sequence_length;

constexpr char hex_digits[] = "0123456789abcdef";

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t i = 0;
  std::size_t run = 0;  // start of the pending run of bytes copied verbatim
  auto flush = [&](std::size_t end) { out.append(s.data() + run, end - run); };
  while ((i = skip_plain(s, i)) < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      std::size_t n = utf8_sequence_length(s, i);
      if (n != 0) { i += n; continue; }
      flush(i);
      out.append("\xEF\xBF\xBD");
      run = ++i;
      continue;
    }
    flush(i);
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        out.append("\\u00");
        out.push_back(hex_digits[c >> 4]);
        out.push_back(hex_digits[c & 0xF]);
    }
    run = ++i;
  }
  flush(i);
  out.push_back('"');
}

bool is_sse_safe_token(std::string_view token) noexcept {
  for (char ch : token) {
    if (static_cast<unsigned char>(ch) < 0x20) return false;
  }
  return true;
}

}  // namespace platform
