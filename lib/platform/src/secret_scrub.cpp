// Secret values out of provider answers, in every form the answer may carry them in. The text
// is read through chains of decoders, each a view of the raw bytes: a decoded unit (one byte,
// or the UTF-8 of one escaped character) remembers where its raw form ends, so a match in the
// decoded view is a range of the raw text, and that range is what gets replaced. Decoding
// never builds a second copy of the text, so an escape split by a replacement or a mix of
// escaped and plain characters is matched the same as a clean one.
#include "platform/secret_scrub.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/ascii.hpp"
#include "platform/base64.hpp"

namespace platform {
namespace {

constexpr std::string_view marker = "[REDACTED]";
constexpr std::size_t min_secret_bytes = 4;  // shorter values would mangle ordinary text
// Base64 pieces shorter than this match ordinary base64 by chance too often.
constexpr std::size_t min_base64_chars = 6;

// One decoding a provider's echo may have gone through. The first layer of a chain undoes the
// outermost encoding (the one applied last).
enum class layer : unsigned char { json, percent, html };

// How many raw bytes one decoded byte may take, at most: `\u0063` is 6 for 1, `%63` 3, an HTML
// reference up to max_reference + 2. Bounds how far from an escape a decoded match can start.
constexpr std::size_t max_reference = 10;
constexpr std::size_t expansion(layer l) {
  switch (l) {
    case layer::json: return 6;
    case layer::percent: return 3;
    case layer::html: return max_reference + 2;
  }
  return 1;
}

constexpr bool is_trigger(layer l, char c) {
  switch (l) {
    case layer::json: return c == '\\';
    case layer::percent: return c == '%' || c == '+';
    case layer::html: return c == '&';
  }
  return false;
}

// Every chain of one or two decodings: nested encodings in any order (a JSON text inside a
// JSON string, a percent-encoded value in a JSON body, JSON inside a URL, ...).
const std::vector<std::vector<layer>>& chains() {
  static const auto all = [] {
    constexpr std::array<layer, 3> layers{layer::json, layer::percent, layer::html};
    std::vector<std::vector<layer>> out;
    for (layer a : layers) out.push_back({a});
    for (layer a : layers) {
      for (layer b : layers) out.push_back({a, b});
    }
    return out;
  }();
  return all;
}

struct unit {
  std::array<char, 4> bytes{};
  std::uint8_t size = 0;
  std::size_t next = 0;  // raw position after this unit's raw form
};

bool put_utf8(std::uint32_t cp, unit& u) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
  auto b = [](std::uint32_t v) { return static_cast<char>(v); };
  if (cp < 0x80) {
    u.bytes = {b(cp)};
    u.size = 1;
  } else if (cp < 0x800) {
    u.bytes = {b(0xC0 | (cp >> 6)), b(0x80 | (cp & 0x3F))};
    u.size = 2;
  } else if (cp < 0x10000) {
    u.bytes = {b(0xE0 | (cp >> 12)), b(0x80 | ((cp >> 6) & 0x3F)), b(0x80 | (cp & 0x3F))};
    u.size = 3;
  } else {
    u.bytes = {b(0xF0 | (cp >> 18)), b(0x80 | ((cp >> 12) & 0x3F)), b(0x80 | ((cp >> 6) & 0x3F)), b(0x80 | (cp & 0x3F))};
    u.size = 4;
  }
  return true;
}

// The text as a chain of decoders sees it.
class decoded_text {
 public:
  decoded_text(std::string_view raw, std::span<const layer> chain) : raw_(raw), chain_(chain) {}

  std::optional<unit> read(std::size_t pos) const { return read_at(chain_.size(), pos); }

 private:
  std::optional<unit> read_at(std::size_t level, std::size_t pos) const {
    if (level == 0) {
      if (pos >= raw_.size()) return std::nullopt;
      unit u;
      u.bytes[0] = raw_[pos];
      u.size = 1;
      u.next = pos + 1;
      return u;
    }
    auto u = read_at(level - 1, pos);
    if (!u || u->size != 1 || !is_trigger(chain_[level - 1], u->bytes[0])) return u;
    std::optional<unit> decoded;
    switch (chain_[level - 1]) {
      case layer::json: decoded = json_escape(level - 1, u->next); break;
      case layer::percent: decoded = percent_escape(level - 1, *u); break;
      case layer::html: decoded = html_reference(level - 1, u->next); break;
    }
    return decoded ? decoded : u;  // a malformed escape stands for itself
  }

