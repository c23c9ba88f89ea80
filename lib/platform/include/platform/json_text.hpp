#pragma once
// Writing JSON text by hand on hot paths (the bridge, the normalizers) without building a DOM.
#include <string>
#include <string_view>

namespace platform {

// Appends `s` as a JSON string literal (with quotes). Only `"`, `\` and control characters
// are escaped; invalid UTF-8 bytes are replaced by U+FFFD so the output is always valid JSON.
void append_json_string(std::string& out, std::string_view s);

}  // namespace platform
