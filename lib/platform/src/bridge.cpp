#include "platform/bridge.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "platform/json_text.hpp"
#include "platform/line_splitter.hpp"
#include "platform/ui_stream.hpp"
#include "dom_json.hpp"
#include "platform/worker_message.hpp"
#include "worker_line.hpp"

namespace platform {
namespace dom = simdjson::dom;
using namespace std::string_view_literals;

namespace {

constexpr std::string_view abandoned_text =
    "The model's response was cut off before this call finished; the call was not run.";
constexpr std::string_view unanswered_call_text = "The turn ended before this call returned a result.";

// A DOM parser for the payloads we look into (tool results, error texts); reused per thread.
simdjson::dom::parser& dom_validator() {
  thread_local simdjson::dom::parser p;
  return p;
}

// The compact JSON text of any value. Lines are parsed with the validating DOM parser, so
// whatever is copied into the output is well-formed JSON.
std::string raw_value(dom::element v) { return dom_json::minified(v); }

// A string value, appended as a JSON string literal.
bool append_string_value(dom::element v, std::string& out) {
  std::string_view s;
  if (v.get_string().get(s)) return false;
  append_json_string(out, s);
  return true;
}

// True when `key` is missing or not a string (simdjson's error-is-truthy convention).
bool missing_str(dom::object o, std::string_view key, std::string_view& out) {
  return o[key].get_string().get(out) != simdjson::SUCCESS;
}

enum class block_kind : unsigned char { none, thinking, redacted, text, tool };

enum class stream_event_type : unsigned char { message_start, message_stop, block_start, block_delta, block_stop, other };

// Content block indexes accepted per message.
constexpr std::int64_t max_content_block_index = 4096;

struct tool_state {
  std::string id_json;       // toolCallId as a JSON literal
  std::string name;
  std::string name_json;
  std::string partial;       // accumulated input_json_delta text
  std::string final_input;   // from the complete assistant frame, when seen
  bool input_available = false;
  bool has_output = false;
};

constexpr std::size_t max_tracked_tools = 1024;

// Tool calls by id, found by a string_view without a temporary string.
struct id_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using tool_map = std::unordered_map<std::string, tool_state, id_hash, std::equal_to<>>;

// The ids of the latest streamed messages (only they can still send their complete assistant
// frames): a few, so memory stays flat on endless turns.
class recent_ids {
 public:
  bool contains(std::string_view id) const {
    for (std::size_t k = 0; k < count_; ++k) {
      if (ids_[k] == id) return true;
    }
    return false;
  }
  void add(std::string_view id) {
    ids_[next_].assign(id);
    next_ = (next_ + 1) % ids_.size();
    count_ = std::min(count_ + 1, ids_.size());
  }
  void clear() { count_ = next_ = 0; }

 private:
  std::array<std::string, 8> ids_;
  std::size_t count_ = 0;
  std::size_t next_ = 0;
};

// What a result line says, as read; a missing member stays empty.
struct result_members {
  std::optional<bool> is_error;
  std::optional<std::string_view> session_id, stop_reason;
  std::optional<std::int64_t> num_turns;
  std::optional<double> total_cost_usd;
  std::optional<std::string_view> usage_json, model_usage_json, model_usage_delta_json;
  std::string_view text;
};

struct pending_output {
  std::string tool_id;
  std::string content;
  bool is_error = false;
  bool preliminary = false;
};

}  // namespace

// impl is defined in this file alone, so its fields' internal-linkage types cannot differ
// between translation units. GCC warns only because, in a unity chunk, this file is not the
// main file (where it stays quiet).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif
struct bridge::impl {
  bridge_options opt;
  bridge_outcome outcome;
  dom::parser parser;
  line_splitter lines{opt.max_line_bytes, simdjson::SIMDJSON_PADDING};
  std::size_t skips_counted = 0;  // lines.skipped() already in outcome.ignored_lines

  // Turn and step state.
  int turn = 0;
  bool turn_open = false;
  bool done = false;
  std::optional<std::string> abort_reason;  // abort(): written before the turn's finish
  bool step_open = false;
  bool fallback_step = false;
  bool skip_stream = false;  // stream events of a message already rendered from its frames

  // Current streamed message.
  std::string message_id;
  std::vector<block_kind> blocks;
  std::vector<std::string> block_tool;  // index -> tool id
  recent_ids streamed_ids;
  bool thinking_seen = false;
  bool text_seen = false;
  std::string fallback_id;
  int fallback_index = 0;

  // Open parts (at most one text and one reasoning part are open at once).
  std::string text_id_json;
  int text_index = -1;
  std::string reasoning_id_json;
  int reasoning_index = -1;  // -2 for the thinking_tokens placeholder
  std::string part_id;       // scratch of set_part_id_json
  worker_line::line written_line;  // the values of the line being read, when read without a parse

  tool_map tools;
  std::vector<std::string> tool_order;
  std::vector<pending_output> pending;

  explicit impl(bridge_options o) : opt(std::move(o)) {}

  // ---- output primitives -------------------------------------------------------------
  void chunk(std::string& out, std::string_view json) {
    append_sse_data(out, json);
    ++outcome.chunks;
  }

  void begin_chunk(std::string& out, std::string_view type) {
    out.append("data: {\"type\":\""sv);
    out.append(type);
    out.push_back('"');
  }
  void end_chunk(std::string& out) {
    out.append("}\n\n"sv);
    ++outcome.chunks;
  }

