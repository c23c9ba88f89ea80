// runtime-c (opencode `run --format json`) → worker messages. The mapping, with examples, is
// in docs/runtime-c.md; the captured transcripts and what each must become are in
// tests/data/fixtures/runtime-c/ (README in shared/fixtures/runtime-c/).
//
// opencode prints WHOLE parts once they end (no token deltas, tools only when finished) and
// no init or result line, so each part becomes a complete content block at once and the
// result is built at the end of the stream from the step_finish lines.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "platform/json_limits.hpp"
#include "platform/json_text.hpp"
#include "platform/worker_message.hpp"
#include "runtime_normalizers.hpp"

namespace platform {
namespace {

using nlohmann::json;
namespace wm = worker_message;

// A runaway line is skipped instead of growing memory (same bound as the bridge's default).
constexpr std::size_t max_line_bytes = 64u << 20;
// Deeper JSON is refused before parsing: dumping it again would recurse that deep.
constexpr int max_json_depth = 512;
// The bridge accepts content block indexes up to 4096 per message.
constexpr int max_block_index = 4000;
// Tool call ids remembered to keep them unique within the stream.
constexpr std::size_t max_remembered_ids = 4096;
// How much of a non-JSON line is quoted in the "not usable" error.
constexpr std::size_t max_quoted_line = 200;

constexpr std::string_view no_json_text =
    "opencode did not print JSON events; the installed CLI may predate `run --format json`. "
    "It printed: ";


const json* member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string_view string_member(const json& obj, const char* key) {
  const json* v = member(obj, key);
  return v && v->is_string() ? std::string_view(v->get_ref<const std::string&>()) : std::string_view();
}

// A token count: non-negative integers (floats truncated); anything else counts as zero.
std::int64_t count_member(const json& obj, const char* key) {
  const json* v = member(obj, key);
  if (!v) return 0;
  if (v->is_number_unsigned()) {
    auto u = v->get<std::uint64_t>();
    return u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / 4)
               ? std::numeric_limits<std::int64_t>::max() / 4
               : static_cast<std::int64_t>(u);
  }
  if (v->is_number_integer()) return std::max<std::int64_t>(0, v->get<std::int64_t>());
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (!(d > 0)) return 0;
    return d >= 1e15 ? static_cast<std::int64_t>(1e15) : static_cast<std::int64_t>(d);
  }
  return 0;
}

