// runtime-c (opencode `run --format json`) → worker messages. The mapping, with examples, is
// in docs/runtime-c.md; the captured transcripts and what each must become are in
// tests/data/fixtures/runtime-c/ (README in shared/fixtures/runtime-c/).
//
// opencode prints WHOLE parts once they end (no token deltas, tools only when finished) and
// no init or result line, so each part becomes a complete content block at once and the
// result is built at the end of the stream from the step_finish lines.
//
// Reading: each line is parsed whole (so a malformed line is refused whole) by simdjson's DOM
// parser, in place when the piece it came in has room after it; the few fields needed are
// picked out in one pass per object. A line that starts as opencode prints a part event is
// read from its start and only its part is parsed (see event_head). The output keeps the form it had when nlohmann::json read
// these lines: a repeated key keeps its last value, and the values copied into the output
// (tool inputs and outputs) have their object keys sorted and numbers spelled as nlohmann
// spells them. The rare texts simdjson refuses but nlohmann reads (a byte order mark, an
// integer beyond 64 bits) are read through nlohmann, then from its output.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "dom_json.hpp"
#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"
#include "platform/json_text.hpp"
#include "platform/worker_message.hpp"
#include "normalizer_bounds.hpp"
#include "runtime_normalizers.hpp"

namespace platform {
namespace {

namespace dom = simdjson::dom;
namespace wm = worker_message;

using normalizer_bounds::max_line_bytes;
using normalizer_bounds::max_block_index;
using normalizer_bounds::kept_parser_capacity;
// Deeper JSON is not read (the line counts as non-JSON): re-emitting it would recurse that deep.
constexpr std::size_t max_line_depth = 512;
// Tool call ids remembered to keep them unique within the stream.
constexpr std::size_t max_remembered_ids = 4096;
// How much of a non-JSON line is quoted in the "not usable" error.
constexpr std::size_t max_quoted_line = 200;

constexpr std::string_view no_json_text =
    "opencode did not print JSON events; the installed CLI may predate `run --format json`. "
    "It printed: ";

// ---- reading ---------------------------------------------------------------------------

// A value of the current line, or nothing (a missing member).
using value = std::optional<dom::element>;

// A parser that refuses JSON nested deeper than `depth` (objects one level less). Out of
// memory, it allocates again at its first parse with simdjson's default depth (1024), which
// the recursion of write_json still bears.
dom::parser depth_limited_parser(std::size_t depth) {
  dom::parser p;
  [[maybe_unused]] simdjson::error_code error = p.allocate(4096, depth);
  return p;
}

// The members `keys` of `v` (nothing when `v` is not an object); a repeated key keeps its
// last value.
template <std::size_t N>
std::array<value, N> members(const value& v, const std::string_view (&keys)[N]) {
  dom::object o;
  if (!v || v->get_object().get(o)) return {};
  return pick_members<repeated_key::last>(o, keys);
}

std::string_view as_string(const value& v) {
  std::string_view s;
  if (!v || v->get_string().get(s)) return {};
  return s;
}

std::string_view string_member(const value& v, std::string_view key) {
  const std::string_view keys[] = {key};
  return as_string(members(v, keys)[0]);
}

bool is_object(const value& v) { return v && v->is_object(); }

// A string value, or `fallback` when it is missing, empty or not a string.
std::string_view text_or(const value& v, std::string_view fallback) {
  std::string_view s = as_string(v);
  return s.empty() ? fallback : s;
}

// A token count: non-negative integers (floats truncated); anything else counts as zero.
std::int64_t count_of(const value& v) {
  constexpr std::int64_t cap = std::numeric_limits<std::int64_t>::max() / 4;
  if (!v) return 0;
  switch (v->type()) {
    case dom::element_type::INT64: return std::clamp<std::int64_t>(v->get_int64().value_unsafe(), 0, cap);
    case dom::element_type::UINT64: return cap;  // only integers above int64's range are unsigned
    case dom::element_type::DOUBLE: {
      double d = v->get_double().value_unsafe();
      if (!(d > 0)) return 0;
      return d >= 1e15 ? static_cast<std::int64_t>(1e15) : static_cast<std::int64_t>(d);
    }
    default: return 0;
  }
}

// Sums stay far from overflow: each term is capped at int64 max / 4 and sums saturate.
void add_saturating(std::int64_t& sum, std::int64_t v) {
  constexpr std::int64_t cap = std::numeric_limits<std::int64_t>::max() / 2;
  sum = sum > cap - v ? cap : sum + v;
}

// The start of a part event as opencode prints it:
// {"type":"<type>","timestamp":N,"sessionID":"<id>","part":{ — valid JSON as far as it goes.
// When the text from the part to the line's last '}' is one JSON value (no deeper than the
// line allows), the line is valid, its members are exactly these four, and that value is the
// part: only it is parsed, by a parser one level shallower.
struct event_head {
  std::string_view type, session;
  const char* part = nullptr;  // the part's '{'
};

bool read_event_head(std::string_view text, event_head& h) {
  raw_reader r(text);
  std::int64_t timestamp = 0;
  if (!r.literal(R"({"type":)") || !r.ascii_string(h.type) || !r.literal(R"(,"timestamp":)") ||
      !r.integer(timestamp) || !r.literal(R"(,"sessionID":)") || !r.ascii_string(h.session) ||
      !r.literal(R"(,"part":)") || r.p == r.end || *r.p != '{') {
    return false;
  }
  h.part = r.p;
  return true;
}

// ---- writing values back -------------------------------------------------------------------

struct field_ref {
  std::string_view key;
  dom::element value;
  std::size_t order = 0;
};

// Appends the members of `o` to `fields` sorted by key, a repeated key once with its last
// value; returns where they start.
std::size_t append_sorted_fields(dom::object o, std::vector<field_ref>& fields) {
  std::size_t start = fields.size();
  for (dom::key_value_pair f : o) fields.push_back({f.key, f.value, fields.size()});
  auto first = fields.begin() + static_cast<std::ptrdiff_t>(start);
  std::sort(first, fields.end(), [](const field_ref& a, const field_ref& b) {
    return a.key != b.key ? a.key < b.key : a.order < b.order;
  });
  auto kept = first;
  for (auto it = first; it != fields.end(); ++it) {
    if (std::next(it) != fields.end() && std::next(it)->key == it->key) continue;
    *kept++ = *it;
  }
  fields.erase(kept, fields.end());
  return start;
}

// Writes `v` as nlohmann::json::dump() does: keys sorted bytewise, integers as they are,
// other numbers in nlohmann's shortest form ("1.0", "1e+20"). `scratch` holds the sorted
// members of the objects being written; the recursion is bounded by the parser's depth limit.
void write_json(std::string& out, dom::element v, std::vector<field_ref>& scratch) {
  switch (v.type()) {
    case dom::element_type::ARRAY:
      dom_json::append_array(out, v.get_array().value_unsafe(),
                             [&](std::string& o, dom::element item) { write_json(o, item, scratch); });
      break;
    case dom::element_type::OBJECT: {
      std::size_t start = append_sorted_fields(v.get_object().value_unsafe(), scratch);
      std::size_t end = scratch.size();
      out.push_back('{');
      for (std::size_t i = start; i < end; ++i) {
        if (i > start) out.push_back(',');
        append_json_string(out, scratch[i].key);
        out.push_back(':');
        dom::element member = scratch[i].value;  // the call below may grow `scratch`
        write_json(out, member, scratch);
      }
      out.push_back('}');
      scratch.resize(start);
      break;
    }
    case dom::element_type::STRING: append_json_string(out, v.get_string().value_unsafe()); break;
    case dom::element_type::INT64:
    case dom::element_type::UINT64: {
      char digits[24];
      auto r = v.type() == dom::element_type::INT64 ? std::to_chars(digits, digits + sizeof digits, v.get_int64().value_unsafe())
                                                    : std::to_chars(digits, digits + sizeof digits, v.get_uint64().value_unsafe());
      out.append(digits, r.ptr);
      break;
    }
    case dom::element_type::DOUBLE: out.append(nlohmann::json(v.get_double().value_unsafe()).dump()); break;
    case dom::element_type::BOOL: out.append(v.get_bool().value_unsafe() ? "true" : "false"); break;
    case dom::element_type::NULL_VALUE: out.append("null"); break;
  }
}

// ---- tools -----------------------------------------------------------------------------

struct builtin_tool {
  std::string_view native, canonical;
};

// Spec "Canonical tool names": opencode's built-in tools that have a runtime-a counterpart.
constexpr builtin_tool builtin_tools[] = {
    {"bash", "Bash"},   {"edit", "Edit"},         {"write", "Write"},          {"read", "Read"},
    {"glob", "Glob"},   {"grep", "Grep"},         {"webfetch", "WebFetch"},    {"websearch", "WebSearch"},
};

// opencode names an MCP tool `<server>_<tool>`; server names hold underscores themselves, so
// only the platform's known servers are recognized, longest first.
constexpr std::string_view mcp_servers[] = {"app_tools", "app_data", "platform"};

struct tool_name {
  std::string name;
  bool builtin = false;
};

tool_name canonical_tool(std::string_view native) {
  for (const auto& t : builtin_tools) {
    if (native == t.native) return {std::string(t.canonical), true};
  }
  for (std::string_view server : mcp_servers) {
    if (native.size() > server.size() + 1 && native.substr(0, server.size()) == server &&
        native[server.size()] == '_') {
      std::string name = "mcp__";
      name.append(server).append("__").append(native.substr(server.size() + 1));
      return {std::move(name), false};
    }
  }
  return {std::string(native), false};
}

// runtime-a's input field names (snake_case) so the canonical tool cards read one shape:
// filePath → file_path, oldString → old_string, replaceAll → replace_all; Grep's file filter
// `include` is runtime-a's `glob`.
std::string snake_case(std::string_view key) {
  std::string s;
  bool after_lower = false;  // "URL" is "url", not "u_r_l"
  for (char c : key) {
    bool upper = c >= 'A' && c <= 'Z';
    if (upper && after_lower) s.push_back('_');
    s.push_back(upper ? static_cast<char>(c - 'A' + 'a') : c);
    after_lower = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
  return s;
}

// One member of a built-in tool's input under its runtime-a name.
struct renamed_field {
  std::string name;
  std::size_t order = 0;
  value v;                     // the input's value, or nothing for `text`
  std::string_view text;       // the Edit diff added from the metadata
};

// runtime-a's stop_reason for an AI SDK finish reason.
std::string stop_reason_of(std::string_view reason) {
  if (reason == "stop") return "end_turn";
  if (reason == "tool-calls") return "tool_use";
  if (reason == "length") return "max_tokens";
  if (reason == "content-filter") return "refusal";
  return std::string(reason);
}

class runtime_c_normalizer final : public runtime_normalizer {
 public:
  void feed(std::string_view bytes, std::string& out) override {
    if (finished_) return;
    lines_.feed(bytes, [&](std::string_view text) { line(text, out); });
  }

  void finish(std::string& out) override {
    if (finished_) return;
    lines_.finish([&](std::string_view text) { line(text, out); });
    finished_ = true;
    if (!events_seen_) {
      // Nothing but non-JSON text (an old CLI printing its usage): the run cannot work.
      if (!first_foreign_line_.empty()) {
        wm::result_fields r;
        r.is_error = true;
        r.result_text = std::string(no_json_text) + first_foreign_line_;
        r.num_turns = 0;
        wm::result(out, r);
      }
      return;
    }
    bool interrupted = step_open_;
    end_step(out);
    wm::result(out, result(interrupted));
  }

 private:
  // `text` has simdjson::SIMDJSON_PADDING readable bytes after it (line_splitter).
  void line(std::string_view text, std::string& out) {
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) {
      text.remove_suffix(1);
    }
    if (text.empty() || finished_) return;
    event_head head;
    dom::element part;
    if (read_event_head(text, head) && text.back() == '}' &&
        !part_parser_.parse(head.part, static_cast<std::size_t>(text.data() + text.size() - 1 - head.part), false)
             .get(part)) {
      if (!head.type.empty()) on_event(head.type, head.session, part, std::nullopt, out);
    } else {
      value root = parse(text);
      event(root, text, out);
    }
    fallback_parser_.reset();
    if (parser_.capacity() > kept_parser_capacity) parser_ = depth_limited_parser(max_line_depth);
    if (part_parser_.capacity() > kept_parser_capacity) part_parser_ = depth_limited_parser(max_line_depth - 1);
  }

  value parse(std::string_view text) {
    dom::element root;
    if (!parser_.parse(text.data(), text.size(), false).get(root)) return root;
    // What simdjson refuses is usually not JSON at all; the rest nlohmann reads and writes
    // in a form simdjson takes (an object nested exactly 512 deep needs one more level).
    if (nests_deeper_than(text, max_line_depth)) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    fallback_parser_ = std::make_unique<dom::parser>(depth_limited_parser(max_line_depth + 1));
    if (fallback_parser_->parse(compact_json(j)).get(root)) {
      return std::nullopt;
    }
    return root;
  }

  void event(const value& root, std::string_view text, std::string& out) {
    auto [type_v, session, part_v, error] = members(root, {"type", "sessionID", "part", "error"});
    std::string_view type = as_string(type_v);
    if (type.empty()) {
      if (first_foreign_line_.empty() && !is_object(root)) remember_foreign(text);
      return;
    }
    value part = is_object(part_v) ? part_v : std::nullopt;  // anything else reads as {}
    on_event(type, as_string(session), part, error, out);
  }

  // `part` is an object or nothing.
  void on_event(std::string_view type, std::string_view session, const value& part, const value& error,
                std::string& out) {
    events_seen_ = true;
    init(session, out);
    if (type == "step_start") {
      begin_step(part, out);
    } else if (type == "step_finish") {
      finish_step(part, out);
    } else if (type == "text") {
      text_part(part, false, out);
    } else if (type == "reasoning") {
      text_part(part, true, out);
    } else if (type == "tool_use") {
      tool_part(part, out);
    } else if (type == "error") {
      error_event(error);
    }
  }

  void remember_foreign(std::string_view text) {
    std::string excerpt(text.substr(0, max_quoted_line));
    if (text.size() > max_quoted_line) excerpt.append("…");
    first_foreign_line_ = std::move(excerpt);
  }

  void init(std::string_view session, std::string& out) {
    if (session.empty() || !session_id_.empty()) return;
    session_id_ = std::string(session);
    wm::system_init(out, session_id_, "");
  }

  // ---- steps: one opencode step (one model call) is one assistant message ----------------
  void begin_step(const value& part, std::string& out) {
    end_step(out);
    ++steps_;
    std::string_view id = string_member(part, "messageID");
    std::string message = id.empty() ? "step-" + std::to_string(steps_) : std::string(id);
    // Part ids are "<message id>:<index>" in the UI: a repeated id would repeat them.
    if (message == last_message_id_) message += "#" + std::to_string(steps_);
    last_message_id_ = message;
    message_id_ = std::move(message);
    wm::message_start(out, message_id_, "");
    step_open_ = true;
    next_index_ = 0;
  }

  void end_step(std::string& out) {
    if (!step_open_) return;
    wm::message_stop(out);
    step_open_ = false;
  }

  // Parts outside a step (never printed by opencode 1.18) still need a message to live in.
  int block_index(const value& part, std::string& out) {
    if (!step_open_ || next_index_ >= max_block_index) begin_step(part, out);
    return next_index_++;
  }

  void finish_step(const value& part, std::string& out) {
    auto [tokens, cost, reason] = members(part, {"tokens", "cost", "reason"});
    if (is_object(tokens)) {
      usage_seen_ = true;
      auto [input, output, reasoning, cache] = members(tokens, {"input", "output", "reasoning", "cache"});
      add_saturating(input_, count_of(input));
      add_saturating(output_, count_of(output));
      add_saturating(reasoning_, count_of(reasoning));
      auto [read, write] = members(cache, {"read", "write"});
      add_saturating(cache_read_, count_of(read));
      add_saturating(cache_write_, count_of(write));
    }
    if (cost && cost->is_number()) {
      double c = cost->get_double().value_unsafe();
      if (std::isfinite(c) && c >= 0 && c < 1e12) {
        cost_ = cost_.value_or(0) + c;
      }
    }
    std::string_view r = as_string(reason);
    if (!r.empty()) stop_reason_ = stop_reason_of(r);
    end_step(out);
  }

  // ---- parts ---------------------------------------------------------------------------
  void text_part(const value& part, bool reasoning, std::string& out) {
    std::string_view text = string_member(part, "text");
    if (text.empty()) return;
    int index = block_index(part, out);
    if (reasoning) {
      wm::thinking_block_start(out, index);
      wm::thinking_delta(out, index, text);
    } else {
      wm::text_block_start(out, index);
      wm::text_delta(out, index, text);
      last_text_.assign(text);
    }
    wm::block_stop(out, index);
  }

  void tool_part(const value& part, std::string& out) {
    auto [tool, call_id, part_id, state] = members(part, {"tool", "callID", "id", "state"});
    auto [status_v, input, output, metadata, error] = members(state, {"status", "input", "output", "metadata", "error"});
    std::string_view status = as_string(status_v);
    if (status != "completed" && status != "error") return;  // never printed unfinished
    std::string_view native = as_string(tool);
    tool_name name = canonical_tool(native.empty() ? std::string_view("unknown") : native);
    std::string id = unique_tool_id(as_string(call_id), as_string(part_id));
    auto [diff, exit] = members(metadata, {"diff", "exit"});
    int index = block_index(part, out);
    wm::tool_use_block_start(out, index, id, name.name);
    write_tool_input(input, as_string(diff), name);
    wm::assistant_tool_use(out, message_id_, id, name.name, json_);
    wm::block_stop(out, index);
    json_.clear();
    if (status == "error") {
      append_json_string(json_, text_or(error, "The tool call failed."));
      wm::tool_result(out, id, json_, true);
    } else {
      tool_success(output, exit, name.name, native == "invalid", id, out);
    }
  }

  // The input as runtime-a names it, into json_.
  void write_tool_input(const value& input, std::string_view diff, const tool_name& name) {
    json_.clear();
    if (!input) {
      json_ = "{}";
      return;
    }
    if (!name.builtin || !input->is_object()) {
      write_json(json_, *input, scratch_);
      return;
    }
    // Renamed members keep the first value per name in key order; runtime-b's Edit input
    // carries the unified diff too, so the Edit card reads one shape.
    std::size_t start = append_sorted_fields(input->get_object().value_unsafe(), scratch_);
    renamed_.clear();
    for (std::size_t i = start; i < scratch_.size(); ++i) {
      std::string_view key = scratch_[i].key;
      renamed_.push_back({name.name == "Grep" && key == "include" ? std::string("glob") : snake_case(key),
                          renamed_.size(), scratch_[i].value, {}});
    }
    scratch_.resize(start);
    std::sort(renamed_.begin(), renamed_.end(), [](const renamed_field& a, const renamed_field& b) {
      return a.name != b.name ? a.name < b.name : a.order < b.order;
    });
    renamed_.erase(std::unique(renamed_.begin(), renamed_.end(),
                               [](const renamed_field& a, const renamed_field& b) { return a.name == b.name; }),
                   renamed_.end());
    if (name.name == "Edit" && !diff.empty()) {
      auto at = std::lower_bound(renamed_.begin(), renamed_.end(), std::string_view("diff"),
                                 [](const renamed_field& f, std::string_view n) { return f.name < n; });
      if (at == renamed_.end() || at->name != "diff") renamed_.insert(at, {"diff", 0, std::nullopt, diff});
    }
    json_.push_back('{');
    for (const auto& f : renamed_) {
      if (json_.size() > 1) json_.push_back(',');
      append_json_string(json_, f.name);
      json_.push_back(':');
      if (f.v) write_json(json_, *f.v, scratch_);
      else append_json_string(json_, f.text);
    }
    json_.push_back('}');
  }

  // The model saw `output` as the result: that is the output, as with runtime-a. Two
  // completed calls still failed: `invalid` (an unknown or unavailable tool, e.g. an MCP
  // server that rejected its token) and a Bash command with a non-zero exit code (runtime-a
  // reports that as an error result too).
  void tool_success(const value& output, const value& exit, std::string_view name, bool invalid,
                    const std::string& id, std::string& out) {
    std::int64_t exit_code = 0;
    if (name == "Bash" && exit) {
      if (exit->is_int64()) exit_code = exit->get_int64().value_unsafe();
      else if (exit->is_uint64()) exit_code = static_cast<std::int64_t>(exit->get_uint64().value_unsafe());
    }
    json_.clear();
    if (exit_code != 0) {
      std::string text = "Exit code " + std::to_string(exit_code);
      std::string_view shown = text_or(output, "");
      if (!shown.empty()) text.append("\n").append(shown);
      append_json_string(json_, text);
      wm::tool_result(out, id, json_, true);
    } else if (invalid) {
      append_json_string(json_, text_or(output, "The tool call was invalid."));
      wm::tool_result(out, id, json_, true);
    } else if (!output || output->is_null()) {
      wm::tool_result(out, id, "\"\"");
    } else {
      write_json(json_, *output, scratch_);
      wm::tool_result(out, id, json_);
    }
  }

  std::string unique_tool_id(std::string_view call_id, std::string_view part_id) {
    std::string id(call_id.empty() ? part_id : call_id);
    if (id.empty()) id = "tool-" + std::to_string(++anonymous_tools_);
    if (tool_ids_.size() >= max_remembered_ids) {
      tool_ids_.clear();
      next_suffix_.clear();
    }
    if (tool_ids_.insert(id).second) return id;
    // The first free "<id>#<n>" from n = 2. Ids are only added until the set is cleared, so
    // the search for an id goes on from where its last one stopped.
    int& n = next_suffix_.try_emplace(id, 2).first->second;
    std::string unique;
    do {
      unique = id + "#" + std::to_string(n++);
    } while (!tool_ids_.insert(unique).second);
    return unique;
  }

  // ---- errors and the final result -------------------------------------------------------
  void error_event(const value& e) {
    if (!error_text_.empty()) return;  // the first error is the cause
    std::string_view text = as_string(e);
    if (e && text.empty()) {
      auto [data, message, name] = members(e, {"data", "message", "name"});
      text = string_member(data, "message");
      if (text.empty()) text = as_string(message);
      if (text.empty()) text = as_string(name);
    }
    error_text_ = text.empty() ? std::string("opencode reported an error.") : std::string(text);
  }

  wm::result_fields result(bool interrupted) const {
    wm::result_fields r;
    r.is_error = !error_text_.empty();
    r.result_text = r.is_error ? error_text_ : last_text_;
    r.session_id = session_id_;
    r.stop_reason = r.is_error ? "" : (interrupted ? "interrupted" : stop_reason_);
    r.num_turns = steps_;
    if (cost_) r.total_cost_usd = std::round(*cost_ * 1e12) / 1e12;  // no float dust in sums
    if (usage_seen_) r.usage_json = usage_json();
    return r;
  }

  // runtime-a's usage fields. opencode counts reasoning apart from output; both are billed as
  // output, so output_tokens holds both and the details name the reasoning share.
  std::string usage_json() const {
    std::int64_t output = output_;
    add_saturating(output, reasoning_);
    return R"({"input_tokens":)" + std::to_string(input_) + R"(,"output_tokens":)" + std::to_string(output) +
           R"(,"cache_read_input_tokens":)" + std::to_string(cache_read_) +
           R"(,"cache_creation_input_tokens":)" + std::to_string(cache_write_) +
           R"(,"output_tokens_details":{"thinking_tokens":)" + std::to_string(reasoning_) + "}}";
  }

  line_splitter lines_{max_line_bytes, simdjson::SIMDJSON_PADDING};
  dom::parser parser_ = depth_limited_parser(max_line_depth);
  dom::parser part_parser_ = depth_limited_parser(max_line_depth - 1);
  std::unique_ptr<dom::parser> fallback_parser_;
  std::vector<field_ref> scratch_;
  std::vector<renamed_field> renamed_;
  std::string json_;  // the JSON text of a tool input or result being written
  bool finished_ = false;
  bool events_seen_ = false;
  std::string first_foreign_line_;

  std::string session_id_;
  std::string message_id_;
  std::string last_message_id_;
  bool step_open_ = false;
  int next_index_ = 0;
  int steps_ = 0;

  std::unordered_set<std::string> tool_ids_;
  std::unordered_map<std::string, int> next_suffix_;
  int anonymous_tools_ = 0;

  std::string last_text_;
  std::string error_text_;
  std::string stop_reason_;
  bool usage_seen_ = false;
  std::int64_t input_ = 0, output_ = 0, reasoning_ = 0, cache_read_ = 0, cache_write_ = 0;
  std::optional<double> cost_;
};

}  // namespace

std::unique_ptr<runtime_normalizer> make_runtime_c_normalizer() {
  return std::make_unique<runtime_c_normalizer>();
}

}  // namespace platform