  void id_chunk(std::string& out, std::string_view type, std::string_view id_json) {
    begin_chunk(out, type);
    out.append(",\"id\":"sv);
    out.append(id_json);
    end_chunk(out);
  }

  // `json` becomes the JSON string of part id "<msg>:<index>".
  void set_part_id_json(std::string& json, std::string_view msg, long index) {
    part_id.assign(msg);
    part_id.push_back(':');
    char digits[24];
    part_id.append(digits, std::to_chars(digits, digits + sizeof digits, index).ptr);
    json.clear();
    append_json_string(json, part_id);
  }

  // ---- turns and steps ---------------------------------------------------------------
  void open_turn(std::string& out) {
    if (turn_open || done) return;
    ++turn;
    turn_open = true;
    std::string id = opt.message_id;
    if (turn > 1) id += "-" + std::to_string(turn);
    begin_chunk(out, "start");
    out.append(",\"messageId\":"sv);
    append_json_string(out, id);
    end_chunk(out);
  }

  void begin_step(std::string& out, bool fallback) {
    end_step(out);
    chunk(out, R"({"type":"start-step"})");
    step_open = true;
    fallback_step = fallback;
    blocks.clear();
    block_tool.clear();
    thinking_seen = false;
    text_seen = false;
  }

  void end_step(std::string& out) {
    close_text(out);
    close_reasoning(out);
    if (!step_open) return;
    chunk(out, R"({"type":"finish-step"})");
    step_open = false;
    fallback_step = false;
  }

  void close_text(std::string& out) {
    if (text_id_json.empty()) return;
    id_chunk(out, "text-end", text_id_json);
    text_id_json.clear();
    text_index = -1;
  }

  void close_reasoning(std::string& out) {
    if (reasoning_id_json.empty()) return;
    id_chunk(out, "reasoning-end", reasoning_id_json);
    reasoning_id_json.clear();
    reasoning_index = -1;
  }

  void finish_turn(std::string& out, std::string_view reason) {
    end_step(out);
    flush_pending(out, true);
    // Calls still waiting for a result when the turn ends will never get one; the client
    // must not be left with a call that streams its input or runs forever.
    for (const auto& id : tool_order) {
      auto it = tools.find(id);
      if (it == tools.end() || it->second.has_output) continue;
      input_available(out, it->second);
      tool_output(out, it->second, json_string_literal(unanswered_call_text), true, false);
    }
    if (abort_reason) {
      begin_chunk(out, "abort");
      out.append(",\"reason\":"sv);
      append_json_string(out, *abort_reason);
      end_chunk(out);
    }
    begin_chunk(out, "finish");
    out.append(",\"finishReason\":\""sv);
    out.append(reason);
    out.push_back('"');
    end_chunk(out);
    turn_open = false;
    message_id.clear();
    streamed_ids.clear();
    fallback_id.clear();
    tools.clear();
    tool_order.clear();
  }

  // ---- tools ---------------------------------------------------------------------------
  tool_state& add_tool(std::string& out, std::string_view id, std::string_view name) {
    if (tools.size() >= max_tracked_tools) forget_old_tools();
    auto [it, fresh] = tools.try_emplace(std::string(id));
    tool_state& t = it->second;
    if (!fresh) return t;  // a repeated block start for a call already shown
    append_json_string(t.id_json, id);
    t.name = std::string(name);
    append_json_string(t.name_json, name);
    tool_order.push_back(it->first);
    begin_chunk(out, "tool-input-start");
    out.append(",\"toolCallId\":"sv).append(t.id_json);
    out.append(",\"toolName\":"sv).append(t.name_json);
    out.append(",\"dynamic\":true"sv);
    end_chunk(out);
    return t;
  }

  void input_available(std::string& out, tool_state& t) {
    if (t.input_available) return;
    t.input_available = true;
    std::string_view input = t.final_input;
    if (input.empty()) {
      input = t.partial.empty() ? std::string_view("{}") : std::string_view(t.partial);
      simdjson::dom::element ignored;
      if (dom_validator().parse(input.data(), input.size()).get(ignored)) {
        // Unparsable streamed input: show what arrived as text rather than fail the stream.
        t.partial = json_string_literal(t.partial);
        input = t.partial;
      }
    }
    begin_chunk(out, "tool-input-available");
    out.append(",\"toolCallId\":"sv).append(t.id_json);
    out.append(",\"toolName\":"sv).append(t.name_json);
    out.append(",\"input\":"sv).append(input);
    out.append(",\"dynamic\":true"sv);
    end_chunk(out);
  }

  // `content` is the result's JSON text.
  void tool_output(std::string& out, tool_state& t, std::string_view content, bool is_error, bool preliminary) {
    if (is_error) {
      begin_chunk(out, "tool-output-error");
      out.append(",\"toolCallId\":"sv).append(t.id_json);
      out.append(",\"errorText\":"sv);
      append_json_string(out, error_text_of(content));
      out.append(",\"dynamic\":true"sv);
      end_chunk(out);
    } else {
      begin_chunk(out, "tool-output-available");
      out.append(",\"toolCallId\":"sv).append(t.id_json);
      out.append(",\"output\":"sv).append(content);
      out.append(",\"dynamic\":true"sv);
      if (preliminary) out.append(",\"preliminary\":true"sv);
      end_chunk(out);
    }
    t.has_output = true;
    if (!preliminary && !is_error) detect_stops(t, content);
  }

