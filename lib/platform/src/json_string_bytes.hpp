#pragma once
// The bytes of a JSON string's content, as the writers (append_json_string, dom_json) and the
// reader of written lines (worker_line) see them: the run that is copied as it is, the escapes,
// and UTF-8 well-formedness (Unicode's table of well-formed byte sequences: no overlong forms,
// no surrogates, nothing above U+10FFFF), which is what simdjson checks too.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace platform::json_string_bytes {

// The bytes of `w` that are not copied as they are (a control character, `"`, `\`, and with
// `multibyte` a byte of a multi-byte UTF-8 sequence) have their high bit set in the result.
// Only the lowest set bit is exact (the "has a byte less than n" and "has a zero byte" bit
// tricks may flag bytes above a true one), which is all that finding the first such byte needs.
template <bool multibyte>
constexpr std::uint64_t attention_bits(std::uint64_t w) {
  constexpr std::uint64_t ones = 0x0101010101010101u;
  constexpr std::uint64_t highs = 0x8080808080808080u;
  std::uint64_t quote = w ^ (ones * '"');
  std::uint64_t backslash = w ^ (ones * '\\');
  std::uint64_t control = (w - ones * 0x20) & ~w;
  std::uint64_t quotes = (quote - ones) & ~quote;
  std::uint64_t backslashes = (backslash - ones) & ~backslash;
  return (control | quotes | backslashes | (multibyte ? w : 0)) & highs;
}

// The first byte at or after `i` that is not copied as it is, or s.size(). Plain ASCII text
// goes 8 bytes at a time where the first byte is the lowest (little-endian).
template <bool multibyte>
std::size_t skip_until_attention(std::string_view s, std::size_t i) {
  if constexpr (std::endian::native == std::endian::little) {
    for (std::uint64_t w; i + 8 <= s.size(); i += 8) {
      std::memcpy(&w, s.data() + i, 8);
      if (std::uint64_t bits = attention_bits<multibyte>(w)) {
        return i + static_cast<std::size_t>(std::countr_zero(bits)) / 8;
      }
    }
  }
  for (; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '"' || c == '\\' || (multibyte && c >= 0x80)) break;
  }
  return i;
}

// Stops at what needs an escape and at the bytes of multi-byte UTF-8 sequences (to check them).
inline std::size_t skip_plain(std::string_view s, std::size_t i) { return skip_until_attention<true>(s, i); }

// Stops only at what needs an escape.
inline std::size_t skip_unescaped(std::string_view s, std::size_t i) { return skip_until_attention<false>(s, i); }

// The escape of `c`, a control character, `"` or `\`: the short forms where JSON has one,
// \u00XX in lower case for the other control characters.
inline void append_escape(std::string& out, unsigned char c) {
  constexpr char hex_digits[] = "0123456789abcdef";
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
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t min = 0;
  std::uint32_t cp = 0;
  if (b0 < 0x80) return 1;
  if ((b0 & 0xE0) == 0xC0) { n = 2; cp = b0 & 0x1F; min = 0x80; }
  else if ((b0 & 0xF0) == 0xE0) { n = 3; cp = b0 & 0x0F; min = 0x800; }
  else if ((b0 & 0xF8) == 0xF0) { n = 4; cp = b0 & 0x07; min = 0x10000; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace platform::json_string_bytes
