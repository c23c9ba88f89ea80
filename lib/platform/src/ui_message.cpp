#include "platform/ui_message.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "bounded_json.hpp"

#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"

namespace platform {

using nlohmann::json;

struct ui_message_assembler::impl {
  std::string id;
  json parts = json::array();
  std::map<std::string, std::size_t> open_text;       // part id → index in parts
  std::map<std::string, std::size_t> open_reasoning;
  std::map<std::string, std::size_t> tools;           // toolCallId → index in parts
  std::map<std::string, std::string> tool_input_text; // streamed input so far
  std::map<std::size_t, std::string> part_ids;        // text and reasoning parts' stream ids

  static std::string str(const json& c, const char* key) {
    auto it = c.find(key);
    return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

  void start_part(std::map<std::string, std::size_t>& open, const json& c, const char* type) {
    std::string pid = str(c, "id");
    json part = {{"type", type}, {"text", ""}, {"state", "streaming"}};
    parts.push_back(std::move(part));
    open[pid] = parts.size() - 1;
    part_ids[parts.size() - 1] = pid;
  }

  void delta(std::map<std::string, std::size_t>& open, const json& c) {
    auto it = open.find(str(c, "id"));
    if (it == open.end()) return;
    parts[it->second]["text"].get_ref<std::string&>() += str(c, "delta");
  }

  void end(std::map<std::string, std::size_t>& open, const json& c) {
    auto it = open.find(str(c, "id"));
    if (it == open.end()) return;
    parts[it->second]["state"] = "done";
    open.erase(it);
  }

  json& tool_part(const json& c) {
    std::string call = str(c, "toolCallId");
    auto it = tools.find(call);
    if (it != tools.end()) return parts[it->second];
    parts.push_back({{"type", "dynamic-tool"}, {"toolName", str(c, "toolName")}, {"toolCallId", call},
                     {"state", "input-streaming"}, {"input", nullptr}});
    tools[call] = parts.size() - 1;
    return parts.back();
  }

  json* known_tool(const json& c) {
    auto it = tools.find(str(c, "toolCallId"));
    return it == tools.end() ? nullptr : &parts[it->second];
  }

  void feed(const json& c) {
    std::string type = str(c, "type");
    if (type == "start") {
      if (auto m = str(c, "messageId"); !m.empty()) id = m;
    } else if (type == "start-step") {
      parts.push_back({{"type", "step-start"}});
    } else if (type == "text-start") {
      start_part(open_text, c, "text");
    } else if (type == "text-delta") {
      delta(open_text, c);
    } else if (type == "text-end") {
      end(open_text, c);
    } else if (type == "reasoning-start") {
      start_part(open_reasoning, c, "reasoning");
    } else if (type == "reasoning-delta") {
      delta(open_reasoning, c);
    } else if (type == "reasoning-end") {
      end(open_reasoning, c);
    } else if (type == "tool-input-start") {
      json& p = tool_part(c);
      p["state"] = "input-streaming";
      tool_input_text.erase(str(c, "toolCallId"));
    } else if (type == "tool-input-delta") {
      if (known_tool(c)) tool_input_text[str(c, "toolCallId")] += str(c, "inputTextDelta");
    } else if (type == "tool-input-available") {
      json& p = tool_part(c);
      p["state"] = "input-available";
      p["input"] = c.value("input", json());
      tool_input_text.erase(str(c, "toolCallId"));
    } else if (type == "tool-output-available") {
      json* p = known_tool(c);
      if (!p) return;
      (*p)["state"] = "output-available";
      (*p)["output"] = c.value("output", json());
      // Any other type than a boolean is no flag (json::value would throw on it).
      if (auto pre = c.find("preliminary"); pre != c.end() && pre->is_boolean() && pre->get<bool>()) (*p)["preliminary"] = true;
      else p->erase("preliminary");
    } else if (type == "tool-output-error" || type == "tool-input-error") {
      json* p = known_tool(c);
      if (!p) return;
      (*p)["state"] = "output-error";
      (*p)["errorText"] = str(c, "errorText");
    }
  }
};

ui_message_assembler::ui_message_assembler() : impl_(std::make_unique<impl>()) {}
ui_message_assembler::~ui_message_assembler() = default;
ui_message_assembler::ui_message_assembler(ui_message_assembler&&) noexcept = default;
ui_message_assembler& ui_message_assembler::operator=(ui_message_assembler&&) noexcept = default;

void ui_message_assembler::feed(std::string_view event_data) {
  if (event_data == "[DONE]") return;
  json c = parse_json_within(event_data, stored_json_limits);
  if (c.is_discarded() || !c.is_object()) return;
  impl_->feed(c);
}

std::string ui_message_assembler::message_id() const { return impl_->id; }
bool ui_message_assembler::empty() const { return impl_->parts.empty(); }

namespace {

void sse(std::string& out, const json& chunk) {
  out += "data: ";
  out += compact_json(chunk);
  out += "\n\n";
}

}  // namespace

// Every text and reasoning part keeps its stream id (the client shows it on the part, and the
// events after the head continue open parts by it); a tool whose input is still streaming gets
// that input so far as one delta.
std::string ui_message_assembler::replay_events() const {
  const impl& m = *impl_;
  std::string out;
  json start = {{"type", "start"}};
  if (!m.id.empty()) start["messageId"] = m.id;
  sse(out, start);
  for (std::size_t i = 0; i < m.parts.size(); ++i) {
    const json& p = m.parts[i];
    const std::string type = p.value("type", "");
    if (type == "step-start") {
      sse(out, {{"type", "start-step"}});
    } else if (type == "text" || type == "reasoning") {
      const auto& open = type == "text" ? m.open_text : m.open_reasoning;
      auto known = m.part_ids.find(i);
      std::string id = known != m.part_ids.end() ? known->second : "part-" + std::to_string(i);
      auto still = open.find(id);
      bool is_open = still != open.end() && still->second == i;
      sse(out, {{"type", type + "-start"}, {"id", id}});
      const std::string& text = p["text"].get_ref<const std::string&>();
      if (!text.empty()) sse(out, {{"type", type + "-delta"}, {"id", id}, {"delta", text}});
      if (!is_open) sse(out, {{"type", type + "-end"}, {"id", id}});
    } else if (type == "dynamic-tool") {
      const std::string call = p.value("toolCallId", "");
      const std::string state = p.value("state", "");
      json tool = {{"toolCallId", call}, {"toolName", p.value("toolName", "")}, {"dynamic", true}};
      if (state == "input-streaming") {
        json begin = tool;
        begin["type"] = "tool-input-start";
        sse(out, begin);
        auto text = m.tool_input_text.find(call);
        if (text != m.tool_input_text.end() && !text->second.empty()) {
          sse(out, {{"type", "tool-input-delta"}, {"toolCallId", call}, {"inputTextDelta", text->second}});
        }
        continue;
      }
      json available = tool;
      available["type"] = "tool-input-available";
      available["input"] = p.contains("input") ? p["input"] : json();
      sse(out, available);
      if (state == "output-available") {
        json done = {{"type", "tool-output-available"}, {"toolCallId", call}, {"dynamic", true}};
        done["output"] = p.contains("output") ? p["output"] : json();
        if (p.value("preliminary", false)) done["preliminary"] = true;
        sse(out, done);
      } else if (state == "output-error") {
        sse(out, {{"type", "tool-output-error"}, {"toolCallId", call}, {"errorText", p.value("errorText", "")}, {"dynamic", true}});
      }
    }
  }
  return out;
}

std::string ui_message_assembler::message_json() const {
  json m = {{"id", impl_->id}, {"role", "assistant"}, {"parts", impl_->parts}};
  return compact_json(m);
}

result<std::size_t> count_ui_messages(std::string_view messages_json) {
  json m = parse_json_within(messages_json, stored_json_limits);
  if (m.is_discarded() || !m.is_array()) return fail(api_error::invalid_messages, "messages must be a JSON array of UI messages");
  for (const auto& x : m) {
    if (!x.is_object() || !x.contains("role") || !x["role"].is_string()) {
      return fail(api_error::invalid_messages, "every message needs a string role");
    }
  }
  return m.size();
}

result<std::string> append_ui_message(std::string_view messages_json, std::string_view message_json) {
  json all = parse_json_within(messages_json, stored_json_limits);
  json one = parse_json_within(message_json, stored_json_limits);
  if (all.is_discarded() || !all.is_array() || one.is_discarded()) {
    return fail(api_error::invalid_messages, "cannot append to a message list that is not a JSON array");
  }
  all.push_back(std::move(one));
  return compact_json(all);
}

}  // namespace platform
