#include "platform/canonical_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"

namespace platform {

namespace {

// Keeps error messages printable ASCII whatever bytes the input held, so they can be
// embedded in JSON replies and logs.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return out;
}

// A key for an error message: escaped, and cut on a code point boundary when long.
std::string quoted_key(std::string_view key) {
  constexpr std::size_t limit = 64;
  std::size_t cut = std::min(key.size(), limit);
  while (cut > 0 && cut < key.size() && (static_cast<unsigned char>(key[cut]) & 0xC0) == 0x80) --cut;
  std::string out;
  append_canonical_string(out, key.substr(0, cut));
  if (cut < key.size()) out += "...";
  return out;
}

// The reason part of an nlohmann parse error, without its prefix and the echo of the input.
std::string parse_reason(std::string_view what) {
  auto column = what.find("column ");
  auto colon = what.find(": ", column == std::string_view::npos ? 0 : column);
  if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
  if (auto echo = what.find("; last read"); echo != std::string_view::npos) what = what.substr(0, echo);
  return printable(what);
}

constexpr int nlohmann_number_overflow = 406;  // out_of_range.406: the lexer's strtod overflowed

error classify_parse_error(std::size_t position, const nlohmann::detail::exception& ex) {
  std::string_view what = ex.what();
  std::string where = " near byte " + std::to_string(position);
  if (ex.id == nlohmann_number_overflow) {
    return {api_error::number_out_of_range, "number outside the range of a double" + where};
  }
  std::string reason = parse_reason(what);
  if (reason.find("UTF-8") != std::string::npos) {
    return {api_error::invalid_utf8, "ill-formed UTF-8 in a string" + where};
  }
  if (reason.find("surrogate") != std::string::npos) {
    return {api_error::invalid_utf8, "unpaired UTF-16 surrogate escape in a string" + where};
  }
  return {api_error::invalid_json, "invalid JSON" + where + ": " + reason};
}

struct canonical_member {
  std::string key;
  std::string value;  // canonical text
};

// One open container. Arrays grow their canonical text in place; objects collect members
// and are sorted when they close.
struct frame {
  bool is_object = false;
  std::string text;
  std::vector<canonical_member> members;
  std::string pending_key;
};

// nlohmann SAX handler that writes canonical text bottom-up, with no DOM and no recursion.
class canonical_writer {
 public:
  using json = nlohmann::json;

  bool null() { return emit("null"); }
  bool boolean(bool v) { return emit(v ? "true" : "false"); }
  // ECMAScript knows only doubles: integers beyond 2^53 round like any other number.
  bool number_integer(json::number_integer_t v) { return emit(format_es_number(static_cast<double>(v))); }
  bool number_unsigned(json::number_unsigned_t v) { return emit(format_es_number(static_cast<double>(v))); }
  bool number_float(json::number_float_t v, const json::string_t& spelling) {
    if (!std::isfinite(v)) {
      return fail_with(api_error::number_out_of_range, "number " + printable(spelling.substr(0, 40)) +
                                                  " is outside the range of a double");
    }
    return emit(format_es_number(v));
  }
  bool string(json::string_t& v) {
    std::string out;
    append_canonical_string(out, v);
    return emit(std::move(out));
  }
  bool binary(json::binary_t&) { return fail_with(api_error::invalid_json, "binary values are not JSON"); }

  bool start_object(std::size_t) { return open(true); }
  bool key(json::string_t& k) {
    stack_.back().pending_key = std::move(k);
    return true;
  }
  bool end_object() {
    frame f = std::move(stack_.back());
    stack_.pop_back();
    auto text = close_object(f.members);
    return text && emit(std::move(*text));
  }
  bool start_array(std::size_t) { return open(false); }
  bool end_array() {
    frame f = std::move(stack_.back());
    stack_.pop_back();
    f.text.push_back(']');
    return emit(std::move(f.text));
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    if (!error_) error_ = classify_parse_error(position, ex);
    return false;
  }

  result<std::string> take() {
    if (error_) return tl::unexpected(std::move(*error_));
    return std::move(root_);
  }
  void fail_unexpectedly(std::string message) {
    if (!error_) error_ = error_of(api_error::invalid_json, std::move(message));
  }

 private:
  bool fail_with(api_error code, std::string message) {
    if (!error_) error_ = error_of(code, std::move(message));
    return false;
  }

