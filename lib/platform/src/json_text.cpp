#include "platform/json_text.hpp"

#include "json_string_bytes.hpp"

namespace platform {
namespace {

using json_string_bytes::skip_plain;
using json_string_bytes::utf8_sequence_length;

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
    json_string_bytes::append_escape(out, c);
    run = ++i;
  }
  flush(i);
  out.push_back('"');
}

}  // namespace platform
