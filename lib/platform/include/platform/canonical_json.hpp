#pragma once
// Canonical JSON per RFC 8785 (the JSON Canonicalization Scheme, JCS): one byte sequence per
// JSON value, so a hash of it depends on the value and never on key order, whitespace,
// escapes or number spelling in the source text.
#include <cstddef>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

// Nesting is bounded so hostile input cannot make canonicalization quadratic or deep.
// agents.json documents nest about eight levels.
inline constexpr std::size_t canonical_json_max_depth = 512;

// Parses `json_text` strictly and writes its canonical form: object members sorted by the
// UTF-16 code units of their keys, no whitespace, numbers as ECMAScript writes doubles,
// strings with the minimal escapes of JSON.stringify and everything else as raw UTF-8.
// A leading UTF-8 byte order mark is skipped.
// Error codes: invalid_json, invalid_utf8 (ill-formed bytes or an unpaired surrogate escape
// in a string), duplicate_key (RFC 8785 requires I-JSON, which forbids them),
// number_out_of_range (beyond the double range, e.g. 1e400), too_deep.
result<std::string> canonicalize_json(std::string_view json_text);

// ECMAScript Number::toString of a finite double (shortest round-trip digits; plain decimal
// when 1e-7 <= |x| < 1e21, else d.ddde±n; -0 is "0"): the number form of JCS.
std::string format_es_number(double x);

// Appends `utf8` (which must be valid UTF-8) as a JCS string literal with quotes.
void append_canonical_string(std::string& out, std::string_view utf8);

// JCS member order: compares valid UTF-8 strings by their UTF-16 code units. It differs from
// byte order only between supplementary-plane characters and U+E000..U+FFFF.
bool utf16_less(std::string_view a, std::string_view b) noexcept;

}  // namespace platform
