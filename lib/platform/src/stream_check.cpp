#include "platform/stream_check.hpp"

#include <array>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/compact_json.hpp"
#include "platform/ui_stream.hpp"
#include "bounded_json.hpp"

namespace platform {

namespace {

using json = nlohmann::json;

// What a chunk field must hold. `any` is a key that must be present (null allowed): zod's
// `unknown` is non-optional in the AI SDK's schema.
enum class field_kind : unsigned char {
  string,
  boolean,
  object,
  array,
  any,
  provider_metadata,  // Record<string, Record<string, JSON>>
  finish_reason,
  input_encoding,
};

struct field_rule {
  std::string_view name;
  field_kind kind;
  bool required;
};

struct type_rule {
  std::string_view type;
  std::vector<field_rule> fields;
};

constexpr field_rule pm{"providerMetadata", field_kind::provider_metadata, false};
constexpr field_rule tm{"toolMetadata", field_kind::object, false};
constexpr field_rule dyn{"dynamic", field_kind::boolean, false};
constexpr field_rule exec{"providerExecuted", field_kind::boolean, false};
constexpr field_rule title{"title", field_kind::string, false};
constexpr field_rule call{"toolCallId", field_kind::string, true};
constexpr field_rule name{"toolName", field_kind::string, true};
constexpr field_rule id{"id", field_kind::string, true};
constexpr field_rule delta{"delta", field_kind::string, true};
constexpr field_rule error_text{"errorText", field_kind::string, true};
constexpr field_rule input{"input", field_kind::any, true};

// The chunk types of ai 5 with every field the newest client types (ai 7 validates the
// optional ones it added, older clients ignore them): a chunk passing here passes them all.
const std::array<type_rule, 22>& type_rules() {
  static const std::array<type_rule, 22> rules{{
      {"start", {{"messageId", field_kind::string, false}}},
      {"start-step", {}},
      {"finish-step", {}},
      {"finish", {{"finishReason", field_kind::finish_reason, false}}},
      {"abort", {{"reason", field_kind::string, false}}},
      {"message-metadata", {{"messageMetadata", field_kind::any, true}}},
      {"error", {error_text}},
      {"text-start", {id, pm}},
      {"text-delta", {id, delta, pm}},
      {"text-end", {id, pm, {"citations", field_kind::array, false}}},
      {"reasoning-start", {id, pm}},
      {"reasoning-delta", {id, delta, pm}},
      {"reasoning-end", {id, pm}},
      {"tool-input-start",
       {call, name, {"inputEncoding", field_kind::input_encoding, false}, exec, pm, tm, dyn, title}},
      {"tool-input-delta", {call, {"inputTextDelta", field_kind::string, true}}},
      {"tool-input-available", {call, name, input, exec, pm, tm, dyn, title}},
      {"tool-input-error", {call, name, input, error_text, exec, pm, tm, dyn, title}},
      {"tool-output-available",
       {call, {"output", field_kind::any, true}, exec, pm, tm, dyn, {"preliminary", field_kind::boolean, false}}},
      {"tool-output-error", {call, error_text, exec, pm, tm, dyn}},
      {"source-url", {{"sourceId", field_kind::string, true}, {"url", field_kind::string, true}, title, pm}},
      {"source-document",
       {{"sourceId", field_kind::string, true},
        {"mediaType", field_kind::string, true},
        {"title", field_kind::string, true},
        {"filename", field_kind::string, false},
        pm}},
      {"file", {{"url", field_kind::string, true}, {"mediaType", field_kind::string, true}, pm}},
  }};
  return rules;
}

const std::vector<field_rule> data_fields{
    {"data", field_kind::any, true}, {"id", field_kind::string, false}, {"transient", field_kind::boolean, false}};

// Types that ai 6 or 7 added: the ai 5 client rejects the whole stream on them.
constexpr std::array<std::string_view, 7> newer_types{
    "reset-step", "reasoning-file", "custom", "steering-message",
    "tool-approval-request", "tool-approval-response", "tool-output-denied"};

// finishReason values every client accepts (`unknown` is ai 5 only, `interrupted` ai 7 only).
constexpr std::array<std::string_view, 6> safe_finish_reasons{
    "stop", "length", "content-filter", "tool-calls", "error", "other"};

template <class Range>
bool contains(const Range& r, std::string_view s) {
  for (std::string_view x : r) {
    if (x == s) return true;
  }
  return false;
}

bool is_provider_metadata(const json& v) {
  if (!v.is_object()) return false;
  for (const auto& [k, inner] : v.items()) {
    if (!inner.is_object()) return false;
  }
  return true;
}

bool has_kind(const json& v, field_kind kind) {
  switch (kind) {
    case field_kind::string: return v.is_string();
    case field_kind::boolean: return v.is_boolean();
    case field_kind::object: return v.is_object();
    case field_kind::array: return v.is_array();
    case field_kind::any: return true;
    case field_kind::provider_metadata: return is_provider_metadata(v);
    case field_kind::finish_reason: return v.is_string();
    case field_kind::input_encoding:
      return v.is_string() && (v.get_ref<const std::string&>() == "json" || v.get_ref<const std::string&>() == "text");
  }
  return false;
}

std::string_view kind_name(field_kind kind) {
  switch (kind) {
    case field_kind::string: return "a string";
    case field_kind::boolean: return "a boolean";
    case field_kind::object: return "an object";
    case field_kind::array: return "an array";
    case field_kind::any: return "any value";
    case field_kind::provider_metadata: return "an object of objects";
    case field_kind::finish_reason: return "a string";
    case field_kind::input_encoding: return "\"json\" or \"text\"";
  }
  return "?";
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  }
  unsigned char c1 = b(i + 1);
  if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
  if (c == 0xED && c1 >= 0xA0) return 0;  // surrogate
  if (c == 0xF0 && c1 < 0x90) return 0;   // overlong
  if (c == 0xF4 && c1 >= 0x90) return 0;  // above U+10FFFF
  return n;
}

// The browser decodes the body with TextDecoder, which replaces invalid bytes with U+FFFD;
// doing the same keeps the checks after an encoding fault meaningful.
bool sanitize_utf8(std::string_view in, std::string& out) {
  bool valid = true;
  for (std::size_t i = 0; i < in.size();) {
    std::size_t n = utf8_sequence(in, i);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");
      valid = false;
      ++i;
      continue;
    }
    out.append(in.substr(i, n));
    i += n;
  }
  return valid;
}