  // A turn with endless tool calls must not grow memory: the oldest calls whose input is
  // complete are forgotten (a late output for them is then ignored, like any unknown id).
  // Once enough are gone the later calls stay as they are, unvisited (every id in tool_order
  // is tracked: both are only ever changed together).
  void forget_old_tools() {
    std::size_t excess = tools.size() - max_tracked_tools / 2;
    std::size_t kept = 0, i = 0;
    for (; i < tool_order.size() && excess > 0; ++i) {
      auto it = tools.find(tool_order[i]);
      if (it != tools.end() && it->second.input_available) {
        tools.erase(it);
        --excess;
      } else if (it != tools.end()) {
        if (kept != i) tool_order[kept] = std::move(tool_order[i]);  // not onto itself: that empties it
        ++kept;
      }
    }
    tool_order.erase(tool_order.begin() + static_cast<std::ptrdiff_t>(kept),
                     tool_order.begin() + static_cast<std::ptrdiff_t>(i));
  }

  // Tool results that arrived before their call's input was complete wait here; a new
  // message (or the end) forces the input out so the output has a call to attach to.
  void flush_pending(std::string& out, bool force) {
    if (pending.empty()) return;
    std::vector<pending_output> keep;
    for (auto& p : pending) {
      auto it = tools.find(p.tool_id);
      if (it == tools.end()) continue;
      if (!it->second.input_available && !force) {
        keep.push_back(std::move(p));
        continue;
      }
      close_text(out);
      close_reasoning(out);
      input_available(out, it->second);
      tool_output(out, it->second, p.content, p.is_error, p.preliminary);
    }
    pending = std::move(keep);
  }

  void abandon_tools(std::string& out) {
    for (std::size_t i = 0; i < block_tool.size(); ++i) {
      if (block_tool[i].empty()) continue;
      auto it = tools.find(block_tool[i]);
      if (it == tools.end() || it->second.input_available) continue;
      input_available(out, it->second);
      tool_output(out, it->second, json_string_literal(abandoned_text), true, false);
    }
  }

  // ---- approval stops ------------------------------------------------------------------
  static std::string error_text_of(std::string_view content_json);
  void detect_stops(const tool_state& t, std::string_view content);

  // ---- dispatch --------------------------------------------------------------------------
  void process_line(std::string_view json, std::size_t capacity, std::string& out);
  // A line from the splitter: SIMDJSON_PADDING readable bytes follow it.
  void padded_line(std::string_view json, std::string& out) {
    while (!json.empty() && (json.back() == '\r' || json.back() == ' ')) json.remove_suffix(1);
    if (done || json.empty()) return;
    process_line(json, json.size() + simdjson::SIMDJSON_PADDING, out);
  }
  void count_skips() {
    outcome.ignored_lines += lines.skipped() - skips_counted;
    skips_counted = lines.skipped();
  }
  void on_system(dom::object o, std::string& out);
  void on_stream_event(dom::object o, std::string& out);
  void on_block_start(dom::object ev, std::string& out);
  void on_block_delta(dom::object ev, std::string& out);
  void on_block_stop(dom::object ev, std::string& out);
  void on_message_start(dom::object ev, std::string& out);
  void on_message_stop(dom::object ev, std::string& out);
  void on_assistant(dom::object o, std::string& out);
  void on_fallback_block(dom::object block, std::string& out);
  void on_user(dom::object o, std::string& out);
  void on_tool_result(dom::object block, std::string& out);
  void on_result(dom::object o, std::string& out);
  void on_error(dom::object o, std::string& out);
  void on_thinking_tokens(std::string& out);
  void on_worker_line(const worker_line::line& l, std::string& out);

  // ---- steps, the same whichever way a line was read -----------------------------------
  bool accept_stream_event(stream_event_type type, std::string& out);
  void start_message(std::string_view id, std::string& out);
  void start_thinking_block(std::size_t i, block_kind kind, std::string& out);
  void start_text_block(std::size_t i, std::string& out);
  void start_tool_block(std::size_t i, std::string_view id, std::string_view name, std::string& out);
  void open_part(bool text, int i, std::string& out);
  void begin_delta_chunk(std::string& out, std::string_view type, std::string_view id_json);
  void stop_block(int i, std::string& out);
  bool begin_assistant_frame(std::string_view id, std::string& out);
  tool_state* streamed_tool(std::string_view id);
  tool_state* new_fallback_tool(std::string_view id, std::string_view name, std::string& out);
  void tool_result(tool_state& t, std::string_view id, std::string_view content, bool is_error, bool preliminary,
                   std::string& out);
  void end_with_result(const result_members& r, std::string& out);
  void worker_error(std::string_view text, std::string& out);

