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
#include "platform/json_path.hpp"

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
// The message names the byte offset. A lone `{`, `}` or `}}` is literal text. There is no
// escape: `{{` always opens a placeholder, so `{{{x}}}` is `placeholder_invalid_path` (the
// path would start with `{`) rather than a silent guess between Mustache's raw form and a
// literal brace. `secrets` alone or `secrets.a.b` is `placeholder_invalid_path` too.
result<placeholder_template> parse_placeholder_template(std::string_view text);

// ---- Additions beyond the fixed API above (docs/placeholders.md) ----

// `{{path}}` or `{{secrets.NAME}}`, without the spaces the author may have written.
std::string canonical_text(const placeholder& p);

// The template written back with canonical placeholders. Parsing it again gives the same parts.
std::string canonical_text(const placeholder_template& t);

struct tool_endpoint;  // agents_config.hpp

// One endpoint string that may hold placeholders: the url, every header value, every
// queryParams value and every string leaf of the body (object keys are literal text).
struct endpoint_template_site {
  std::string path;  // e.g. `endpoint.headers["X-Api-Key"]`, `endpoint.body.items[0].q`
  std::string text;
};

// Sites in a fixed order: url, headers (by name), queryParams (by name), body leaves
// (document order). Fails with `invalid_body_json` when body_json is not JSON.
result<std::vector<endpoint_template_site>> endpoint_template_sites(
    const tool_endpoint& endpoint, const json_path& base = json_path("endpoint"));

// What an endpoint reads: input paths ("a.b") and secret NAMEs, each sorted and unique.
struct placeholder_usage {
  std::vector<std::string> input_paths;
  std::vector<std::string> secret_names;
};

// Fails with the first site's parse error; its message is prefixed by the site path.
result<placeholder_usage> endpoint_placeholder_usage(const tool_endpoint& endpoint);

}  // namespace platform
