// Placeholder templates and the tool request builder on arbitrary bytes.
// Input: TEMPLATE, optionally followed by a NUL byte and the tool input JSON.
// Contract: parsing never crashes; a parsed template rebuilds the text byte for byte from its
// parts and its canonical text parses back to the same parts; errors carry one of the three
// codes and a byte offset. Building a request never crashes; a failure is valid JSON that
// never holds a secret value; a request has an encoded url, header values without CR/LF/NUL,
// a JSON body when it says so, and a redacted view without secret values.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/integration_error.hpp"
#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "platform/placeholder.hpp"
#include "platform/tool_request.hpp"

namespace {

constexpr std::string_view canary = "Kx7CANARYq";

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string describe(const platform::placeholder_template& t) {
  std::string out;
  for (const auto& part : t.parts) {
    out += part.is_placeholder ? (part.ref.k == platform::placeholder::kind::secret ? "S:" : "I:") +
                                     part.ref.path
                               : "L:" + part.literal;
    out += '\0';
  }
  return out;
}

void check_parsed(std::string_view text, const platform::placeholder_template& t) {
  std::string raw;
  bool last_literal = false;
  for (const auto& part : t.parts) {
    if (part.is_placeholder) {
      const auto& p = part.ref;
      check(p.offset == raw.size() && p.length >= 4 && p.offset + p.length <= text.size());
      std::string_view slice = text.substr(p.offset, p.length);
      check(slice.substr(0, 2) == "{{" && slice.substr(slice.size() - 2) == "}}");
      check(!p.path.empty() && !p.steps.empty());
      raw += slice;
      last_literal = false;
    } else {
      check(!part.literal.empty() && !last_literal);
      check(part.literal.find("{{") == std::string::npos);
      raw += part.literal;
      last_literal = true;
    }
  }
  check(raw == text);
  auto again = platform::parse_placeholder_template(platform::canonical_text(t));
  check(again.has_value() && describe(*again) == describe(t));
}

void check_error(const platform::error& e) {
  check(e.code == platform::api_error::placeholder_unclosed || e.code == platform::api_error::placeholder_empty ||
        e.code == platform::api_error::placeholder_invalid_path);
  check(e.message.find("at byte ") != std::string::npos);
}

std::optional<std::string> resolve(std::string_view name) {
  if (!name.empty() && name.front() == 'M') return std::nullopt;
  if (name == "CR") return std::string(canary) + "\r\n";
  return std::string(canary);
}

bool is_url_byte(unsigned char c) {
  return c > 0x20 && c < 0x7f && c != '"' && c != '<' && c != '>' && c != '\\' && c != '^' &&
         c != '`' && c != '{' && c != '|' && c != '}';
}

void check_request(const platform::tool_request& r, bool may_hold_canary) {
  for (char c : r.request.url) check(is_url_byte(static_cast<unsigned char>(c)));
  for (const auto& [name, value] : r.request.headers) {
    check(value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
  }
  if (r.request.body && r.request.content_type == "application/json") {
    check(!nlohmann::json::parse(*r.request.body, nullptr, false).is_discarded());
  }
  if (!may_hold_canary) check(platform::to_json(r.redacted).find(canary) == std::string::npos);
}

void check_failure(const platform::integration_tool_result& f, bool may_hold_canary) {
  std::string text = f.to_json();
  auto j = nlohmann::json::parse(text, nullptr, false);
  check(!j.is_discarded() && j["success"] == false && j["mock"] == false);
  check(f.category.has_value() && f.error_code.has_value());
  check(f.can_request_builder_repair == platform::can_request_builder_repair(*f.category));
  if (!may_hold_canary) check(text.find(canary) == std::string::npos);
}

platform::tool make_tool(std::string method, std::string url, std::string value) {
  platform::tool t;
  t.name = "fuzz";
  t.integration = platform::tool_integration{"Fuzz", "example.com", "default", {}, {}};
  platform::tool_endpoint ep;
  ep.method = std::move(method);
  ep.url = std::move(url);
  ep.headers = {{"X-T", value}, {"X-K", "k {{secrets.KEY}}"}};
  ep.query_params = {{"q", value}};
  nlohmann::json body{{"t", value}, {"n", "{{n}}"}};
  ep.body_json = platform::compact_json(body);
  t.endpoint = std::move(ep);
  return t;
}

void build(const platform::tool& t, std::string_view input, bool may_hold_canary) {
  auto r = platform::build_tool_request(t, input, resolve);
  if (r) check_request(*r, may_hold_canary);
  else check_failure(r.error(), may_hold_canary);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::size_t nul = all.find('\0');
  std::string_view text = all.substr(0, nul);
  std::string_view input = nul == std::string_view::npos ? std::string_view("{}") : all.substr(nul + 1);

  auto t = platform::parse_placeholder_template(text);
  if (t) check_parsed(text, *t);
  else check_error(t.error());

  bool may_hold_canary = all.find(canary) != std::string_view::npos;
  std::string value(text);
  auto in_path = make_tool("POST", "https://api.example.com/v1/" + value, value);
  auto r = platform::build_tool_request(in_path, input, resolve);
  if (!t) check(!r && r.error().error_code == platform::integration_error::invalid_placeholder);
  if (r) {
    check_request(*r, may_hold_canary);
    check(r->request.url.rfind("https://api.example.com/v1/", 0) == 0);
  } else {
    check_failure(r.error(), may_hold_canary);
  }
  build(make_tool("GET", value, "{{n}}"), input, may_hold_canary);
  return 0;
}
