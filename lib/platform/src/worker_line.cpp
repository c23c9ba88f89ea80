#include "worker_line.hpp"

#include <cstring>

#include "json_string_bytes.hpp"

namespace platform::worker_line {
namespace {

// Deeper JSON values are left to the parser (which refuses documents deeper than 1024).
constexpr int max_value_depth = 64;
// Up to 18 digits an integer always fits in int64, the type simdjson reads it as and prints
// back as written; longer ones it may read as unsigned or refuse.
constexpr std::size_t max_integer_digits = 18;
// Block indexes and turn counts as the writers print them (the bridge refuses indexes above
// 4096 itself).
constexpr std::size_t max_small_digits = 9;

std::int64_t value_of_digits(const char* from, const char* to) {
  std::int64_t v = 0;
  for (; from < to; ++from) v = v * 10 + (*from - '0');
  return v;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is not append_json_string's form
}

struct cursor {
  const char* p;
  const char* end;

  template <std::size_t N>
  bool literal(const char (&l)[N]) {
    constexpr std::size_t n = N - 1;
    if (static_cast<std::size_t>(end - p) < n || std::memcmp(p, l, n) != 0) return false;
    p += n;
    return true;
  }

  // One escape as append_json_string writes it: the short forms, \u00XX (lower case) for the
  // other control characters.
  bool escape() {
    if (end - p < 2) return false;
    switch (p[1]) {
      case '"': case '\\': case 'n': case 'r': case 't': case 'b': case 'f':
        p += 2;
        return true;
      case 'u':
        break;
      default:
        return false;
    }
    if (end - p < 6 || p[2] != '0' || p[3] != '0' || (p[4] != '0' && p[4] != '1')) return false;
    int low = hex_value(p[5]);
    if (low < 0) return false;
    int c = (p[4] - '0') * 16 + low;
    if (c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r') return false;
    p += 6;
    return true;
  }

  // Past a string's content to its closing quote: bytes copied as they are, well-formed UTF-8
  // and, when `escapes`, escapes as append_json_string writes them. False at anything else (a
  // raw control character, the end of the line).
  bool string_content(bool escapes) {
    for (;;) {
      std::string_view rest(p, static_cast<std::size_t>(end - p));
      std::size_t i = json_string_bytes::skip_plain(rest, 0);
      p += i;
      if (i == rest.size()) return false;
      auto c = static_cast<unsigned char>(*p);
      if (c == '"') return true;
      if (c >= 0x80) {
        std::size_t n = json_string_bytes::utf8_sequence_length(rest, i);
        if (n == 0) return false;
        p += n;
      } else if (c != '\\' || !escapes || !escape()) {
        return false;
      }
    }
  }

  // A string literal as append_json_string writes it; `out` is the literal with its quotes.
  bool json_string(std::string_view& out) {
    const char* start = p;
    if (!literal("\"") || !string_content(true)) return false;
    ++p;
    out = std::string_view(start, static_cast<std::size_t>(p - start));
    return true;
  }

  // A string literal without escapes; `out` is its content.
  bool plain_string(std::string_view& out) {
    if (!literal("\"")) return false;
    const char* start = p;
    if (!string_content(false)) return false;
    out = std::string_view(start, static_cast<std::size_t>(p - start));
    ++p;
    return true;
  }

  // Digits without a sign or leading zero.
  bool digits(std::size_t max_digits) {
    const char* start = p;
    while (p < end && *p >= '0' && *p <= '9') ++p;
    std::size_t n = static_cast<std::size_t>(p - start);
    return n > 0 && n <= max_digits && (*start != '0' || n == 1);
  }

  bool index(int& out) {
    const char* start = p;
    if (!digits(max_small_digits)) return false;
    out = static_cast<int>(value_of_digits(start, p));
    return true;
  }

  // An integer of a few digits, with a sign (not -0).
  bool small_integer(std::int64_t& out) {
    bool negative = literal("-");
    const char* start = p;
    if (!digits(max_small_digits) || (negative && *start == '0')) return false;
    out = value_of_digits(start, p);
    if (negative) out = -out;
    return true;
  }

  // An integer (not -0, which simdjson reads as a double). A fraction or an exponent makes a
  // double, which simdjson prints in its own form: such a value is not recognized.
  bool integer() {
    if (literal("-") && (p == end || *p == '0')) return false;
    return digits(max_integer_digits) && (p == end || (*p != '.' && *p != 'e' && *p != 'E'));
  }

  // A JSON value in compact form: no whitespace, strings as append_json_string writes them,
  // integers only.
  bool value(int depth) {
    if (p == end) return false;
    std::string_view ignored;
    switch (*p) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return json_string(ignored);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return integer();
    }
  }

  bool object(int depth) {
    if (depth > max_value_depth) return false;
    ++p;
    if (literal("}")) return true;
    std::string_view key;
    do {
      if (!json_string(key) || !literal(":") || !value(depth)) return false;
    } while (literal(","));
    return literal("}");
  }

  bool array(int depth) {
    if (depth > max_value_depth) return false;
    ++p;
    if (literal("]")) return true;
    do {
      if (!value(depth)) return false;
    } while (literal(","));
    return literal("]");
  }

