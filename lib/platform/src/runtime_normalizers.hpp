#pragma once
// Factories of the per-runtime normalizers, one source file each, and what they share.
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "platform/ascii.hpp"
#include "platform/line_splitter.hpp"
#include "platform/runtime_normalizer.hpp"

namespace platform {

std::unique_ptr<runtime_normalizer> make_runtime_b_normalizer();
std::unique_ptr<runtime_normalizer> make_runtime_c_normalizer();

// Which value of a key that an object repeats counts. runtime-b has always read runtime output
// with simdjson (the first), runtime-c with nlohmann::json (the last); each keeps its own.
enum class repeated_key { first, last };

// Whether an object's key (or a method) is `key`: compared here, 8 bytes at a time, as names
// are short (a call to memcmp costs more than comparing them).
inline bool same_key(std::string_view a, std::string_view key) {
  if (a.size() != key.size()) return false;
  std::size_t i = 0;
  for (std::uint64_t x, y; i + 8 <= a.size(); i += 8) {
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, key.data() + i, 8);
    if (x != y) return false;
  }
  for (; i < a.size(); ++i) {
    if (a[i] != key[i]) return false;
  }
  return true;
}

// The values of `keys` in a simdjson DOM object, in one pass over its members; a missing key
// stays empty. The keys are not empty.
template <repeated_key which, class Object, std::size_t N>
auto pick_members(const Object& object, const std::string_view (&keys)[N]) {
  std::array<std::optional<decltype((*object.begin()).value)>, N> found;
  for (auto field : object) {
    for (std::size_t i = 0; i < N; ++i) {
      if (same_key(field.key, keys[i])) {
        if (which == repeated_key::last || !found[i]) found[i] = field.value;
        break;
      }
    }
  }
  return found;
}

// Reads the start of a line as a runtime writes it, without unescaping it (the normalizers look
// at the start of a line this way before parsing it, or instead of it). It runs on every line,
// so it works on pointers (a string_view member kept going through memory, where a copy of it
// waited on the stores of its two halves).
struct raw_reader {
  const char* p;
  const char* end;

  explicit raw_reader(std::string_view s) : p(s.data()), end(s.data() + s.size()) {}

  template <std::size_t N>
  bool literal(const char (&l)[N]) {
    if (static_cast<std::size_t>(end - p) < N - 1 || std::memcmp(p, l, N - 1) != 0) return false;
    p += N - 1;
    return true;
  }
  // A JSON integer of up to 18 digits (no leading zero). A 19th digit is looked at, never
  // added: 18 nines times ten overflows std::int64_t (fuzz/corpus/runtime_b/overflow-seq-19-digits).
  bool integer(std::int64_t& out) {
    bool negative = literal("-");
    const char* start = p;
    std::int64_t v = 0;
    for (; p < end && p - start < 18 && is_ascii_digit(*p); ++p) v = v * 10 + (*p - '0');
    if (p == start || (p < end && is_ascii_digit(*p)) || (*start == '0' && p - start > 1)) {
      p = start;
      return false;
    }
    out = negative ? -v : v;
    return true;
  }
  // A string without escapes (its bytes are not checked).
  bool string(std::string_view& out) {
    if (!literal("\"")) return false;
    const char* close = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
    if (!close || std::memchr(p, '\\', static_cast<std::size_t>(close - p))) return false;
    out = std::string_view(p, static_cast<std::size_t>(close - p));
    p = close + 1;
    return true;
  }
  // A string of printable ASCII without escapes: valid JSON as it stands.
  bool ascii_string(std::string_view& out) {
    if (!string(out)) return false;
    for (char c : out) {
      auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte > 0x7E) return false;
    }
    return true;
  }
  std::string_view rest() const { return std::string_view(p, static_cast<std::size_t>(end - p)); }
};

}  // namespace platform
