#pragma once
// ASCII case folding for protocol tokens (header names, media types, schemes, host names):
// locale-free, so "I" never folds to a dotless "ı".
#include <string>
#include <string_view>

namespace platform {

constexpr char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

constexpr bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

constexpr bool iends_with(std::string_view s, std::string_view suffix) noexcept {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

// The value of a hexadecimal digit of either case, -1 for anything else.
constexpr int hex_digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  c = ascii_lower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

constexpr bool is_ascii_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// A character of an RFC 9110 token (tchar): header names, methods, media type names.
constexpr bool is_token_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_ascii_digit(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// `s` without the optional whitespace (RFC 9110 OWS: spaces and tabs) around an HTTP header
// value or list element.
constexpr std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The media type of a Content-Type value or of one Accept element ("text/html; q=0.8" gives
// "text/html"): parameters and OWS dropped, case kept.
constexpr std::string_view media_type_of(std::string_view value) noexcept {
  return trim_ows(value.substr(0, value.find(';')));
}

}  // namespace platform