std::string quote_for_message(std::string_view s) {
  std::string out = "\"";
  out.append(s.substr(0, 200));
  if (s.size() > 200) out.append("…");
  out.push_back('"');
  return out;
}

enum class message_phase : unsigned char { none, open, finished };
enum class tool_phase : unsigned char { input_streaming, input_available, output };

}  // namespace

// impl is defined in this file alone, so its fields' internal-linkage types cannot differ
// between translation units. GCC warns only because, in a unity chunk, this file is not the
// main file (where it stays quiet).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif
struct stream_checker::impl {
  stream_check_options options;
  sse_parser parser;
  std::vector<std::string> pending;
  std::vector<stream_violation> found;
  std::size_t events = 0;
  std::size_t chunks = 0;
  bool done_seen = false;
  bool finished = false;
  bool parser_failed = false;
  stream_report report;

  message_phase phase = message_phase::none;
  std::set<std::string> open_text;
  std::set<std::string> open_reasoning;
  std::map<std::string, tool_phase> tools;

  explicit impl(stream_check_options o) : options(o), parser(o.max_event_bytes) {}

  void add(std::size_t index, std::string_view code, std::string message) {
    if (found.size() >= options.max_violations) return;
    found.push_back({index, std::string(code), std::move(message)});
  }

  void feed_bytes(std::string_view bytes) {
    if (finished || parser_failed) return;
    pending.clear();
    parser.feed(bytes, pending);
    for (const auto& data : pending) on_event(data);
    pending.clear();
    if (parser.failed()) {
      parser_failed = true;
      add(events, "event_too_large",
          "an SSE event exceeds " + std::to_string(options.max_event_bytes) + " bytes; checking stopped");
    }
  }

  void on_event(std::string_view data) {
    std::size_t index = events++;
    if (data == "[DONE]") {
      on_done(index);
      return;
    }
    ++chunks;
    if (done_seen) {
      add(index, "data_after_done", "an event follows data: [DONE]; the stream must end there");
      return;
    }
    std::string text;
    text.reserve(data.size());
    if (!sanitize_utf8(data, text)) add(index, "invalid_utf8", "the event data is not valid UTF-8");
    json chunk = parse_json_within(text, stored_json_limits);
    if (chunk.is_discarded()) {
      add(index, "invalid_json", "the event data is not JSON: " + quote_for_message(text));
      return;
    }
    if (!chunk.is_object()) {
      add(index, "not_object", "the event data is not a JSON object");
      return;
    }
    on_chunk(index, chunk);
  }

  void on_done(std::size_t index) {
    if (done_seen) {
      add(index, "done_repeated", "data: [DONE] is sent more than once");
      return;
    }
    done_seen = true;
    if (phase == message_phase::open) add(index, "finish_missing", "the last message has no finish chunk before [DONE]");
  }

  void on_chunk(std::size_t index, const json& chunk) {
    auto t = chunk.find("type");
    if (t == chunk.end() || !t->is_string()) {
      add(index, "missing_type", "the chunk has no string \"type\"");
      return;
    }
    const std::string& type = t->get_ref<const std::string&>();
    if (!check_shape(index, type, chunk) || !has_keys(type, chunk)) return;
    check_order(index, type, chunk);
  }