// Sums stay far from overflow: each term is capped at int64 max / 4 and sums saturate.
void add_saturating(std::int64_t& sum, std::int64_t v) {
  constexpr std::int64_t cap = std::numeric_limits<std::int64_t>::max() / 2;
  sum = sum > cap - v ? cap : sum + v;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string json_quoted(std::string_view s) {
  std::string q;
  append_json_string(q, s);
  return q;
}

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

json canonical_input(const json& input, std::string_view canonical, bool builtin) {
  if (!builtin || !input.is_object()) return input;
  json mapped = json::object();
  for (const auto& [key, value] : input.items()) {
    std::string name = canonical == "Grep" && key == "include" ? std::string("glob") : snake_case(key);
    if (!mapped.contains(name)) mapped[name] = value;
  }
  return mapped;
}

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
    while (!bytes.empty()) {
      const char* nl = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
      std::size_t len = nl ? static_cast<std::size_t>(nl - bytes.data()) : bytes.size();
      if (skipping_) {
        skipping_ = nl == nullptr;
      } else if (partial_.size() + len > max_line_bytes) {
        partial_.clear();
        partial_.shrink_to_fit();
        skipping_ = nl == nullptr;
      } else if (!nl) {
        partial_.append(bytes);
      } else if (partial_.empty()) {
        line(bytes.substr(0, len), out);
      } else {
        partial_.append(bytes.substr(0, len));
        line(partial_, out);
        partial_.clear();
      }
      bytes.remove_prefix(nl ? len + 1 : bytes.size());
    }
  }

  void finish(std::string& out) override {
    if (finished_) return;
    if (!partial_.empty() && !skipping_) line(partial_, out);
    partial_.clear();
    partial_.shrink_to_fit();
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
  void line(std::string_view text, std::string& out) {
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) {
      text.remove_suffix(1);
    }
    if (text.empty() || finished_) return;
    json j;
    if (!nests_deeper_than(text, max_json_depth)) j = json::parse(text, nullptr, false);
    std::string_view type = string_member(j, "type");
    if (type.empty()) {
      if (first_foreign_line_.empty() && !j.is_object()) remember_foreign(text);
      return;
    }
    events_seen_ = true;
    init(j, out);
    const json* part = member(j, "part");
    static const json no_part = json::object();
    const json& p = part && part->is_object() ? *part : no_part;
    if (type == "step_start") {
      begin_step(p, out);
    } else if (type == "step_finish") {
      finish_step(p, out);
    } else if (type == "text") {
      text_part(p, false, out);
    } else if (type == "reasoning") {
      text_part(p, true, out);
    } else if (type == "tool_use") {
      tool_part(p, out);
    } else if (type == "error") {
      error_event(j);
    }
  }

  void remember_foreign(std::string_view text) {
    std::string excerpt(text.substr(0, max_quoted_line));
    if (text.size() > max_quoted_line) excerpt.append("…");
    first_foreign_line_ = std::move(excerpt);
  }

  void init(const json& j, std::string& out) {
    std::string_view session = string_member(j, "sessionID");
    if (session.empty() || !session_id_.empty()) return;
    session_id_ = std::string(session);
    wm::system_init(out, session_id_, "");
  }

  // ---- steps: one opencode step (one model call) is one assistant message ----------------
  void begin_step(const json& part, std::string& out) {
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
  int block_index(const json& part, std::string& out) {
    if (!step_open_ || next_index_ >= max_block_index) begin_step(part, out);
    return next_index_++;
  }

  void finish_step(const json& part, std::string& out) {
    const json* tokens = member(part, "tokens");
    if (tokens && tokens->is_object()) {
      usage_seen_ = true;
      add_saturating(input_, count_member(*tokens, "input"));
      add_saturating(output_, count_member(*tokens, "output"));
      add_saturating(reasoning_, count_member(*tokens, "reasoning"));
      const json* cache = member(*tokens, "cache");
      if (cache) {
        add_saturating(cache_read_, count_member(*cache, "read"));
        add_saturating(cache_write_, count_member(*cache, "write"));
      }
    }
    const json* cost = member(part, "cost");
    if (cost && cost->is_number()) {
      double c = cost->get<double>();
      if (std::isfinite(c) && c >= 0 && c < 1e12) {
        cost_ = cost_.value_or(0) + c;
      }
    }
    std::string_view reason = string_member(part, "reason");
    if (!reason.empty()) stop_reason_ = stop_reason_of(reason);
    end_step(out);
  }

  // ---- parts ---------------------------------------------------------------------------
  void text_part(const json& part, bool reasoning, std::string& out) {
    std::string_view text = string_member(part, "text");
    if (text.empty()) return;
    int index = block_index(part, out);
    if (reasoning) {
      wm::thinking_block_start(out, index);
      wm::thinking_delta(out, index, text);
    } else {
      wm::text_block_start(out, index);
      wm::text_delta(out, index, text);
      last_text_ = std::string(text);
    }
    wm::block_stop(out, index);
  }

  void tool_part(const json& part, std::string& out) {
    const json* state = member(part, "state");
    std::string_view status = state ? string_member(*state, "status") : std::string_view();
    if (status != "completed" && status != "error") return;  // never printed unfinished
    std::string_view native = string_member(part, "tool");
    tool_name name = canonical_tool(native.empty() ? std::string_view("unknown") : native);
    std::string id = unique_tool_id(part);
    const json* metadata = member(*state, "metadata");
    int index = block_index(part, out);
    wm::tool_use_block_start(out, index, id, name.name);
    wm::assistant_tool_use(out, message_id_, id, name.name, tool_input(*state, metadata, name));
    wm::block_stop(out, index);
    if (status == "error") {
      wm::tool_result(out, id, json_quoted(text_or(member(*state, "error"), "The tool call failed.")), true);
    } else {
      tool_success(*state, metadata, name.name, native == "invalid", id, out);
    }
  }

  static std::string tool_input(const json& state, const json* metadata, const tool_name& name) {
    const json* input = member(state, "input");
    if (!input) return "{}";
    json mapped = canonical_input(*input, name.name, name.builtin);
    // runtime-b's Edit input carries the unified diff too: the Edit card reads one shape.
    std::string_view diff = metadata ? string_member(*metadata, "diff") : std::string_view();
    if (name.name == "Edit" && mapped.is_object() && !diff.empty() && !mapped.contains("diff")) {
      mapped["diff"] = diff;
    }
    return dump(mapped);
  }

  // The model saw `output` as the result: that is the output, as with runtime-a. Two
  // completed calls still failed: `invalid` (an unknown or unavailable tool, e.g. an MCP
  // server that rejected its token) and a Bash command with a non-zero exit code (runtime-a
  // reports that as an error result too).
  static void tool_success(const json& state, const json* metadata, std::string_view name, bool invalid,
                           const std::string& id, std::string& out) {
    const json* output = member(state, "output");
    std::int64_t exit_code = 0;
    const json* exit = metadata ? member(*metadata, "exit") : nullptr;
    if (name == "Bash" && exit && exit->is_number_integer()) exit_code = exit->get<std::int64_t>();
    if (exit_code != 0) {
      std::string text = "Exit code " + std::to_string(exit_code);
      std::string_view shown = text_or(output, "");
      if (!shown.empty()) text.append("\n").append(shown);
      wm::tool_result(out, id, json_quoted(text), true);
    } else if (invalid) {
      wm::tool_result(out, id, json_quoted(text_or(output, "The tool call was invalid.")), true);
    } else if (!output || output->is_null()) {
      wm::tool_result(out, id, "\"\"");
    } else {
      wm::tool_result(out, id, output->is_string() ? json_quoted(output->get_ref<const std::string&>()) : dump(*output));
    }
  }

  // A string value, or `fallback` when it is missing, empty or not a string.
  static std::string_view text_or(const json* v, std::string_view fallback) {
    if (!v || !v->is_string() || v->get_ref<const std::string&>().empty()) return fallback;
    return v->get_ref<const std::string&>();
  }

  std::string unique_tool_id(const json& part) {
    std::string id(string_member(part, "callID"));
    if (id.empty()) id = std::string(string_member(part, "id"));
    if (id.empty()) id = "tool-" + std::to_string(++anonymous_tools_);
    if (tool_ids_.size() >= max_remembered_ids) tool_ids_.clear();
    std::string unique = id;
    for (int n = 2; !tool_ids_.insert(unique).second; ++n) unique = id + "#" + std::to_string(n);
    return unique;
  }

  // ---- errors and the final result -------------------------------------------------------
  void error_event(const json& j) {
    if (!error_text_.empty()) return;  // the first error is the cause
    const json* e = member(j, "error");
    std::string_view text;
    if (e && e->is_string()) text = e->get_ref<const std::string&>();
    if (e && text.empty()) {
      const json* data = member(*e, "data");
      if (data) text = string_member(*data, "message");
      if (text.empty()) text = string_member(*e, "message");
      if (text.empty()) text = string_member(*e, "name");
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

  std::string partial_;
  bool skipping_ = false;
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
