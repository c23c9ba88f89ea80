#include "platform/bridge.hpp"

#include <cstring>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "platform/json_text.hpp"
#include "platform/ui_stream.hpp"
#include "platform/worker_message.hpp"

namespace platform {
namespace dom = simdjson::dom;

namespace {

constexpr std::string_view abandoned_text =
    "The model's response was cut off before this call finished; the call was not run.";
constexpr std::string_view interrupted_text = "The turn ended before this call returned a result.";

// A DOM parser for the payloads we look into (tool results, error texts); reused per thread.
simdjson::dom::parser& dom_validator() {
  thread_local simdjson::dom::parser p;
  return p;
}

// The compact JSON text of any value. Lines are parsed with the validating DOM parser, so
// whatever is copied into the output is well-formed JSON.
std::string raw_value(dom::element v) { return simdjson::minify(v); }

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

struct pending_output {
  std::string tool_id;
  std::string content;
  bool is_error = false;
  bool preliminary = false;
};

}  // namespace

struct bridge::impl {
  bridge_options opt;
  bridge_outcome outcome;
  dom::parser parser;
  std::string line;          // unfinished input line (padded copy)
  bool skipping_line = false;

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
  std::vector<std::string> streamed_ids;
  bool thinking_seen = false;
  bool text_seen = false;
  std::string fallback_id;
  int fallback_index = 0;

  // Open parts (at most one text and one reasoning part are open at once).
  std::string text_id_json;
  int text_index = -1;
  std::string reasoning_id_json;
  int reasoning_index = -1;  // -2 for the thinking_tokens placeholder

  std::unordered_map<std::string, tool_state> tools;
  std::vector<std::string> tool_order;
  std::vector<pending_output> pending;

  explicit impl(bridge_options o) : opt(std::move(o)) {}

  // ---- output primitives -------------------------------------------------------------
  void chunk(std::string& out, std::string_view json) {
    append_sse_data(out, json);
    ++outcome.chunks;
  }

  void begin_chunk(std::string& out, std::string_view type) {
    out.append("data: {\"type\":\"");
    out.append(type);
    out.push_back('"');
  }
  void end_chunk(std::string& out) {
    out.append("}\n\n");
    ++outcome.chunks;
  }

  void id_chunk(std::string& out, std::string_view type, std::string_view id_json) {
    begin_chunk(out, type);
    out.append(",\"id\":");
    out.append(id_json);
    end_chunk(out);
  }

  static std::string part_id_json(std::string_view msg, long index) {
    std::string id(msg);
    id.push_back(':');
    id.append(std::to_string(index));
    std::string json;
    append_json_string(json, id);
    return json;
  }

