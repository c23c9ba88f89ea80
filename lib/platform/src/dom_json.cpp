#include "dom_json.hpp"

#include <charconv>

#include "json_string_bytes.hpp"

namespace platform::dom_json {
namespace {

namespace dom = simdjson::dom;

// As simdjson's mini_formatter writes a string: `"`, `\` and control characters escaped,
// every other byte as it is (a DOM string can hold what a \u escape made of a lone surrogate).
void append_string(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; (i = json_string_bytes::skip_unescaped(s, i)) < s.size(); run = ++i) {
    out.append(s.data() + run, i - run);
    json_string_bytes::append_escape(out, static_cast<unsigned char>(s[i]));
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

template <class Number>
void append_number(std::string& out, Number n) {
  char digits[32];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
}

}  // namespace

// Recursion is bounded by the parser's depth limit (1024 by default).
void append_minified(std::string& out, dom::element value) {
  switch (value.type()) {
    case dom::element_type::ARRAY:
      append_array(out, value.get_array().value_unsafe(), append_minified);
      break;
    case dom::element_type::OBJECT: {
      out.push_back('{');
      bool first = true;
      dom::object fields = value.get_object().value_unsafe();
      for (dom::key_value_pair field : fields) {
        if (!first) out.push_back(',');
        first = false;
        append_string(out, field.key);
        out.push_back(':');
        append_minified(out, field.value);
      }
      out.push_back('}');
      break;
    }
    case dom::element_type::STRING: append_string(out, value.get_string().value_unsafe()); break;
    case dom::element_type::INT64: append_number(out, value.get_int64().value_unsafe()); break;
    case dom::element_type::UINT64: append_number(out, value.get_uint64().value_unsafe()); break;
    case dom::element_type::DOUBLE: {
      // simdjson's own shortest form (what minify prints), not std::to_chars's.
      char digits[32];
      out.append(digits, simdjson::internal::to_chars(digits, digits + sizeof digits, value.get_double().value_unsafe()));
      break;
    }
    case dom::element_type::BOOL: out.append(value.get_bool().value_unsafe() ? "true" : "false"); break;
    case dom::element_type::NULL_VALUE: out.append("null"); break;
  }
}

}  // namespace platform::dom_json
