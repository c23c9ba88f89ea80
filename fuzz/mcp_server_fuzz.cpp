// The MCP broker endpoint on arbitrary requests. Input: five header lines then the body,
//   <HTTP method>\n<Authorization>\n<MCP-Protocol-Version>\n<Accept>\n<Content-Type>\n<body>
// (missing lines are absent headers; the seeds carry the grant's token so the fuzzer reaches
// the JSON-RPC layer). Contract: never crash; every reply is a known status with an empty body
// (202 only) or one JSON-RPC 2.0 object; a 401 carries a Bearer challenge; nothing but a
// granted tool of this server becomes a call, with object arguments; the result helper always
// writes valid JSON whatever text it gets.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/mcp_server.hpp"

namespace {

constexpr std::string_view token = "fuzz-token-0123456789abcdef0123456789";

platform::mcp_grants make_grants() {
  platform::mcp_grants g;
  platform::turn_grant t;
  t.token = std::string(token);
  t.app_id = "app";
  t.run_id = "run";
  t.tools.push_back({"mcp__platform__present_plan", "plan", R"({"type":"object","properties":{"title":{"type":"string"}}})", ""});
  t.tools.push_back({"mcp__app_data__read_app_data", "read", R"({"type":"object"})", R"({"readOnlyHint":true})"});
  if (!g.add(std::move(t))) __builtin_trap();
  return g;
}

std::string_view next_line(std::string_view& in) {
  std::size_t nl = in.find('\n');
  std::string_view line = in.substr(0, nl);
  in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static platform::mcp_grants grants = make_grants();
  std::string_view in(reinterpret_cast<const char*>(data), size);

  platform::mcp_http_request r;
  r.method = next_line(in);
  r.authorization = next_line(in);
  r.protocol_version = next_line(in);
  r.accept = next_line(in);
  r.content_type = next_line(in);
  r.body = in;

  platform::mcp_server_options options;
  options.server_name = size % 2 ? "platform" : "app_data";
  options.max_body_bytes = 1u << 16;
  auto d = platform::handle_mcp_request(options, grants, r);

  if (d.call) {
    if (d.call->name != platform::mcp_tool_name(options.server_name, d.call->tool)) __builtin_trap();
    if (d.call->name != "mcp__platform__present_plan" && d.call->name != "mcp__app_data__read_app_data") {
      __builtin_trap();
    }
    if (!nlohmann::json::parse(d.call->arguments_json, nullptr, false).is_object()) __builtin_trap();
    auto reply = platform::mcp_tool_result_reply(*d.call, r.body, size % 3 == 0);
    auto j = nlohmann::json::parse(reply.body, nullptr, false);
    if (!j.is_object() || !j.contains("result") || j["id"].is_null()) __builtin_trap();
  } else {
    const auto& rep = d.reply;
    switch (rep.status) {
      case 200: case 400: case 401: case 403: case 405: case 406: case 413: case 415: break;
      case 202:
        if (!rep.body.empty()) __builtin_trap();
        break;
      default: __builtin_trap();
    }
    if (rep.status != 202) {
      auto j = nlohmann::json::parse(rep.body, nullptr, false);
      if (!j.is_object() || j.value("jsonrpc", "") != "2.0" || j.contains("result") == j.contains("error")) {
        __builtin_trap();
      }
      if (rep.status != 200 && !j.contains("error")) __builtin_trap();
    }
    if (rep.status == 401) {
      bool challenge = false;
      for (const auto& [k, v] : rep.headers) challenge |= k == "WWW-Authenticate" && v.rfind("Bearer", 0) == 0;
      if (!challenge) __builtin_trap();
    }
    // Only a request carrying the grant's token gets past the bearer check.
    if (rep.status == 200 || rep.status == 202) {
      if (r.authorization.find(token) == std::string_view::npos) __builtin_trap();
    }
  }
  // The registry keeps its one grant whatever the requests did.
  if (grants.size() != 1 || !grants.find(token)) __builtin_trap();
  return 0;
}