  bool open(bool is_object) {
    if (stack_.size() >= canonical_json_max_depth) {
      return fail_with(api_error::too_deep, "JSON nests deeper than " +
                                       std::to_string(canonical_json_max_depth) + " levels");
    }
    frame f;
    f.is_object = is_object;
    if (!is_object) f.text.push_back('[');
    stack_.push_back(std::move(f));
    return true;
  }

  std::optional<std::string> close_object(std::vector<canonical_member>& members) {
    std::sort(members.begin(), members.end(),
              [](const canonical_member& a, const canonical_member& b) { return utf16_less(a.key, b.key); });
    auto dup = std::adjacent_find(members.begin(), members.end(),
                                  [](const canonical_member& a, const canonical_member& b) { return a.key == b.key; });
    if (dup != members.end()) {
      fail_with(api_error::duplicate_key, "duplicate object key " + quoted_key(dup->key));
      return std::nullopt;
    }
    std::string out = "{";
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i > 0) out.push_back(',');
      append_canonical_string(out, members[i].key);
      out.push_back(':');
      out += members[i].value;
    }
    out.push_back('}');
    return out;
  }

  bool emit(std::string text) {
    if (stack_.empty()) {
      root_ = std::move(text);
      return true;
    }
    frame& top = stack_.back();
    if (top.is_object) {
      top.members.push_back(canonical_member{std::move(top.pending_key), std::move(text)});
      return true;
    }
    if (top.text.size() > 1) top.text.push_back(',');
    top.text += text;
    return true;
  }

  std::vector<frame> stack_;
  std::string root_;
  std::optional<error> error_;
};

// Decodes one code point of (assumed valid) UTF-8; never reads past the end.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[k])); };
  std::uint32_t b0 = byte(i);
  std::size_t len = b0 < 0xC0 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  len = std::min(len, s.size() - i);
  static constexpr std::uint32_t lead_mask[] = {0, 0xFF, 0x1F, 0x0F, 0x07};
  std::uint32_t cp = b0 & lead_mask[len];
  for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  i += len;
  return cp;
}

// The first UTF-16 code unit of a code point: a high surrogate for the supplementary planes.
std::uint32_t first_utf16_unit(std::uint32_t cp) {
  return cp >= 0x10000 ? 0xD800 + ((cp - 0x10000) >> 10) : cp;
}

}  // namespace

bool utf16_less(std::string_view a, std::string_view b) noexcept {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    std::uint32_t ca = next_code_point(a, i);
    std::uint32_t cb = next_code_point(b, j);
    if (ca == cb) continue;
    std::uint32_t ua = first_utf16_unit(ca);
    std::uint32_t ub = first_utf16_unit(cb);
    // Equal first units mean two supplementary characters whose low surrogates follow
    // code point order.
    return ua != ub ? ua < ub : ca < cb;
  }
  return i == a.size() && j < b.size();
}

void append_canonical_string(std::string& out, std::string_view utf8) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : utf8) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out.push_back(hex[u >> 4]);
          out.push_back(hex[u & 0xF]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

std::string format_es_number(double x) {
  if (!std::isfinite(x)) return "null";  // what JSON.stringify writes; JCS inputs never hold them
  if (x == 0) return "0";                 // also -0
  std::string out;
  if (x < 0) {
    out.push_back('-');
    x = -x;
  }
  // Shortest round-trip digits, as d[.ddd]e±XX.
  char buf[40];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  auto e = sci.find('e');
  std::string digits(1, sci[0]);
  if (e > 1) digits.append(sci.substr(2, e - 2));
  int exponent = 0;
  std::string_view exp_text = sci.substr(e + 1);
  bool negative_exp = exp_text.front() == '-';
  exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  if (negative_exp) exponent = -exponent;

  // ECMA-262 Number::toString: x = s × 10^(n−k) with k digits in s.
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(n - 1 >= 0 ? '+' : '-');
    out += std::to_string(n - 1 >= 0 ? n - 1 : 1 - n);
  }
  return out;
}

result<std::string> canonicalize_json(std::string_view json_text) {
  canonical_writer writer;
  try {
    bool ok = nlohmann::json::sax_parse(json_text.begin(), json_text.end(), &writer,
                                        nlohmann::json::input_format_t::json, true, false);
    if (!ok) writer.fail_unexpectedly("invalid JSON");
  } catch (const std::exception& ex) {
    writer.fail_unexpectedly(std::string("invalid JSON: ") + printable(ex.what()));
  }
  return writer.take();
}

}  // namespace platform