  // A chunk with a field fault is still sequenced when the keys that sequencing needs are
  // there, so one bad field does not also show up as a missing start or finish.
  static bool has_keys(const std::string& type, const json& chunk) {
    auto is_str = [&](const char* key) {
      auto it = chunk.find(key);
      return it != chunk.end() && it->is_string();
    };
    if (type.rfind("text-", 0) == 0 || type.rfind("reasoning-", 0) == 0) return is_str("id");
    if (type.rfind("tool-", 0) == 0) return is_str("toolCallId");
    return true;
  }

  // Field presence and types. False for an unknown type (nothing to sequence).
  bool check_shape(std::size_t index, const std::string& type, const json& chunk) {
    if (type.rfind("data-", 0) == 0) {
      check_fields(index, type, chunk, data_fields);
      return true;
    }
    for (const auto& rule : type_rules()) {
      if (rule.type == type) {
        check_fields(index, type, chunk, rule.fields);
        return true;
      }
    }
    if (contains(newer_types, type)) {
      add(index, "type_not_in_v5", "chunk type " + quote_for_message(type) + " exists only in ai 6/7; ai 5 clients reject the stream");
    } else {
      add(index, "unknown_type", "unknown chunk type " + quote_for_message(type));
    }
    return false;
  }

  void check_fields(std::size_t index, const std::string& type, const json& chunk,
                    const std::vector<field_rule>& fields) {
    for (const auto& f : fields) {
      auto it = chunk.find(std::string(f.name));
      std::string where = type + "." + std::string(f.name);
      if (it == chunk.end()) {
        if (f.required) {
          add(index, "missing_field", where + " is required");
        }
      } else if (it->is_null() && f.kind != field_kind::any) {
        add(index, f.required ? "wrong_field_type" : "null_field",
            where + " is null; " + (f.required ? "it must be " + std::string(kind_name(f.kind))
                                                : std::string("omit the key instead")));
      } else if (!has_kind(*it, f.kind)) {
        add(index, "wrong_field_type", where + " must be " + std::string(kind_name(f.kind)));
      } else if (f.kind == field_kind::finish_reason && !contains(safe_finish_reasons, it->get_ref<const std::string&>())) {
        add(index, "unsafe_finish_reason",
            "finishReason " + quote_for_message(it->get_ref<const std::string&>()) +
                " is not one of stop, length, content-filter, tool-calls, error, other");
      }
    }
  }

  static std::string str(const json& chunk, const char* key) { return chunk.at(key).get<std::string>(); }

  void check_order(std::size_t index, const std::string& type, const json& chunk) {
    if (type == "start") {
      on_start(index, chunk);
      return;
    }
    if (phase == message_phase::none) {
      add(index, "start_not_first", "the first chunk is " + quote_for_message(type) + ", not start");
      phase = message_phase::open;
    } else if (phase == message_phase::finished) {
      add(index, "chunk_after_finish", quote_for_message(type) + " follows finish; only start or [DONE] may");
      phase = message_phase::open;
    }
    if (type == "finish-step") {
      close_parts(index, "part_open_at_finish_step", "finish-step");
    } else if (type == "finish") {
      close_parts(index, "part_open_at_finish", "finish");
      for (const auto& [tool_call_id, state] : tools) {
        if (state == tool_phase::input_streaming) {
          add(index, "tool_input_open_at_finish", "tool call " + quote_for_message(tool_call_id) + " is still streaming its input at finish");
        }
      }
      phase = message_phase::finished;
    } else if (type.rfind("text-", 0) == 0) {
      on_part(index, type, str(chunk, "id"), open_text, "text");
    } else if (type.rfind("reasoning-", 0) == 0) {
      on_part(index, type, str(chunk, "id"), open_reasoning, "reasoning");
    } else if (type.rfind("tool-", 0) == 0) {
      on_tool(index, type, chunk);
    }
  }

  void on_start(std::size_t index, const json& chunk) {
    if (phase == message_phase::open) add(index, "start_before_finish", "start arrives while the previous message has no finish");
    if (!chunk.contains("messageId")) {
      add(index, "start_without_message_id", "start has no messageId; a resumed replay would add a second message");
    }
    phase = message_phase::open;
    open_text.clear();
    open_reasoning.clear();
    tools.clear();
  }

  // ai 5 and 6 drop the open text and reasoning parts at finish-step, so the parts are
  // forgotten here too: a later delta for them is reported as well.
  void close_parts(std::size_t index, std::string_view code, std::string_view at) {
    for (const auto& part_id : open_text) {
      add(index, code, "text part " + quote_for_message(part_id) + " is still open at " + std::string(at));
    }
    for (const auto& part_id : open_reasoning) {
      add(index, code, "reasoning part " + quote_for_message(part_id) + " is still open at " + std::string(at));
    }
    open_text.clear();
    open_reasoning.clear();
  }

