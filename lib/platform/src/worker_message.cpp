#include "platform/worker_message.hpp"

#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platform/json_limits.hpp"
#include "platform/json_text.hpp"

namespace platform::worker_message {
namespace {

using namespace std::string_view_literals;

void open_event(std::string& out) { out.append(R"({"type":"stream_event","event":)"sv); }
void close_event(std::string& out) { out.append("}\n"sv); }

void append_int(std::string& out, int value) {
  char digits[16];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

// A content_block_start event up to its block, which the caller writes, then end_block_start.
void begin_block_start(std::string& out, int index) {
  open_event(out);
  out.append(R"({"type":"content_block_start","index":)"sv);
  append_int(out, index);
  out.append(R"(,"content_block":)"sv);
}

void end_block_start(std::string& out) {
  out.push_back('}');
  close_event(out);
}

void block_start(std::string& out, int index, std::string_view block_json) {
  begin_block_start(out, index);
  out.append(block_json);
  end_block_start(out);
}

// `head` is the delta's start up to its value: {"type":"<delta type>","<field>":
void block_delta(std::string& out, int index, std::string_view head, std::string_view value) {
  open_event(out);
  out.append(R"({"type":"content_block_delta","index":)"sv);
  append_int(out, index);
  out.append(R"(,"delta":)"sv).append(head);
  append_json_string(out, value);
  out.append("}}"sv);
  close_event(out);
}

}  // namespace

void system_init(std::string& out, std::string_view session_id, std::string_view model) {
  out.append(R"({"type":"system","subtype":"init","session_id":)"sv);
  append_json_string(out, session_id);
  out.append(R"(,"model":)"sv);
  append_json_string(out, model);
  out.append("}\n"sv);
}

void message_start(std::string& out, std::string_view message_id, std::string_view model) {
  open_event(out);
  out.append(R"({"type":"message_start","message":{"id":)"sv);
  append_json_string(out, message_id);
  out.append(R"(,"type":"message","role":"assistant","model":)"sv);
  append_json_string(out, model);
  out.append(R"(,"content":[]}})"sv);
  close_event(out);
}

void text_block_start(std::string& out, int index) {
  block_start(out, index, R"({"type":"text","text":""})"sv);
}

void thinking_block_start(std::string& out, int index) {
  block_start(out, index, R"({"type":"thinking","thinking":""})"sv);
}

void tool_use_block_start(std::string& out, int index, std::string_view tool_use_id,
                          std::string_view tool_name) {
  begin_block_start(out, index);
  out.append(R"({"type":"tool_use","id":)"sv);
  append_json_string(out, tool_use_id);
  out.append(R"(,"name":)"sv);
  append_json_string(out, tool_name);
  out.append(R"(,"input":{}})"sv);
  end_block_start(out);
}

void text_delta(std::string& out, int index, std::string_view text) {
  block_delta(out, index, R"({"type":"text_delta","text":)"sv, text);
}

void thinking_delta(std::string& out, int index, std::string_view thinking) {
  block_delta(out, index, R"({"type":"thinking_delta","thinking":)"sv, thinking);
}

void input_json_delta(std::string& out, int index, std::string_view partial_json) {
  block_delta(out, index, R"({"type":"input_json_delta","partial_json":)"sv, partial_json);
}

void block_stop(std::string& out, int index) {
  open_event(out);
  out.append(R"({"type":"content_block_stop","index":)"sv);
  append_int(out, index);
  out.push_back('}');
  close_event(out);
}

void message_stop(std::string& out) {
  open_event(out);
  out.append(R"({"type":"message_stop"})"sv);
  close_event(out);
}

void assistant_tool_use(std::string& out, std::string_view message_id, std::string_view tool_use_id,
                        std::string_view tool_name, std::string_view input_json) {
  out.append(R"({"type":"assistant","message":{"id":)"sv);
  append_json_string(out, message_id);
  out.append(R"(,"role":"assistant","content":[{"type":"tool_use","id":)"sv);
  append_json_string(out, tool_use_id);
  out.append(R"(,"name":)"sv);
  append_json_string(out, tool_name);
  out.append(R"(,"input":)"sv);
  out.append(input_json.empty() ? std::string_view("{}") : input_json);
  out.append("}]}}\n"sv);
}

void tool_result(std::string& out, std::string_view tool_use_id, std::string_view content_json,
                 bool is_error, bool preliminary) {
  out.append(R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":)"sv);
  append_json_string(out, tool_use_id);
  out.append(R"(,"content":)"sv);
  out.append(content_json.empty() ? std::string_view("null") : content_json);
  if (is_error) out.append(R"(,"is_error":true)"sv);
  if (preliminary) out.append(R"(,"preliminary":true)"sv);
  out.append("}]}}\n"sv);
}

void result(std::string& out, const result_fields& r) {
  out.append(R"({"type":"result","subtype":"success","is_error":)"sv);
  out.append(r.is_error ? "true" : "false");
  out.append(R"(,"result":)"sv);
  append_json_string(out, r.result_text);
  out.append(R"(,"session_id":)"sv);
  append_json_string(out, r.session_id);
  if (!r.stop_reason.empty()) {
    out.append(R"(,"stop_reason":)"sv);
    append_json_string(out, r.stop_reason);
  }
  fmt::format_to(std::back_inserter(out), R"(,"num_turns":{})", r.num_turns);
  if (r.total_cost_usd) fmt::format_to(std::back_inserter(out), R"(,"total_cost_usd":{})", *r.total_cost_usd);
  if (!r.usage_json.empty()) out.append(R"(,"usage":)"sv).append(r.usage_json);
  if (!r.model_usage_json.empty()) out.append(R"(,"modelUsage":)"sv).append(r.model_usage_json);
  out.append("}\n"sv);
}

void error(std::string& out, std::string_view message) {
  out.append(R"({"type":"error","error":)"sv);
  append_json_string(out, message);
  out.append("}\n"sv);
}

void add_turn_usage(std::string& result_line, const run_usage& usage) {
  if (result_line.empty() || result_line.back() != '}') return;
  result_line.pop_back();
  result_line.append(R"(,"platform_turn_usage":)"sv).append(run_usage_to_json(usage)).push_back('}');
}

void turn_end_line(std::string& out, const turn_end& end) {
  out.append(R"({"type":"platform_turn_end","workspaceChanged":)"sv).append(end.workspace_changed ? "true"sv : "false"sv);
  if (!end.session_state_json.empty() && end.session_state_json.size() <= turn_end_max_session_bytes) {
    out.append(R"(,"sessionState":)"sv).append(end.session_state_json);
  }
  if (!end.build_digest.empty()) {
    out.append(R"(,"buildDigest":)"sv);
    append_json_string(out, end.build_digest);
  }
  out.append("}\n"sv);
}

void step_usage(std::string& out, const run_usage& so_far) {
  out.append(R"({"type":"platform_step_usage","usage":)"sv).append(run_usage_to_json(so_far)).append("}\n"sv);
}

namespace {

// The line as a JSON object of `type`, when it names `member` at all (most lines do not: the
// cheap search keeps the parse off the hot path).
nlohmann::json typed_line(std::string_view line, std::string_view type, std::string_view member) {
  if (line.find(member) == std::string_view::npos || !check_json_limits(line, stored_json_limits)) {
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  auto m = nlohmann::json::parse(line, nullptr, false);
  if (!m.is_object()) return nlohmann::json(nlohmann::json::value_t::discarded);
  auto t = m.find("type");
  if (t == m.end() || !t->is_string() || t->get_ref<const std::string&>() != type) {
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  return m;
}

}  // namespace

std::optional<run_usage> turn_usage(std::string_view line) {
  auto m = typed_line(line, "result", "\"platform_turn_usage\"");
  if (m.is_discarded()) return std::nullopt;
  auto it = m.find("platform_turn_usage");
  if (it == m.end() || !it->is_object()) return std::nullopt;
  auto u = run_usage_from_json(it->dump());
  if (!u) return std::nullopt;
  return *u;
}

std::optional<turn_end> turn_end_of(std::string_view line) {
  if (line.substr(0, 28) != R"({"type":"platform_turn_end",)") return std::nullopt;
  auto m = typed_line(line, "platform_turn_end", "\"platform_turn_end\"");
  if (m.is_discarded()) return std::nullopt;
  auto changed = m.find("workspaceChanged");
  if (changed == m.end() || !changed->is_boolean()) return std::nullopt;
  turn_end end;
  end.workspace_changed = changed->get<bool>();
  if (auto s = m.find("sessionState"); s != m.end()) {
    if (!s->is_object() && !s->is_null()) return std::nullopt;
    end.session_state_json = s->dump();
  }
  if (auto d = m.find("buildDigest"); d != m.end()) {
    if (!d->is_string()) return std::nullopt;
    end.build_digest = d->get<std::string>();
  }
  return end;
}

std::optional<run_usage> step_usage_of(std::string_view line) {
  if (line.substr(0, 36) != R"({"type":"platform_step_usage","usage)") return std::nullopt;
  auto m = typed_line(line, "platform_step_usage", "\"platform_step_usage\"");
  if (m.is_discarded()) return std::nullopt;
  auto it = m.find("usage");
  if (it == m.end() || !it->is_object()) return std::nullopt;
  auto u = run_usage_from_json(it->dump());
  if (!u) return std::nullopt;
  return *u;
}

}  // namespace platform::worker_message