  // One ASCII byte at `level`, or nothing.
  std::optional<char> ascii_at(std::size_t level, std::size_t& pos) const {
    auto u = read_at(level, pos);
    if (!u || u->size != 1) return std::nullopt;
    pos = u->next;
    return u->bytes[0];
  }

  std::optional<std::uint32_t> hex4(std::size_t level, std::size_t& pos) const {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      auto c = ascii_at(level, pos);
      int d = c ? hex_digit_value(*c) : -1;
      if (d < 0) return std::nullopt;
      v = v << 4 | static_cast<std::uint32_t>(d);
    }
    return v;
  }

  // After a backslash: the escaped character, a surrogate pair taken whole.
  std::optional<unit> json_escape(std::size_t level, std::size_t pos) const {
    auto e = ascii_at(level, pos);
    if (!e) return std::nullopt;
    unit u;
    u.size = 1;
    switch (*e) {
      case '"': case '\\': case '/': u.bytes[0] = *e; break;
      case 'b': u.bytes[0] = '\b'; break;
      case 'f': u.bytes[0] = '\f'; break;
      case 'n': u.bytes[0] = '\n'; break;
      case 'r': u.bytes[0] = '\r'; break;
      case 't': u.bytes[0] = '\t'; break;
      case 'u': {
        auto cp = hex4(level, pos);
        if (!cp) return std::nullopt;
        if (*cp >= 0xD800 && *cp <= 0xDBFF) {
          if (ascii_at(level, pos) != '\\' || ascii_at(level, pos) != 'u') return std::nullopt;
          auto low = hex4(level, pos);
          if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
          *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
        }
        if (!put_utf8(*cp, u)) return std::nullopt;
        break;
      }
      default: return std::nullopt;
    }
    u.next = pos;
    return u;
  }

  // `%HH` in either case; `+` is a space (form encoding).
  std::optional<unit> percent_escape(std::size_t level, const unit& trigger) const {
    unit u;
    u.size = 1;
    std::size_t pos = trigger.next;
    if (trigger.bytes[0] == '+') {
      u.bytes[0] = ' ';
    } else {
      auto hi = ascii_at(level, pos);
      auto lo = hi ? ascii_at(level, pos) : std::nullopt;
      int h = hi ? hex_digit_value(*hi) : -1;
      int l = lo ? hex_digit_value(*lo) : -1;
      if (h < 0 || l < 0) return std::nullopt;
      u.bytes[0] = static_cast<char>(h << 4 | l);
    }
    u.next = pos;
    return u;
  }

  // After `&`: a numeric reference or one of the five names XML has.
  std::optional<unit> html_reference(std::size_t level, std::size_t pos) const {
    std::string name;
    for (;;) {
      auto c = ascii_at(level, pos);
      if (!c) return std::nullopt;
      if (*c == ';') break;
      if (name.size() == max_reference) return std::nullopt;
      name += *c;
    }
    std::optional<std::uint32_t> cp;
    if (name.size() > 1 && name[0] == '#') {
      bool hex = name[1] == 'x' || name[1] == 'X';
      std::uint32_t v = 0;
      std::size_t digits = 0;
      for (std::size_t i = hex ? 2 : 1; i < name.size(); ++i, ++digits) {
        int d = hex ? hex_digit_value(name[i]) : (name[i] >= '0' && name[i] <= '9' ? name[i] - '0' : -1);
        if (d < 0) return std::nullopt;
        v = v * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
      }
      if (digits > 0) cp = v;
    } else {
      for (auto [n, c] : {std::pair<std::string_view, char>{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'},
                          {"apos", '\''}}) {
        if (name == n) cp = static_cast<unsigned char>(c);
      }
    }
    unit u;
    if (!cp || !put_utf8(*cp, u)) return std::nullopt;
    u.next = pos;
    return u;
  }

  std::string_view raw_;
  std::span<const layer> chain_;
};

// The raw end of `needle` read through `in` from `pos`, or nothing.
std::optional<std::size_t> match_end(const decoded_text& in, std::size_t pos, std::string_view needle) {
  std::size_t i = 0;
  while (i < needle.size()) {
    auto u = in.read(pos);
    if (!u || u->size > needle.size() - i || std::memcmp(u->bytes.data(), needle.data() + i, u->size) != 0) {
      return std::nullopt;
    }
    i += u->size;
    pos = u->next;
  }
  return pos;
}

std::string url_safe(std::string b64) {
  std::replace(b64.begin(), b64.end(), '+', '-');
  std::replace(b64.begin(), b64.end(), '/', '_');
  return b64;
}

// The base64 forms of a value: its own encoding (padded or not), and the characters of a
// longer encoding that depend on its bytes alone, for each of the three offsets it can start
// at (a value starting 1 byte into a 3-byte group shares its first character with the byte
// before it).
std::vector<std::string> base64_forms(const std::string& value) {
  std::vector<std::string> out;
  std::string whole = base64_encode(value);
  out.push_back(whole);
  out.push_back(whole.substr(0, whole.find('=')));
  for (std::size_t offset = 0; offset < 3; ++offset) {
    std::string shifted = base64_encode(std::string(offset, '\0') + value);
    std::size_t first = (8 * offset + 5) / 6;                // first character with no earlier bits
    std::size_t end = (8 * (offset + value.size())) / 6;     // past the last with no later bits
    if (end > first) out.push_back(shifted.substr(first, end - first));
  }
  std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) out.push_back(url_safe(out[i]));
  return out;
}