  // A JSON value; `out` is its text.
  bool json_value(std::string_view& out) {
    const char* start = p;
    if (!value(0)) return false;
    out = std::string_view(start, static_cast<std::size_t>(p - start));
    return true;
  }
};

// After {"type":"stream_event","event":{"type":" up to the end of the event object.
bool stream_event(cursor& c, line& l) {
  if (c.literal(R"(content_block_delta","index":)")) {
    if (!c.index(l.index)) return false;
    if (c.literal(R"(,"delta":{"type":"text_delta","text":)")) l.what = kind::text_delta;
    else if (c.literal(R"(,"delta":{"type":"thinking_delta","thinking":)")) l.what = kind::thinking_delta;
    else return false;
    return c.json_string(l.json) && c.literal("}}");
  }
  if (c.literal(R"(content_block_stop","index":)")) {
    l.what = kind::block_stop;
    return c.index(l.index) && c.literal("}");
  }
  if (c.literal(R"(content_block_start","index":)")) {
    if (!c.index(l.index) || !c.literal(R"(,"content_block":{"type":")")) return false;
    if (c.literal(R"(text","text":""}})")) {
      l.what = kind::text_start;
      return true;
    }
    if (c.literal(R"(thinking","thinking":""}})")) {
      l.what = kind::thinking_start;
      return true;
    }
    l.what = kind::tool_use_start;
    return c.literal(R"(tool_use","id":)") && c.plain_string(l.id) && c.literal(R"(,"name":)") &&
           c.plain_string(l.name) && c.literal(R"(,"input":{}}})");
  }
  if (c.literal(R"(message_start","message":{"id":)")) {
    l.what = kind::message_start;
    std::string_view model;
    return c.plain_string(l.id) && c.literal(R"(,"type":"message","role":"assistant","model":)") &&
           c.json_string(model) && c.literal(R"(,"content":[]}})");
  }
  l.what = kind::message_stop;
  return c.literal(R"(message_stop"})");
}

// The stream event line's closing brace. Claude Code's own lines carry more members after
// "event" (session_id, parent_tool_use_id, uuid, ttft_ms, ...), which the bridge does not read
// for these events: they are taken when in the compact form the parser would read the same.
// Not after a message_stop, whose line the bridge reads abandoned_blocks from.
bool stream_event_end(cursor& c, const line& l) {
  if (l.what != kind::message_stop) {
    std::string_view key;
    while (c.literal(",")) {
      if (!c.json_string(key) || !c.literal(":") || !c.value(0)) return false;
    }
  }
  return c.literal("}");
}

// After {"type":"result","subtype":"success","is_error":
bool result(cursor& c, line& l) {
  l.what = kind::result;
  l.is_error = c.literal("true");
  if (!l.is_error && !c.literal("false")) return false;
  l.text = {};
  l.json = {};
  l.model_usage = {};
  std::string_view ignored;
  if (!c.literal(R"(,"result":)") || !(l.is_error ? c.plain_string(l.text) : c.json_string(ignored)) ||
      !c.literal(R"(,"session_id":)") || !c.plain_string(l.id)) {
    return false;
  }
  l.has_stop_reason = c.literal(R"(,"stop_reason":)");
  if ((l.has_stop_reason && !c.plain_string(l.stop_reason)) || !c.literal(R"(,"num_turns":)") ||
      !c.small_integer(l.num_turns)) {
    return false;
  }
  if (c.literal(R"(,"usage":)") && !c.json_value(l.json)) return false;
  if (c.literal(R"(,"modelUsage":)") && !c.json_value(l.model_usage)) return false;
  return c.literal("}");
}

}  // namespace

bool read(std::string_view text, line& l) {
  // Every tool_use frame and tool result the writers print ends in "}}"; runtime-a's end in
  // more members and are refused here before their text is scanned.
  bool closes_twice = text.size() >= 2 && text.substr(text.size() - 2) == "}}";
  cursor c{text.data(), text.data() + text.size()};
  bool ok = false;
  if (c.literal(R"({"type":"stream_event","event":{"type":")")) {
    ok = stream_event(c, l) && stream_event_end(c, l);
  } else if (closes_twice && c.literal(R"({"type":"assistant","message":{"id":)")) {
    l.what = kind::tool_use;
    ok = c.plain_string(l.message_id) && c.literal(R"(,"role":"assistant","content":[{"type":"tool_use","id":)") &&
         c.plain_string(l.id) && c.literal(R"(,"name":)") && c.plain_string(l.name) && c.literal(R"(,"input":)") &&
         c.json_value(l.json) && c.literal("}]}}");
  } else if (closes_twice &&
             c.literal(R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":)")) {
    l.what = kind::tool_result;
    ok = c.plain_string(l.id) && c.literal(R"(,"content":)") && c.json_value(l.json);
    l.is_error = ok && c.literal(R"(,"is_error":true)");
    l.preliminary = ok && c.literal(R"(,"preliminary":true)");
    ok = ok && c.literal("}]}}");
  } else if (c.literal(R"({"type":"result","subtype":"success","is_error":)")) {
    ok = result(c, l);
  } else if (c.literal(R"({"type":"system","subtype":"init","session_id":)")) {
    l.what = kind::system_init;
    ok = c.plain_string(l.id) && c.literal(R"(,"model":)") && c.plain_string(l.name) && c.literal("}");
  } else if (c.literal(R"({"type":"error","error":)")) {
    l.what = kind::error;
    ok = c.plain_string(l.text) && c.literal("}");
  }
  return ok && c.p == c.end;
}

}  // namespace platform::worker_line
