#include "platform/redaction.hpp"

#include <cctype>

#include <nlohmann/json.hpp>

#include "bounded_json.hpp"
#include "platform/ascii.hpp"
#include "platform/compact_json.hpp"

namespace platform {

namespace {

using nlohmann::json;

// Cuts at a UTF-8 character boundary.
std::string cut_utf8(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end)) + "…[truncated]";
}

// "Bearer abc…" anywhere in a string: the credential goes, the word stays.
std::string mask_bearer(std::string s) {
  for (std::size_t at = 0; (at = s.find("earer ", at)) != std::string::npos;) {
    if (at == 0 || (s[at - 1] != 'B' && s[at - 1] != 'b')) {
      at += 6;
      continue;
    }
    std::size_t start = at + 6, end = start;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) && s[end] != '"' && s[end] != ',') ++end;
    if (end > start) s.replace(start, end - start, "[REDACTED]");
    at = start + 10;
  }
  return s;
}

json bound(const json& v, const redaction_limits& l, std::size_t depth) {
  if (v.is_string()) return mask_bearer(cut_utf8(v.get_ref<const std::string&>(), l.max_string_bytes));
  if (!v.is_structured()) return v;
  if (depth >= l.max_depth) return "[truncated]";
  json out = v.is_object() ? json::object() : json::array();
  std::size_t n = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++n) {
    if (n == l.max_members) {
      std::string more = "[" + std::to_string(v.size() - n) + " more]";
      if (v.is_object()) out["…"] = more;
      else out.push_back(more);
      break;
    }
    if (v.is_object()) {
      out[cut_utf8(it.key(), 128)] = secret_member_name(it.key()) ? json("[REDACTED]") : bound(*it, l, depth + 1);
    } else {
      out.push_back(bound(*it, l, depth + 1));
    }
  }
  return out;
}

}  // namespace

std::string folded_member_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '-' && c != '_' && c != ' ') out += ascii_lower(c);
  }
  return out;
}

bool secret_member_name(std::string_view name) noexcept {
  std::string n = folded_member_name(name);
  for (std::string_view word : {"authorization", "cookie", "token", "secret", "password", "passwd", "apikey",
                                "privatekey", "credential", "session"}) {
    if (n.find(word) != std::string::npos) return true;
  }
  return n == "key" || n == "auth";
}

std::string redact_json(std::string_view text, const redaction_limits& limits) {
  json v = parse_json_within(text, stored_json_limits);
  if (v.is_discarded()) v = std::string(text);
  redaction_limits l = limits;
  // Tighten until it fits: fewer members and shorter strings keep the record's shape.
  for (int round = 0; round < 6; ++round) {
    std::string out = compact_json(bound(v, l, 0));
    if (out.size() <= limits.max_total_bytes) return out;
    l.max_string_bytes = std::max<std::size_t>(16, l.max_string_bytes / 4);
    l.max_members = std::max<std::size_t>(2, l.max_members / 2);
    l.max_depth = std::max<std::size_t>(1, l.max_depth - 2);
  }
  return json({{"truncated", true}, {"bytes", text.size()}}).dump();
}

}  // namespace platform
