#pragma once
// Redaction of what leaves a trust boundary as a record (spec "Automatic tool failure
// recovery" 1, report-failure payloads): bounded JSON with secret-looking members masked, so
// tool failure records and audit metadata never carry secret values, tokens, cookies or
// unbounded responses.
#include <cstddef>
#include <string>
#include <string_view>

namespace platform {

struct redaction_limits {
  std::size_t max_string_bytes = 1024;  // longer strings are cut (UTF-8 safe) and marked
  std::size_t max_members = 50;         // per object / array; the rest are dropped and counted
  std::size_t max_depth = 8;            // deeper values become "[truncated]"
  std::size_t max_total_bytes = 8192;   // the whole result; past it, the record is cut down
};

// `name` as the name checks compare it: lower case, with `-`, `_` and spaces dropped
// ("API-Key", "api_key" and "apiKey" are all "apikey").
[[nodiscard]] std::string folded_member_name(std::string_view name);

// True for member names that hold credentials: authorization, cookie, token, secret,
// password, api key and their spellings (case, `-`, `_` ignored).
[[nodiscard]] bool secret_member_name(std::string_view name) noexcept;

// `json` redacted and bounded: secret-named members become "[REDACTED]", strings and
// containers are cut to the limits, and bearer tokens inside strings are masked. Input that
// is not JSON becomes a bounded JSON string of it. The result is always valid JSON of at most
// `max_total_bytes` (a summary object when even the cut-down value does not fit).
[[nodiscard]] std::string redact_json(std::string_view json, const redaction_limits& limits = {});

}  // namespace platform
