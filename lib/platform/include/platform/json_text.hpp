#pragma once
// Writing JSON text by hand on hot paths (the bridge, the normalizers) without building a DOM.
#include <string>
#include <string_view>

namespace platform {

// Appends `s` as a JSON string literal (with quotes). Only `"`, `\` and control characters
// are escaped; invalid UTF-8 bytes are replaced by U+FFFD so the output is always valid JSON.
void append_json_string(std::string& out, std::string_view s);

// `s` as a JSON string literal, as append_json_string writes it.
inline std::string json_string_literal(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

}  // namespace platform
