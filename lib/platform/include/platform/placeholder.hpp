#pragma once
// Placeholder templates inside endpoint values (url, headers, queryParams, body strings).
// Grammar (design notes): `{{` spaces? path spaces? `}}`, path = name(.name)*,
// name = [A-Za-z_][A-Za-z0-9_-]*. `secrets.NAME` names a static secret; any other path reads
// tool input. An unclosed `{{` or an empty/ill-formed path is an error.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct placeholder {
  enum class kind { input, secret };
  kind k = kind::input;
  std::string path;                 // input: "a.b"; secret: the NAME after `secrets.`
  std::vector<std::string> steps;   // input path split on '.', secret: {NAME}
  std::size_t offset = 0;           // byte offset of `{{` in the template
  std::size_t length = 0;           // bytes up to and including `}}`
};

// A template is literal text interleaved with placeholders.
struct placeholder_template {
  struct part {
    bool is_placeholder = false;
    std::string literal;            // when !is_placeholder
    placeholder ref;                // when is_placeholder
  };
  std::vector<part> parts;

  // True when the whole string is exactly one placeholder (surrounding text none):
  // a body string like that takes the input value's JSON type when rendered.
  [[nodiscard]] bool is_single_placeholder() const;
  [[nodiscard]] std::vector<placeholder> placeholders() const;
};

// Error codes: `placeholder_unclosed`, `placeholder_empty`, `placeholder_invalid_path`.
// The message names the byte offset.
result<placeholder_template> parse_placeholder_template(std::string_view text);

}  // namespace platform