  void on_part(std::size_t index, const std::string& type, const std::string& part_id, std::set<std::string>& open,
               std::string_view kind) {
    std::string_view suffix = std::string_view(type).substr(kind.size() + 1);
    bool is_open = open.count(part_id) > 0;
    if (suffix == "start") {
      if (is_open) add(index, "duplicate_open_id", std::string(kind) + " part " + quote_for_message(part_id) + " is started while still open");
      open.insert(part_id);
    } else if (!is_open) {
      add(index, suffix == "delta" ? "delta_without_start" : "end_without_start",
          type + " for " + quote_for_message(part_id) + " has no open " + std::string(kind) + " part (" + std::string(kind) +
              "-start missing, or already ended)");
    } else if (suffix == "end") {
      open.erase(part_id);
    }
  }

  void on_tool(std::size_t index, const std::string& type, const json& chunk) {
    std::string tool_call_id = str(chunk, "toolCallId");
    auto dynamic = chunk.find("dynamic");
    bool is_dynamic = dynamic != chunk.end() && dynamic->is_boolean() && dynamic->get<bool>();
    if (type != "tool-input-delta" && !is_dynamic) {
      add(index, "dynamic_missing", type + " for " + quote_for_message(tool_call_id) + " lacks dynamic: true");
    }
    auto it = tools.find(tool_call_id);
    bool known = it != tools.end();
    if (type == "tool-input-start") {
      if (known) {
        add(index, it->second == tool_phase::input_streaming ? "duplicate_open_id" : "tool_call_restarted",
            "tool-input-start repeats tool call " + quote_for_message(tool_call_id));
      }
      tools[tool_call_id] = tool_phase::input_streaming;
    } else if (type == "tool-input-delta") {
      if (!known) {
        add(index, "tool_delta_without_start", "tool-input-delta for unknown tool call " + quote_for_message(tool_call_id));
      } else if (it->second != tool_phase::input_streaming) {
        add(index, "tool_delta_not_streaming", "tool-input-delta for " + quote_for_message(tool_call_id) + " after its input was complete");
      }
    } else if (type == "tool-input-available" || type == "tool-input-error") {
      if (known && it->second == tool_phase::output) {
        add(index, "tool_input_after_output", type + " for " + quote_for_message(tool_call_id) + " after its output");
      }
      tools[tool_call_id] = type == "tool-input-available" ? tool_phase::input_available : tool_phase::output;
    } else {  // tool-output-available / tool-output-error
      if (!known) {
        add(index, "unknown_tool_call", type + " for tool call " + quote_for_message(tool_call_id) + " that this message never started");
      } else {
        it->second = tool_phase::output;
      }
    }
  }

  stream_report finish() {
    if (!finished) {
      finished = true;
      if (!parser_failed && parser.has_partial_event()) {
        add(events, "unterminated_event", "the body ends inside an event (no blank line after it); clients drop it");
      }
      if (!done_seen) {
        add(events, "done_missing", "the body does not end with data: [DONE]");
        if (phase == message_phase::open) add(events, "finish_missing", "the last message has no finish chunk");
      }
      report.ok = found.empty();
      report.chunks = chunks;
      report.violations = found;
    }
    return report;
  }
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

stream_checker::stream_checker(stream_check_options options) : impl_(std::make_unique<impl>(options)) {}
stream_checker::~stream_checker() = default;
stream_checker::stream_checker(stream_checker&&) noexcept = default;
stream_checker& stream_checker::operator=(stream_checker&&) noexcept = default;

void stream_checker::feed(std::string_view sse_bytes) { impl_->feed_bytes(sse_bytes); }

void stream_checker::feed_event(std::string_view data) {
  if (!impl_->finished) impl_->on_event(data);
}

stream_report stream_checker::finish() { return impl_->finish(); }

const std::vector<stream_violation>& stream_checker::violations() const { return impl_->found; }

std::size_t stream_checker::chunks() const { return impl_->chunks; }

stream_report check_ui_stream(std::string_view sse_body, const stream_check_options& options) {
  stream_checker checker(options);
  checker.feed(sse_body);
  return checker.finish();
}

std::string stream_report_to_json(const stream_report& report) {
  using ordered = nlohmann::ordered_json;
  ordered list = ordered::array();
  for (const auto& v : report.violations) {
    list.push_back(ordered{{"index", v.index}, {"code", v.code}, {"message", v.message}});
  }
  ordered out{{"ok", report.ok}, {"chunks", report.chunks}, {"violations", std::move(list)}};
  return compact_json(out);
}

}  // namespace platform