  void ensure_block_slot(std::size_t index) {
    if (index >= blocks.size()) {
      blocks.resize(index + 1, block_kind::none);
      block_tool.resize(index + 1);
    }
  }
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

std::string bridge::impl::error_text_of(std::string_view content_json) {
  simdjson::dom::element e;
  if (dom_validator().parse(content_json.data(), content_json.size()).get(e)) {
    return std::string(content_json);
  }
  std::string_view s;
  if (!e.get_string().get(s)) return std::string(s);
  // Text blocks, bare or inside an MCP result object, become their joined text.
  simdjson::dom::array blocks;
  simdjson::dom::object obj;
  bool has_blocks = !e.get_array().get(blocks) ||
                    (!e.get_object().get(obj) && !obj["content"].get_array().get(blocks));
  std::string text;
  if (has_blocks) {
    for (auto b : blocks) {
      std::string_view t;
      if (b["text"].get_string().get(t)) continue;
      if (!text.empty()) text.push_back('\n');
      text.append(t);
    }
  }
  return text.empty() ? std::string(content_json) : text;
}

namespace {

// The payload a platform tool returned, with MCP's {content:[{type:text,text}]} wrapping and
// text-block arrays removed. Returns false when the wrapper itself says isError.
bool unwrap_mcp_payload(simdjson::dom::element e, std::string& payload) {
  simdjson::dom::array blocks;
  simdjson::dom::object obj;
  if (!e.get_object().get(obj)) {
    bool is_error = false;
    if (!obj["isError"].get_bool().get(is_error) && is_error) return false;
    simdjson::dom::element structured;
    if (!obj["structuredContent"].get(structured)) {
      payload = dom_json::minified(structured);
      return true;
    }
    if (obj["content"].get_array().get(blocks)) {
      payload = dom_json::minified(e);  // a plain object payload
      return true;
    }
  } else if (e.get_array().get(blocks)) {
    std::string_view s;
    payload = e.get_string().get(s) ? dom_json::minified(e) : std::string(s);
    return true;
  }
  payload.clear();
  for (auto b : blocks) {
    std::string_view t;
    if (!b["text"].get_string().get(t)) {
      payload = std::string(t);
      break;
    }
  }
  return true;
}

enum class verdict { unknown, ok, failed };

// Reads `ok` and `status` of a JSON object payload.
verdict payload_verdict(std::string_view payload) {
  simdjson::dom::object obj;
  if (dom_validator().parse(payload.data(), payload.size()).get_object().get(obj)) return verdict::unknown;
  bool ok = false;
  if (!obj["ok"].get_bool().get(ok)) return ok ? verdict::ok : verdict::failed;
  bool success = false;
  if (!obj["success"].get_bool().get(success)) return success ? verdict::ok : verdict::failed;
  std::string_view status;
  if (!obj["status"].get_string().get(status)) {
    if (status == "ok" || status == "success" || status == "succeeded" || status == "completed" ||
        status == "presented" || status == "awaiting_approval") {
      return verdict::ok;
    }
    return verdict::failed;
  }
  return verdict::unknown;
}

}  // namespace

void bridge::impl::detect_stops(const tool_state& t, std::string_view content) {
  bool approval = t.name == "mcp__platform__present_plan" || t.name == "mcp__platform__present_agents";
  bool building = t.name == "mcp__platform__done_building";
  if (!approval && !building) return;
  // One parser for both parses (a parser allocates its buffers at its first parse): `e` is not
  // read once the payload is copied out of it.
  simdjson::dom::element e;
  if (dom_validator().parse(content.data(), content.size()).get(e)) return;
  std::string payload;
  if (!unwrap_mcp_payload(e, payload)) return;
  verdict v = payload_verdict(payload);
  if (approval && v != verdict::failed) {
    outcome.approval_stop = true;
    outcome.approval_tool = t.name;
  }
  if (building && v == verdict::ok) outcome.done_building_succeeded = true;
}

void bridge::impl::process_line(std::string_view json, std::size_t capacity, std::string& out) {
  ++outcome.lines;
  // Lines in the form the normalizers write are read without a parse (worker_line.hpp).
  if (worker_line::read(json, written_line)) {
    on_worker_line(written_line, out);
    return;
  }
  dom::element doc;
  dom::object o;
  std::string_view type;
  if (parser.parse(json.data(), json.size(), capacity < json.size() + simdjson::SIMDJSON_PADDING).get(doc) ||
      doc.get_object().get(o) ||
      missing_str(o, "type", type)) {
    ++outcome.ignored_lines;
    return;
  }
  if (type == "stream_event") {
    on_stream_event(o, out);
  } else if (type == "assistant") {
    on_assistant(o, out);
  } else if (type == "user") {
    on_user(o, out);
  } else if (type == "system") {
    on_system(o, out);
  } else if (type == "result") {
    on_result(o, out);
  } else if (type == "error") {
    on_error(o, out);
  } else {
    ++outcome.ignored_lines;  // control_*, keep_alive, transcript_mirror, future types
  }
}

// The same steps as the parsed forms of these lines below take, with the values as read.
void bridge::impl::on_worker_line(const worker_line::line& l, std::string& out) {
  using worker_line::kind;
  auto i = static_cast<std::size_t>(l.index);
  switch (l.what) {
    case kind::message_start:
      if (accept_stream_event(stream_event_type::message_start, out)) start_message(l.id, out);
      break;
    case kind::message_stop:
      if (accept_stream_event(stream_event_type::message_stop, out)) end_step(out);
      break;
    case kind::text_start:
    case kind::thinking_start:
    case kind::tool_use_start:
      if (!accept_stream_event(stream_event_type::block_start, out) || l.index > max_content_block_index) break;
      ensure_block_slot(i);
      if (l.what == kind::text_start) start_text_block(i, out);
      else if (l.what == kind::thinking_start) start_thinking_block(i, block_kind::thinking, out);
      else start_tool_block(i, l.id, l.name, out);
      break;
    case kind::text_delta:
    case kind::thinking_delta: {
      bool text = l.what == kind::text_delta;
      if (!accept_stream_event(stream_event_type::block_delta, out) || i >= blocks.size() ||
          blocks[i] != (text ? block_kind::text : block_kind::thinking)) {
        break;
      }
      open_part(text, l.index, out);
      begin_delta_chunk(out, text ? "text-delta" : "reasoning-delta", text ? text_id_json : reasoning_id_json);
      out.append(l.json);
      end_chunk(out);
      break;
    }
    case kind::block_stop:
      if (accept_stream_event(stream_event_type::block_stop, out) && i < blocks.size()) stop_block(l.index, out);
      break;
    case kind::tool_use:
      if (begin_assistant_frame(l.message_id, out)) {
        if (tool_state* t = streamed_tool(l.id)) t->final_input = l.json;
      } else {
        ++fallback_index;
        if (tool_state* t = new_fallback_tool(l.id, l.name, out)) {
          t->final_input = l.json;
          input_available(out, *t);
        }
      }
      break;
    case kind::tool_result: {
      auto it = tools.find(l.id);
      if (it != tools.end()) tool_result(it->second, l.id, l.json, l.is_error, l.preliminary, out);
      break;
    }
    case kind::system_init:
      outcome.session_id.assign(l.id);
      outcome.model.assign(l.name);
      break;
    case kind::result: {
      result_members r;
      r.is_error = l.is_error;
      r.session_id = l.id;
      if (l.has_stop_reason) r.stop_reason = l.stop_reason;
      r.num_turns = l.num_turns;
      if (!l.json.empty()) r.usage_json = l.json;
      if (!l.model_usage.empty()) r.model_usage_json = l.model_usage;
      r.text = l.text;
      end_with_result(r, out);
      break;
    }
    case kind::error:
      worker_error(l.text, out);
      break;
  }
}

void bridge::impl::on_system(dom::object o, std::string& out) {
  std::string_view subtype;
  if (missing_str(o, "subtype", subtype)) return;
  if (subtype == "init") {
    std::string_view v;
    if (!missing_str(o, "session_id", v)) outcome.session_id = std::string(v);
    if (!missing_str(o, "model", v)) outcome.model = std::string(v);
  } else if (subtype == "thinking_tokens") {
    on_thinking_tokens(out);
  }
}

void bridge::impl::on_thinking_tokens(std::string& out) {
  // Summarized thinking on the newest model may report only token progress before any
  // thinking block starts: show a reasoning part so the UI is not silent meanwhile.
  if (!turn_open || !step_open || fallback_step || thinking_seen || text_seen ||
      !reasoning_id_json.empty() || !text_id_json.empty()) {
    return;
  }
  thinking_seen = true;
  reasoning_id_json = json_string_literal(message_id + ":thinking");
  reasoning_index = -2;
  id_chunk(out, "reasoning-start", reasoning_id_json);
  begin_chunk(out, "reasoning-delta");
  out.append(",\"id\":"sv).append(reasoning_id_json).append(",\"delta\":"sv);
  append_json_string(out, opt.thinking_placeholder);
  end_chunk(out);
}

void bridge::impl::on_stream_event(dom::object o, std::string& out) {
  dom::object ev;
  std::string_view et;
  if (o["event"].get_object().get(ev) || missing_str(ev, "type", et)) return;
  stream_event_type type = et == "content_block_delta"   ? stream_event_type::block_delta
                           : et == "content_block_start" ? stream_event_type::block_start
                           : et == "content_block_stop"  ? stream_event_type::block_stop
                           : et == "message_start"       ? stream_event_type::message_start
                           : et == "message_stop"        ? stream_event_type::message_stop
                                                         : stream_event_type::other;
  if (!accept_stream_event(type, out)) return;
  switch (type) {
    case stream_event_type::block_delta: on_block_delta(ev, out); break;
    case stream_event_type::block_start: on_block_start(ev, out); break;
    case stream_event_type::block_stop: on_block_stop(ev, out); break;
    case stream_event_type::message_start: on_message_start(ev, out); break;
    case stream_event_type::message_stop: on_message_stop(o, out); break;
    case stream_event_type::other: break;
  }
}

bool bridge::impl::accept_stream_event(stream_event_type type, std::string& out) {
  open_turn(out);
  if (skip_stream && type != stream_event_type::message_start) {
    if (type == stream_event_type::message_stop) skip_stream = false;
    return false;
  }
  // Block events belong to a streamed message; outside one (a stream joined mid-message, or
  // a message already rendered from its frames) they have no part to attach to.
  bool block_event = type == stream_event_type::block_delta || type == stream_event_type::block_start ||
                     type == stream_event_type::block_stop;
  return !block_event || (step_open && !fallback_step);
}

void bridge::impl::on_message_start(dom::object ev, std::string& out) {
  std::string_view id;
  dom::object msg;
  if (ev["message"].get_object().get(msg) || missing_str(msg, "id", id)) id = "message";
  start_message(id, out);
}

void bridge::impl::start_message(std::string_view id, std::string& out) {
  // A message already rendered whole from its assistant frames (the stream joined late)
  // must not be shown a second time from its stream events.
  skip_stream = !fallback_id.empty() && id == fallback_id;
  if (skip_stream) return;
  flush_pending(out, true);
  begin_step(out, false);
  message_id.assign(id);
  streamed_ids.add(message_id);
}

void bridge::impl::on_message_stop(dom::object o, std::string& out) {
  dom::object abandoned;
  if (!o["abandoned_blocks"].get_object().get(abandoned)) {
    close_text(out);
    close_reasoning(out);
    abandon_tools(out);
  }
  end_step(out);
}

void bridge::impl::on_block_start(dom::object ev, std::string& out) {
  std::int64_t index = 0;
  dom::object block;
  std::string_view btype;
  if (ev["index"].get_int64().get(index) || index < 0 || index > max_content_block_index ||
      ev["content_block"].get_object().get(block) || missing_str(block, "type", btype)) {
    return;
  }
  auto i = static_cast<std::size_t>(index);
  ensure_block_slot(i);
  if (btype == "thinking" || btype == "redacted_thinking") {
    start_thinking_block(i, btype == "thinking" ? block_kind::thinking : block_kind::redacted, out);
  } else if (btype == "text") {
    start_text_block(i, out);
  } else if (btype == "tool_use") {
    std::string_view id, name;
    if (missing_str(block, "id", id) || missing_str(block, "name", name)) return;
    start_tool_block(i, id, name, out);
  }
}

void bridge::impl::start_thinking_block(std::size_t i, block_kind kind, std::string& out) {
  close_text(out);
  if (reasoning_index == -2) close_reasoning(out);  // the placeholder yields to real thinking
  blocks[i] = kind;
  thinking_seen = true;
}

void bridge::impl::start_text_block(std::size_t i, std::string& out) {
  close_reasoning(out);
  blocks[i] = block_kind::text;
  text_seen = true;
}

void bridge::impl::start_tool_block(std::size_t i, std::string_view id, std::string_view name, std::string& out) {
  close_text(out);
  close_reasoning(out);
  blocks[i] = block_kind::tool;
  block_tool[i].assign(id);
  add_tool(out, id, name);
}

void bridge::impl::on_block_delta(dom::object ev, std::string& out) {
  std::int64_t index = 0;
  dom::object delta;
  std::string_view dtype;
  if (ev["index"].get_int64().get(index) || index < 0 ||
      static_cast<std::size_t>(index) >= blocks.size() ||
      ev["delta"].get_object().get(delta) || missing_str(delta, "type", dtype)) {
    return;
  }
  auto i = static_cast<int>(index);
  bool text = dtype == "text_delta" && blocks[i] == block_kind::text;
  if (text || (dtype == "thinking_delta" && blocks[i] == block_kind::thinking)) {
    dom::element v;
    if (delta[text ? "text" : "thinking"].get(v)) return;
    open_part(text, i, out);
    std::string_view s;
    if (v.get_string().get(s)) return;  // the part stays open, without this delta
    begin_delta_chunk(out, text ? "text-delta" : "reasoning-delta", text ? text_id_json : reasoning_id_json);
    append_json_string(out, s);
    end_chunk(out);
  } else if (dtype == "input_json_delta" && blocks[i] == block_kind::tool) {
    std::string_view partial;
    if (missing_str(delta, "partial_json", partial) || partial.empty()) return;
    auto it = tools.find(block_tool[i]);
    if (it == tools.end() || it->second.input_available) return;
    it->second.partial.append(partial);
    begin_chunk(out, "tool-input-delta");
    out.append(",\"toolCallId\":"sv).append(it->second.id_json).append(",\"inputTextDelta\":"sv);
    append_json_string(out, partial);
    end_chunk(out);
  }
}

// The text part (or the reasoning part) of block i becomes the open one, its start written.
void bridge::impl::open_part(bool text, int i, std::string& out) {
  int& index = text ? text_index : reasoning_index;
  if (index == i) return;
  if (text) close_text(out);
  else close_reasoning(out);
  std::string& id_json = text ? text_id_json : reasoning_id_json;
  set_part_id_json(id_json, message_id, i);
  index = i;
  id_chunk(out, text ? "text-start" : "reasoning-start", id_json);
}

// A delta chunk up to its value, which the caller writes before end_chunk.
void bridge::impl::begin_delta_chunk(std::string& out, std::string_view type, std::string_view id_json) {
  begin_chunk(out, type);
  out.append(",\"id\":"sv).append(id_json).append(",\"delta\":"sv);
}

void bridge::impl::on_block_stop(dom::object ev, std::string& out) {
  std::int64_t index = 0;
  if (ev["index"].get_int64().get(index) || index < 0 ||
      static_cast<std::size_t>(index) >= blocks.size()) {
    return;
  }
  stop_block(static_cast<int>(index), out);
}

void bridge::impl::stop_block(int i, std::string& out) {
  switch (blocks[i]) {
    case block_kind::text:
      if (text_index == i) close_text(out);
      break;
    case block_kind::thinking:
      if (reasoning_index == i) close_reasoning(out);
      break;
    case block_kind::tool: {
      auto it = tools.find(block_tool[i]);
      if (it != tools.end()) input_available(out, it->second);
      flush_pending(out, false);
      break;
    }
    default:
      break;
  }
}

void bridge::impl::on_assistant(dom::object o, std::string& out) {
  dom::object msg;
  std::string_view id, model;
  if (o["message"].get_object().get(msg) || missing_str(msg, "id", id)) return;
  if (missing_str(msg, "model", model)) model = {};
  // The CLI's synthetic error message repeats the result's error text: render it once.
  if (model == "<synthetic>") return;
  dom::array content;
  if (msg["content"].get_array().get(content)) return;
  bool streamed = begin_assistant_frame(id, out);
  for (auto element : content) {
    dom::object block;
    if (element.get_object().get(block)) continue;
    if (streamed) {
      // Streamed already: only the final tool input matters (it may hold fields the deltas
      // did not, e.g. replace_all:false on Edit).
      std::string_view btype, tid;
      dom::element input;
      if (missing_str(block, "type", btype) || btype != "tool_use" || missing_str(block, "id", tid)) continue;
      tool_state* t = streamed_tool(tid);
      if (t && !block["input"].get(input)) t->final_input = raw_value(input);
    } else {
      on_fallback_block(block, out);
    }
  }
}

// Opens the step of an assistant frame's message unless it was streamed (returned) or is open.
bool bridge::impl::begin_assistant_frame(std::string_view id, std::string& out) {
  bool streamed = streamed_ids.contains(id);
  open_turn(out);
  if (!streamed && fallback_id != id) {
    flush_pending(out, true);
    begin_step(out, true);
    fallback_id = std::string(id);
    message_id = fallback_id;
    fallback_index = 0;
  }
  return streamed;
}

// The call of a streamed message whose final input may still replace the streamed one.
tool_state* bridge::impl::streamed_tool(std::string_view id) {
  auto it = tools.find(id);
  return it == tools.end() || it->second.input_available ? nullptr : &it->second;
}

void bridge::impl::on_fallback_block(dom::object block, std::string& out) {
  std::string_view btype;
  if (missing_str(block, "type", btype)) return;
  int index = fallback_index++;
  if (btype == "thinking" || btype == "text") {
    bool thinking = btype == "thinking";
    dom::element v;
    if (block[thinking ? "thinking" : "text"].get(v)) return;
    std::string id_json;
    set_part_id_json(id_json, fallback_id, index);
    std::size_t mark = out.size();
    std::size_t chunks_before = outcome.chunks;
    id_chunk(out, thinking ? "reasoning-start" : "text-start", id_json);
    begin_delta_chunk(out, thinking ? "reasoning-delta" : "text-delta", id_json);
    if (!append_string_value(v, out)) {
      out.resize(mark);
      outcome.chunks = chunks_before;
      return;
    }
    end_chunk(out);
    id_chunk(out, thinking ? "reasoning-end" : "text-end", id_json);
  } else if (btype == "tool_use") {
    std::string_view id, name;
    dom::element input;
    if (missing_str(block, "id", id) || missing_str(block, "name", name)) return;
    tool_state* t = new_fallback_tool(id, name, out);
    if (!t) return;
    if (!block["input"].get(input)) t->final_input = raw_value(input);
    input_available(out, *t);
  }
}

// A call rendered whole from its frame; nullptr when the call is shown already.
tool_state* bridge::impl::new_fallback_tool(std::string_view id, std::string_view name, std::string& out) {
  if (tools.find(id) != tools.end()) return nullptr;
  return &add_tool(out, id, name);
}

void bridge::impl::on_user(dom::object o, std::string& out) {
  dom::object msg;
  dom::array content;
  if (o["message"].get_object().get(msg) ||
      msg["content"].get_array().get(content)) {
    return;  // plain-text user messages (e.g. synthetic "resume" prompts) are not UI
  }
  for (auto element : content) {
    dom::object block;
    std::string_view btype;
    if (element.get_object().get(block) || missing_str(block, "type", btype) || btype != "tool_result") continue;
    on_tool_result(block, out);
  }
}

void bridge::impl::on_tool_result(dom::object block, std::string& out) {
  std::string_view id;
  if (missing_str(block, "tool_use_id", id)) return;
  auto it = tools.find(id);
  if (it == tools.end()) return;  // outputs only for tracked tools
  dom::element content;
  std::string content_json = block["content"].get(content) ? std::string("null") : raw_value(content);
  bool flag = false;
  bool is_error = !block["is_error"].get_bool().get(flag) && flag;
  bool preliminary = !block["preliminary"].get_bool().get(flag) && flag;
  tool_result(it->second, id, content_json, is_error, preliminary, out);
}

// A result waits for its call's complete input; `content` is JSON text.
void bridge::impl::tool_result(tool_state& t, std::string_view id, std::string_view content, bool is_error,
                               bool preliminary, std::string& out) {
  open_turn(out);
  if (fallback_step) end_step(out);
  if (!t.input_available) {
    pending.push_back({std::string(id), std::string(content), is_error, preliminary});
    return;
  }
  tool_output(out, t, content, is_error, preliminary);
}

void bridge::impl::on_result(dom::object o, std::string& out) {
  result_members r;
  bool is_error = false;
  std::string_view v;
  std::int64_t turns = 0;
  double cost = 0;
  dom::element val;
  std::string usage, model_usage, model_usage_delta;  // what r's views show
  if (!o["is_error"].get_bool().get(is_error)) r.is_error = is_error;
  if (!missing_str(o, "session_id", v)) r.session_id = v;
  if (!missing_str(o, "stop_reason", v)) r.stop_reason = v;
  if (!o["num_turns"].get_int64().get(turns)) r.num_turns = turns;
  if (!o["total_cost_usd"].get_double().get(cost)) r.total_cost_usd = cost;
  if (!o["usage"].get(val)) r.usage_json = usage = raw_value(val);
  if (!o["modelUsage"].get(val)) r.model_usage_json = model_usage = raw_value(val);
  if (!o["model_usage_since_last_result"].get(val)) r.model_usage_delta_json = model_usage_delta = raw_value(val);
  if (!missing_str(o, "result", v)) r.text = v;
  end_with_result(r, out);
}

void bridge::impl::end_with_result(const result_members& r, std::string& out) {
  open_turn(out);
  outcome.result_seen = true;
  if (r.is_error) outcome.is_error = *r.is_error;
  if (r.session_id) outcome.session_id.assign(*r.session_id);
  if (r.stop_reason) outcome.stop_reason.assign(*r.stop_reason);
  if (r.num_turns) outcome.num_turns = *r.num_turns;
  if (r.total_cost_usd) outcome.total_cost_usd = *r.total_cost_usd;
  if (r.usage_json) outcome.usage_json.assign(*r.usage_json);
  if (r.model_usage_json) outcome.model_usage_json.assign(*r.model_usage_json);
  if (r.model_usage_delta_json) outcome.model_usage_delta_json.assign(*r.model_usage_delta_json);
  end_step(out);
  flush_pending(out, true);
  if (r.is_error.value_or(false)) {
    outcome.error_text = r.text.empty() ? std::string("The agent runtime reported an error.") : std::string(r.text);
    begin_chunk(out, "error");
    out.append(",\"errorText\":"sv);
    append_json_string(out, outcome.error_text);
    end_chunk(out);
    finish_turn(out, "error");
    return;
  }
  std::string_view reason = "stop";
  if (outcome.stop_reason == "tool_use") reason = "tool-calls";
  else if (outcome.stop_reason == "max_tokens") reason = "length";
  finish_turn(out, reason);
}

void bridge::impl::on_error(dom::object o, std::string& out) {
  std::string_view text;
  if (missing_str(o, "error", text)) {
    dom::object e;
    if (o["error"].get_object().get(e) || missing_str(e, "message", text)) {
      text = "The agent runtime failed.";
    }
  }
  worker_error(text, out);
}

// A worker-side failure of the turn: an error chunk; the turn's finish comes later.
void bridge::impl::worker_error(std::string_view text, std::string& out) {
  open_turn(out);
  end_step(out);
  flush_pending(out, true);
  outcome.is_error = true;
  outcome.error_text = std::string(text);
  begin_chunk(out, "error");
  out.append(",\"errorText\":"sv);
  append_json_string(out, text);
  end_chunk(out);
}

// ---- public surface ------------------------------------------------------------------------

bridge::bridge(bridge_options options) : impl_(std::make_unique<impl>(std::move(options))) {}
bridge::~bridge() = default;
bridge::bridge(bridge&&) noexcept = default;
bridge& bridge::operator=(bridge&&) noexcept = default;

void bridge::feed(std::string_view bytes, std::string& out) {
  impl& s = *impl_;
  if (s.done) return;
  if (s.turn == 0) s.open_turn(out);
  // Each line comes with SIMDJSON_PADDING readable bytes after it: parsed where it lies.
  s.lines.feed(bytes, [&](std::string_view line) { s.padded_line(line, out); });
  s.count_skips();
}

void bridge::feed_message(std::string_view json, std::string& out) {
  impl& s = *impl_;
  if (s.done) return;
  while (!json.empty() && (json.back() == '\r' || json.back() == ' ')) json.remove_suffix(1);
  if (json.empty()) return;
  if (s.turn == 0) s.open_turn(out);
  simdjson::padded_string padded(json);
  s.process_line(std::string_view(padded.data(), json.size()), padded.size() + simdjson::SIMDJSON_PADDING,
                 out);
}

void bridge::fail(std::string_view error_text, std::string& out) {
  std::string line;
  worker_message::error(line, error_text);
  feed_message(line, out);
}

void bridge::finish(std::string& out) {
  impl& s = *impl_;
  if (s.done) return;
  s.lines.finish([&](std::string_view line) { s.padded_line(line, out); });
  s.count_skips();
  if (s.turn == 0) s.open_turn(out);
  if (s.turn_open) {
    s.finish_turn(out, s.outcome.is_error ? "error" : (s.outcome.result_seen ? "stop" : "other"));
  }
  out.append(sse_done_event);
  s.done = true;
}

void bridge::abort(std::string_view reason, std::string& out) {
  impl& s = *impl_;
  if (s.done) return;
  s.abort_reason = std::string(reason);
  s.outcome.stopped = true;
  finish(out);
}

const bridge_outcome& bridge::outcome() const { return impl_->outcome; }
bool bridge::finished() const { return impl_->done; }

std::string translate_worker_messages(std::string_view transcript, const bridge_options& options) {
  bridge b(options);
  std::string out;
  b.feed(transcript, out);
  b.finish(out);
  return out;
}

}  // namespace platform