std::vector<std::string> needles_of(const std::vector<std::string>& secret_values) {
  std::vector<std::string> needles;
  for (const auto& v : secret_values) {
    if (v.size() < min_secret_bytes) continue;
    needles.push_back(v);
    for (auto& b : base64_forms(v)) {
      if (b.size() >= min_base64_chars) needles.push_back(std::move(b));
    }
  }
  std::sort(needles.begin(), needles.end());
  needles.erase(std::unique(needles.begin(), needles.end()), needles.end());
  return needles;
}

using raw_range = std::pair<std::size_t, std::size_t>;

// Matches through one chain. Only where the raw text has one of the chain's escape characters
// close enough can a decoded match differ from a raw one, so the scan jumps between those.
void find_decoded(std::string_view text, std::span<const layer> chain, const std::vector<std::string>& needles,
                  std::vector<raw_range>& found) {
  std::array<bool, 256> trigger{};
  std::size_t grow = 1;
  for (layer l : chain) {
    for (int c = 0; c < 256; ++c) trigger[c] = trigger[c] || is_trigger(l, static_cast<char>(c));
    grow *= expansion(l);
  }
  std::vector<std::size_t> escapes;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (trigger[static_cast<unsigned char>(text[i])]) escapes.push_back(i);
  }
  if (escapes.empty()) return;
  // Needles by their first byte: a position is tried only for those its first unit can start.
  std::array<std::vector<const std::string*>, 256> starting{};
  std::size_t longest = 0;
  for (const auto& n : needles) {
    starting[static_cast<unsigned char>(n[0])].push_back(&n);
    longest = std::max(longest, n.size());
  }
  const std::size_t reach = longest * grow;
  decoded_text in(text, chain);
  std::size_t k = 0;
  for (std::size_t p = 0; p < text.size(); ++p) {
    while (k < escapes.size() && escapes[k] < p) ++k;
    if (k == escapes.size()) break;
    if (escapes[k] - p >= reach) {
      p = escapes[k] - reach;  // the loop's ++p lands within reach
      continue;
    }
    auto c = static_cast<unsigned char>(text[p]);
    if (starting[c].empty() && !trigger[c]) continue;
    auto first = in.read(p);
    if (!first) continue;
    for (const std::string* n : starting[static_cast<unsigned char>(first->bytes[0])]) {
      if (auto end = match_end(in, p, *n)) found.emplace_back(p, *end);
    }
  }
}

}  // namespace

std::string scrub_secrets(std::string text, const std::vector<std::string>& secret_values) {
  const auto needles = needles_of(secret_values);
  if (needles.empty() || text.empty()) return text;
  std::vector<raw_range> found;
  for (const auto& n : needles) {
    for (std::size_t at = text.find(n); at != std::string::npos; at = text.find(n, at + 1)) {
      found.emplace_back(at, at + n.size());
    }
  }
  for (const auto& chain : chains()) find_decoded(text, chain, needles, found);
  if (found.empty()) return text;
  std::sort(found.begin(), found.end());
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  for (std::size_t i = 0; i < found.size();) {
    auto [begin, end] = found[i];
    // Overlapping occurrences (a value inside another, an echo found in two forms) are one.
    for (++i; i < found.size() && found[i].first < end; ++i) end = std::max(end, found[i].second);
    out.append(text, copied, begin - copied);
    out += marker;
    copied = end;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

}  // namespace platform