  // ---- turns and steps ---------------------------------------------------------------
  void open_turn(std::string& out) {
    if (turn_open || done) return;
    ++turn;
    turn_open = true;
    std::string id = opt.message_id;
    if (turn > 1) id += "-" + std::to_string(turn);
    begin_chunk(out, "start");
    out.append(",\"messageId\":");
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
      tool_output(out, it->second, {id, quoted(interrupted_text), true, false});
    }
    if (abort_reason) {
      begin_chunk(out, "abort");
      out.append(",\"reason\":");
      append_json_string(out, *abort_reason);
      end_chunk(out);
    }
    begin_chunk(out, "finish");
    out.append(",\"finishReason\":\"");
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
    out.append(",\"toolCallId\":").append(t.id_json);
    out.append(",\"toolName\":").append(t.name_json);
    out.append(",\"dynamic\":true");
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
        std::string quoted;
        append_json_string(quoted, t.partial);
        t.partial = std::move(quoted);
        input = t.partial;
      }
    }
    begin_chunk(out, "tool-input-available");
    out.append(",\"toolCallId\":").append(t.id_json);
    out.append(",\"toolName\":").append(t.name_json);
    out.append(",\"input\":").append(input);
    out.append(",\"dynamic\":true");
    end_chunk(out);
  }

  void tool_output(std::string& out, tool_state& t, const pending_output& o) {
    if (o.is_error) {
      begin_chunk(out, "tool-output-error");
      out.append(",\"toolCallId\":").append(t.id_json);
      out.append(",\"errorText\":");
      append_json_string(out, error_text_of(o.content));
      out.append(",\"dynamic\":true");
      end_chunk(out);
    } else {
      begin_chunk(out, "tool-output-available");
      out.append(",\"toolCallId\":").append(t.id_json);
      out.append(",\"output\":").append(o.content);
      out.append(",\"dynamic\":true");
      if (o.preliminary) out.append(",\"preliminary\":true");
      end_chunk(out);
    }
    t.has_output = true;
    if (!o.preliminary) detect_stops(t, o);
  }

  // A turn with endless tool calls must not grow memory: the oldest calls whose input is
  // complete are forgotten (a late output for them is then ignored, like any unknown id).
  void forget_old_tools() {
    std::vector<std::string> keep;
    std::size_t excess = tools.size() - max_tracked_tools / 2;
    for (auto& id : tool_order) {
      auto it = tools.find(id);
      if (excess > 0 && it != tools.end() && it->second.input_available) {
        tools.erase(it);
        --excess;
        continue;
      }
      if (it != tools.end()) keep.push_back(std::move(id));
    }
    tool_order = std::move(keep);
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
      tool_output(out, it->second, p);
    }
    pending = std::move(keep);
  }

  void abandon_tools(std::string& out) {
    for (std::size_t i = 0; i < block_tool.size(); ++i) {
      if (block_tool[i].empty()) continue;
      auto it = tools.find(block_tool[i]);
      if (it == tools.end() || it->second.input_available) continue;
      input_available(out, it->second);
      tool_output(out, it->second, {block_tool[i], quoted(abandoned_text), true, false});
    }
  }

  static std::string quoted(std::string_view s) {
    std::string q;
    append_json_string(q, s);
    return q;
  }

  // ---- approval stops ------------------------------------------------------------------
  static std::string error_text_of(std::string_view content_json);
  void detect_stops(const tool_state& t, const pending_output& o);

  // ---- dispatch --------------------------------------------------------------------------
  void process_line(std::string_view json, std::size_t capacity, std::string& out);
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

  void ensure_block_slot(std::size_t index) {
    if (index >= blocks.size()) {
      blocks.resize(index + 1, block_kind::none);
      block_tool.resize(index + 1);
    }
  }
};

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
      payload = simdjson::minify(structured);
      return true;
    }
    if (obj["content"].get_array().get(blocks)) {
      payload = simdjson::minify(e);  // a plain object payload
      return true;
    }
  } else if (e.get_array().get(blocks)) {
    std::string_view s;
    payload = e.get_string().get(s) ? simdjson::minify(e) : std::string(s);
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
  simdjson::dom::parser p;
  simdjson::dom::object obj;
  if (p.parse(payload.data(), payload.size()).get_object().get(obj)) return verdict::unknown;
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

void bridge::impl::detect_stops(const tool_state& t, const pending_output& o) {
  if (o.is_error) return;
  bool approval = t.name == "mcp__platform__present_plan" || t.name == "mcp__platform__present_agents";
  bool building = t.name == "mcp__platform__done_building";
  if (!approval && !building) return;
  simdjson::dom::parser p;  // not dom_validator(): its document would be overwritten below
  simdjson::dom::element e;
  if (p.parse(o.content.data(), o.content.size()).get(e)) return;
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
  reasoning_id_json = quoted(message_id + ":thinking");
  reasoning_index = -2;
  id_chunk(out, "reasoning-start", reasoning_id_json);
  begin_chunk(out, "reasoning-delta");
  out.append(",\"id\":").append(reasoning_id_json).append(",\"delta\":");
  append_json_string(out, opt.thinking_placeholder);
  end_chunk(out);
}

void bridge::impl::on_stream_event(dom::object o, std::string& out) {
  dom::object ev;
  std::string_view et;
  if (o["event"].get_object().get(ev) || missing_str(ev, "type", et)) return;
  open_turn(out);
  if (skip_stream && et != "message_start") {
    if (et == "message_stop") skip_stream = false;
    return;
  }
  // Block events belong to a streamed message; outside one (a stream joined mid-message, or
  // a message already rendered from its frames) they have no part to attach to.
  bool in_message = step_open && !fallback_step;
  if (et == "content_block_delta") {
    if (in_message) on_block_delta(ev, out);
  } else if (et == "content_block_start") {
    if (in_message) on_block_start(ev, out);
  } else if (et == "content_block_stop") {
    if (in_message) on_block_stop(ev, out);
  } else if (et == "message_start") {
    on_message_start(ev, out);
  } else if (et == "message_stop") {
    on_message_stop(o, out);
  }
}

void bridge::impl::on_message_start(dom::object ev, std::string& out) {
  std::string_view id;
  dom::object msg;
  if (ev["message"].get_object().get(msg) || missing_str(msg, "id", id)) id = "message";
  // A message already rendered whole from its assistant frames (the stream joined late)
  // must not be shown a second time from its stream events.
  skip_stream = !fallback_id.empty() && id == fallback_id;
  if (skip_stream) return;
  flush_pending(out, true);
  begin_step(out, false);
  message_id = std::string(id);
  // Only the latest messages can still send their complete assistant frames; keeping a few
  // keeps memory flat on endless turns.
  if (streamed_ids.size() >= 8) streamed_ids.erase(streamed_ids.begin());
  streamed_ids.push_back(message_id);
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
  if (ev["index"].get_int64().get(index) || index < 0 || index > 4096 ||
      ev["content_block"].get_object().get(block) || missing_str(block, "type", btype)) {
    return;
  }
  auto i = static_cast<std::size_t>(index);
  ensure_block_slot(i);
  if (btype == "thinking" || btype == "redacted_thinking") {
    close_text(out);
    if (reasoning_index == -2) close_reasoning(out);  // the placeholder yields to real thinking
    blocks[i] = btype == "thinking" ? block_kind::thinking : block_kind::redacted;
    thinking_seen = true;
  } else if (btype == "text") {
    close_reasoning(out);
    blocks[i] = block_kind::text;
    text_seen = true;
  } else if (btype == "tool_use") {
    std::string_view id, name;
    if (missing_str(block, "id", id) || missing_str(block, "name", name)) return;
    close_text(out);
    close_reasoning(out);
    blocks[i] = block_kind::tool;
    block_tool[i] = std::string(id);
    add_tool(out, id, name);
  }
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
  if (dtype == "text_delta" && blocks[i] == block_kind::text) {
    dom::element v;
    if (delta["text"].get(v)) return;
    if (text_index != i) {
      close_text(out);
      text_id_json = part_id_json(message_id, i);
      text_index = i;
      id_chunk(out, "text-start", text_id_json);
    }
    std::size_t mark = out.size();
    begin_chunk(out, "text-delta");
    out.append(",\"id\":").append(text_id_json).append(",\"delta\":");
    if (!append_string_value(v, out)) {
      out.resize(mark);
      return;
    }
    end_chunk(out);
  } else if (dtype == "thinking_delta" && blocks[i] == block_kind::thinking) {
    dom::element v;
    if (delta["thinking"].get(v)) return;
    if (reasoning_index != i) {
      close_reasoning(out);
      reasoning_id_json = part_id_json(message_id, i);
      reasoning_index = i;
      id_chunk(out, "reasoning-start", reasoning_id_json);
    }
    std::size_t mark = out.size();
    begin_chunk(out, "reasoning-delta");
    out.append(",\"id\":").append(reasoning_id_json).append(",\"delta\":");
    if (!append_string_value(v, out)) {
      out.resize(mark);
      return;
    }
    end_chunk(out);
  } else if (dtype == "input_json_delta" && blocks[i] == block_kind::tool) {
    std::string_view partial;
    if (missing_str(delta, "partial_json", partial) || partial.empty()) return;
    auto it = tools.find(block_tool[i]);
    if (it == tools.end() || it->second.input_available) return;
    it->second.partial.append(partial);
    begin_chunk(out, "tool-input-delta");
    out.append(",\"toolCallId\":").append(it->second.id_json).append(",\"inputTextDelta\":");
    append_json_string(out, partial);
    end_chunk(out);
  }
}

void bridge::impl::on_block_stop(dom::object ev, std::string& out) {
  std::int64_t index = 0;
  if (ev["index"].get_int64().get(index) || index < 0 ||
      static_cast<std::size_t>(index) >= blocks.size()) {
    return;
  }
  auto i = static_cast<int>(index);
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
  bool streamed = false;
  for (const auto& s : streamed_ids) streamed = streamed || s == id;
  if (missing_str(msg, "model", model)) model = {};
  // The CLI's synthetic error message repeats the result's error text: render it once.
  if (model == "<synthetic>") return;
  dom::array content;
  if (msg["content"].get_array().get(content)) return;
  open_turn(out);
  if (!streamed && fallback_id != id) {
    flush_pending(out, true);
    begin_step(out, true);
    fallback_id = std::string(id);
    message_id = fallback_id;
    fallback_index = 0;
  }
  for (auto element : content) {
    dom::object block;
    if (element.get_object().get(block)) continue;
    if (streamed) {
      // Streamed already: only the final tool input matters (it may hold fields the deltas
      // did not, e.g. replace_all:false on Edit).
      std::string_view btype, tid;
      dom::element input;
      std::string_view raw;
      if (missing_str(block, "type", btype) || btype != "tool_use" || missing_str(block, "id", tid)) continue;
      auto it = tools.find(std::string(tid));
      if (it == tools.end() || it->second.input_available) continue;
      if (!block["input"].get(input)) {
        it->second.final_input = raw_value(input);
      }
    } else {
      on_fallback_block(block, out);
    }
  }
}

void bridge::impl::on_fallback_block(dom::object block, std::string& out) {
  std::string_view btype;
  if (missing_str(block, "type", btype)) return;
  int index = fallback_index++;
  if (btype == "thinking" || btype == "text") {
    bool thinking = btype == "thinking";
    dom::element v;
    if (block[thinking ? "thinking" : "text"].get(v)) return;
    std::string id_json = part_id_json(fallback_id, index);
    std::size_t mark = out.size();
    std::size_t chunks_before = outcome.chunks;
    id_chunk(out, thinking ? "reasoning-start" : "text-start", id_json);
    begin_chunk(out, thinking ? "reasoning-delta" : "text-delta");
    out.append(",\"id\":").append(id_json).append(",\"delta\":");
    if (!append_string_value(v, out)) {
      out.resize(mark);
      outcome.chunks = chunks_before;
      return;
    }
    end_chunk(out);
    id_chunk(out, thinking ? "reasoning-end" : "text-end", id_json);
  } else if (btype == "tool_use") {
    std::string_view id, name, raw;
    dom::element input;
    if (missing_str(block, "id", id) || missing_str(block, "name", name)) return;
    if (tools.count(std::string(id)) != 0) return;
    tool_state& t = add_tool(out, id, name);
    if (!block["input"].get(input)) {
      t.final_input = raw_value(input);
    }
    input_available(out, t);
  }
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
  pending_output p;
  std::string_view id, raw;
  if (missing_str(block, "tool_use_id", id)) return;
  auto it = tools.find(std::string(id));
  if (it == tools.end()) return;  // outputs only for tracked tools
  dom::element content;
  p.content = block["content"].get(content) ? std::string("null") : raw_value(content);
  p.tool_id = std::string(id);
  bool flag = false;
  p.is_error = !block["is_error"].get_bool().get(flag) && flag;
  p.preliminary = !block["preliminary"].get_bool().get(flag) && flag;
  open_turn(out);
  if (fallback_step) end_step(out);
  if (!it->second.input_available) {
    pending.push_back(std::move(p));
    return;
  }
  tool_output(out, it->second, p);
}

void bridge::impl::on_result(dom::object o, std::string& out) {
  open_turn(out);
  outcome.result_seen = true;
  bool is_error = false;
  std::string_view text, v;
  dom::element val;
  std::string_view raw;
  if (!o["is_error"].get_bool().get(is_error)) outcome.is_error = is_error;
  if (!missing_str(o, "session_id", v)) outcome.session_id = std::string(v);
  if (!missing_str(o, "stop_reason", v)) outcome.stop_reason = std::string(v);
  std::int64_t turns = 0;
  if (!o["num_turns"].get_int64().get(turns)) outcome.num_turns = turns;
  double cost = 0;
  if (!o["total_cost_usd"].get_double().get(cost)) outcome.total_cost_usd = cost;
  if (!o["usage"].get(val)) outcome.usage_json = raw_value(val);
  if (!o["modelUsage"].get(val)) {
    outcome.model_usage_json = raw_value(val);
  }
  if (!o["model_usage_since_last_result"].get(val)) {
    outcome.model_usage_delta_json = raw_value(val);
  }
  if (missing_str(o, "result", text)) text = {};
  end_step(out);
  flush_pending(out, true);
  if (is_error) {
    outcome.error_text = text.empty() ? std::string("The agent runtime reported an error.") : std::string(text);
    begin_chunk(out, "error");
    out.append(",\"errorText\":");
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
  open_turn(out);
  end_step(out);
  flush_pending(out, true);
  outcome.is_error = true;
  outcome.error_text = std::string(text);
  begin_chunk(out, "error");
  out.append(",\"errorText\":");
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
  while (!bytes.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
    std::size_t len = nl ? static_cast<std::size_t>(nl - bytes.data()) : bytes.size();
    if (s.skipping_line) {
      if (!nl) return;
      s.skipping_line = false;
    } else if (s.line.empty() && nl && bytes.size() - len >= simdjson::SIMDJSON_PADDING) {
      // The whole line is here with readable bytes after it: parse in place, no copy.
      if (len > 0) s.process_line(bytes.substr(0, len), bytes.size(), out);
    } else if (s.line.size() + len > s.opt.max_line_bytes) {
      ++s.outcome.ignored_lines;
      s.line.clear();
      s.skipping_line = nl == nullptr;
    } else {
      s.line.append(bytes.data(), len);
      if (!nl) return;
      feed_message(s.line, out);
      s.line.clear();
    }
    bytes.remove_prefix(nl ? len + 1 : bytes.size());
  }
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
  if (!s.line.empty() && !s.skipping_line) {
    std::string last = std::move(s.line);
    s.line.clear();
    feed_message(last, out);
  }
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
