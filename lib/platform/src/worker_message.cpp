#include "platform/worker_message.hpp"

#include <fmt/format.h>

#include "platform/json_text.hpp"

namespace platform::worker_message {
namespace {

void open_event(std::string& out) { out.append(R"({"type":"stream_event","event":)"); }
void close_event(std::string& out) { out.append("}\n"); }

void block_start(std::string& out, int index, std::string_view block_json) {
  open_event(out);
  fmt::format_to(std::back_inserter(out), R"({{"type":"content_block_start","index":{},"content_block":{}}})",
                 index, block_json);
  close_event(out);
}

void block_delta(std::string& out, int index, std::string_view delta_type, std::string_view field,
                 std::string_view value) {
  open_event(out);
  fmt::format_to(std::back_inserter(out), R"({{"type":"content_block_delta","index":{},"delta":{{"type":"{}","{}":)",
                 index, delta_type, field);
  append_json_string(out, value);
  out.append("}}");
  close_event(out);
}

}  // namespace

void system_init(std::string& out, std::string_view session_id, std::string_view model) {
  out.append(R"({"type":"system","subtype":"init","session_id":)");
  append_json_string(out, session_id);
  out.append(R"(,"model":)");
  append_json_string(out, model);
  out.append("}\n");
}

void message_start(std::string& out, std::string_view message_id, std::string_view model) {
  open_event(out);
  out.append(R"({"type":"message_start","message":{"id":)");
  append_json_string(out, message_id);
  out.append(R"(,"type":"message","role":"assistant","model":)");
  append_json_string(out, model);
  out.append(R"(,"content":[]}})");
  close_event(out);
}

void text_block_start(std::string& out, int index) {
  block_start(out, index, R"({"type":"text","text":""})");
}

void thinking_block_start(std::string& out, int index) {
  block_start(out, index, R"({"type":"thinking","thinking":""})");
}

void tool_use_block_start(std::string& out, int index, std::string_view tool_use_id,
                          std::string_view tool_name) {
  std::string block = R"({"type":"tool_use","id":)";
  append_json_string(block, tool_use_id);
  block.append(R"(,"name":)");
  append_json_string(block, tool_name);
  block.append(R"(,"input":{}})");
  block_start(out, index, block);
}

void text_delta(std::string& out, int index, std::string_view text) {
  block_delta(out, index, "text_delta", "text", text);
}

void thinking_delta(std::string& out, int index, std::string_view thinking) {
  block_delta(out, index, "thinking_delta", "thinking", thinking);
}

void input_json_delta(std::string& out, int index, std::string_view partial_json) {
  block_delta(out, index, "input_json_delta", "partial_json", partial_json);
}

void block_stop(std::string& out, int index) {
  open_event(out);
  fmt::format_to(std::back_inserter(out), R"({{"type":"content_block_stop","index":{}}})", index);
  close_event(out);
}

void message_stop(std::string& out) {
  open_event(out);
  out.append(R"({"type":"message_stop"})");
  close_event(out);
}

void assistant_tool_use(std::string& out, std::string_view message_id, std::string_view tool_use_id,
                        std::string_view tool_name, std::string_view input_json) {
  out.append(R"({"type":"assistant","message":{"id":)");
  append_json_string(out, message_id);
  out.append(R"(,"role":"assistant","content":[{"type":"tool_use","id":)");
  append_json_string(out, tool_use_id);
  out.append(R"(,"name":)");
  append_json_string(out, tool_name);
  out.append(R"(,"input":)");
  out.append(input_json.empty() ? std::string_view("{}") : input_json);
  out.append("}]}}\n");
}

void tool_result(std::string& out, std::string_view tool_use_id, std::string_view content_json,
                 bool is_error, bool preliminary) {
  out.append(R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":)");
  append_json_string(out, tool_use_id);
  out.append(R"(,"content":)");
  out.append(content_json.empty() ? std::string_view("null") : content_json);
  if (is_error) out.append(R"(,"is_error":true)");
  if (preliminary) out.append(R"(,"preliminary":true)");
  out.append("}]}}\n");
}

void result(std::string& out, const result_fields& r) {
  out.append(R"({"type":"result","subtype":"success","is_error":)");
  out.append(r.is_error ? "true" : "false");
  out.append(R"(,"result":)");
  append_json_string(out, r.result_text);
  out.append(R"(,"session_id":)");
  append_json_string(out, r.session_id);
  if (!r.stop_reason.empty()) {
    out.append(R"(,"stop_reason":)");
    append_json_string(out, r.stop_reason);
  }
  fmt::format_to(std::back_inserter(out), R"(,"num_turns":{})", r.num_turns);
  if (r.total_cost_usd) fmt::format_to(std::back_inserter(out), R"(,"total_cost_usd":{})", *r.total_cost_usd);
  if (!r.usage_json.empty()) out.append(R"(,"usage":)").append(r.usage_json);
  if (!r.model_usage_json.empty()) out.append(R"(,"modelUsage":)").append(r.model_usage_json);
  out.append("}\n");
}

void error(std::string& out, std::string_view message) {
  out.append(R"({"type":"error","error":)");
  append_json_string(out, message);
  out.append("}\n");
}

}  // namespace platform::worker_message
