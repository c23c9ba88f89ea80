#include "platform/transcript_handoff.hpp"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"

namespace platform {

namespace {

using nlohmann::json;

// Cuts at a UTF-8 boundary, marking the cut.
std::string bounded(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end)) + " [...]";
}

std::string one_line(const json& v, std::size_t max) {
  std::string text = v.is_string() ? v.get<std::string>() : compact_json(v);
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return bounded(text, max);
}

// "Tool Write: {input} -> {output}" for dynamic-tool and tool-<name> parts.
std::string tool_line(const json& part, const handoff_limits& limits) {
  std::string type = part.value("type", "");
  std::string name = type == "dynamic-tool" ? part.value("toolName", "tool") : type.substr(5);
  std::string line = "[tool " + name;
  if (auto in = part.find("input"); in != part.end() && !in->is_null()) line += " " + one_line(*in, limits.max_tool_bytes);
  if (auto out = part.find("output"); out != part.end() && !out->is_null()) {
    line += " -> " + one_line(*out, limits.max_tool_bytes);
  } else if (auto err = part.find("errorText"); err != part.end() && err->is_string()) {
    line += " -> error: " + one_line(*err, limits.max_tool_bytes);
  }
  return line + "]";
}

std::string message_text(const json& m, const handoff_limits& limits) {
  std::string role = m.value("role", "");
  std::string out = role == "user" ? "User:" : role == "assistant" ? "Assistant:" : "System:";
  auto parts = m.find("parts");
  if (parts == m.end() || !parts->is_array()) return {};
  bool any = false;
  for (const auto& p : *parts) {
    if (!p.is_object()) continue;
    std::string type = p.value("type", "");
    if (type == "text" && p.contains("text") && p["text"].is_string()) {
      out += "\n" + bounded(p["text"].get<std::string>(), limits.max_text_bytes);
      any = true;
    } else if (type == "dynamic-tool" || type.rfind("tool-", 0) == 0) {
      out += "\n" + tool_line(p, limits);
      any = true;
    }
  }
  return any ? out : std::string();
}

}  // namespace

std::string neutral_transcript(std::string_view messages_json, std::size_t from, std::size_t to,
                               const handoff_limits& limits) {
  if (from >= to || nests_deeper_than(messages_json, 128)) return {};
  json messages = json::parse(messages_json, nullptr, false);
  if (!messages.is_array()) return {};
  to = std::min(to, messages.size());
  // Newest first until the budget is spent, then put back in order.
  std::vector<std::string> kept;
  std::size_t used = 0;
  std::size_t left_out = 0;
  for (std::size_t i = to; i > from; --i) {
    const json& m = messages[i - 1];
    if (!m.is_object()) continue;
    std::string text = message_text(m, limits);
    if (text.empty()) continue;
    if (used + text.size() + 2 > limits.max_bytes) {
      left_out = i - from;
      break;
    }
    used += text.size() + 2;
    kept.push_back(std::move(text));
  }
  if (kept.empty()) return {};
  std::string out;
  if (left_out > 0) out += "(" + std::to_string(left_out) + " earlier messages left out)\n\n";
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    out += *it;
    out += "\n\n";
  }
  out.resize(out.size() - 2);
  return out;
}

std::string prompt_with_handoff(std::string_view transcript, std::string_view prompt) {
  if (transcript.empty()) return std::string(prompt);
  std::string out =
      "The conversation so far (it happened with another agent runtime; the workspace files reflect it):\n\n"
      "<conversation>\n";
  out += transcript;
  out += "\n</conversation>\n\nThe user's new message:\n\n";
  out += prompt;
  return out;
}

std::size_t messages_covered(session_source from, std::size_t earlier, long long web_says) {
  switch (from) {
    case session_source::none: return 0;
    case session_source::worker: return earlier;
    case session_source::web: return web_says < 0 ? 0 : std::min(static_cast<std::size_t>(web_says), earlier);
  }
  return 0;
}

}  // namespace platform
