#pragma once
// Worker message lines recognized by their exact bytes, as platform/worker_message.hpp's
// writers print them (the streamed parts of a message, tool results, the init, result and
// error lines), so the bridge reads the lines the runtime-b and runtime-c normalizers wrote
// without running a JSON parser on each (a parse costs about 100 ns even for a 70-byte line,
// more than the bridge's own work on it).
//
// Only the writers' exact form is recognized: no other spacing, member order or extra member
// (but for the members Claude Code's own stream event lines add after "event", which the
// bridge does not read, so runtime-a's deltas and block starts and stops are read too); string
// escapes only as append_json_string writes them; integers without sign, fraction or
// exponent. Anything else (a result with a cost or the worker's usage, a hand-written line) is
// not, and the caller parses it as before. A recognized line is valid JSON whose parse gives exactly the
// values read here, and its JSON values are already in the compact form simdjson::minify
// prints for them, so the two paths act alike byte for byte.
#include <cstdint>
#include <string_view>

namespace platform::worker_line {

enum class kind : unsigned char {
  message_start,   // id
  text_start,      // index
  thinking_start,  // index
  tool_use_start,  // index, id, name
  text_delta,      // index, json (the text as a JSON string literal)
  thinking_delta,  // index, json
  block_stop,      // index
  message_stop,
  tool_use,        // message_id, id, name, json (the input): the complete assistant frame
  tool_result,     // id (tool_use_id), json (the content), is_error, preliminary
  system_init,     // id (session_id), name (model)
  result,          // is_error, id (session_id), stop_reason when has_stop_reason, num_turns,
                   // text (an error result's text; not read otherwise), json (usage) and
                   // model_usage when present (not empty)
  error,           // text
};

// The values of one line, pointing into it. Ids and names hold no escapes, so they are the
// strings themselves.
struct line {
  kind what = kind::message_stop;
  int index = 0;
  std::string_view id;
  std::string_view message_id;
  std::string_view name;
  std::string_view json;
  bool is_error = false;
  bool preliminary = false;
  std::string_view text;
  std::string_view stop_reason;
  bool has_stop_reason = false;
  std::int64_t num_turns = 0;
  std::string_view model_usage;
};

// Whether the line (without its newline) is in one of the forms above; if so `out` holds its
// values (the fields of its kind; the others keep what they had). The caller keeps one `out`
// for all lines: filling a fresh one per line showed in profiles.
bool read(std::string_view text, line& out);

}  // namespace platform::worker_line
