#include "platform/json_limits.hpp"
#include "platform/mcp_server.hpp"
#include "platform/api_error.hpp"
#include "platform/ascii.hpp"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstdint>
#include <iterator>

#include <nlohmann/json.hpp>

#include "platform/compact_json.hpp"
#include "json_member.hpp"

namespace platform {
namespace {

// Requests are parsed unordered: ordered_json inserts in quadratic time, and a body of a few
// MiB of keys would stall the worker. Replies are built ordered so they read like the spec.
using nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr std::size_t npos = static_cast<std::size_t>(-1);
constexpr std::size_t min_token_chars = 32;
// Deeper JSON is refused before parsing: writing it out again (arguments_json) recurses that deep.
constexpr int max_message_depth = 128;
// Client strings quoted back in error messages are cut here.
constexpr std::size_t max_quoted = 100;

// JSON-RPC codes. -32000/-32001 are what the SDK uses for transport-level refusals; the
// 2026-07-28 codes (-32020..-32022) are never sent: a dual-era client would take them as proof
// that we are a modern server and stop falling back to `initialize`.
constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int method_not_found = -32601;
constexpr int invalid_params = -32602;
constexpr int transport_error = -32000;
constexpr int unauthorized = -32001;

constexpr std::string_view json_type = "application/json";

std::string clip(std::string_view s) {
  return std::string(s.size() > max_quoted ? s.substr(0, max_quoted) : s);
}

bool accepts_json(std::string_view accept) {
  while (true) {
    std::size_t comma = accept.find(',');
    std::string_view t = media_type_of(accept.substr(0, comma));
    if (iequals(t, json_type) || iequals(t, "application/*") || t == "*/*") return true;
    if (comma == std::string_view::npos) return false;
    accept.remove_prefix(comma + 1);
  }
}

std::string sha256(std::string_view s) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d);
  return std::string(reinterpret_cast<const char*>(d), sizeof d);
}

bool tool_part_ok(std::string_view t) {
  if (t.empty() || t.size() > 128) return false;
  return std::all_of(t.begin(), t.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

bool server_part_ok(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// The id of the request to echo; null when it has none usable.
ojson echo_id(const json& msg) {
  if (!msg.is_object()) return nullptr;
  auto it = msg.find("id");
  if (it == msg.end()) return nullptr;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_float()) return it->get<double>();
  return nullptr;
}

mcp_http_reply json_reply(int status, const ojson& body) {
  mcp_http_reply r;
  r.status = status;
  r.content_type = std::string(json_type);
  r.body = compact_json(body);
  return r;
}

ojson rpc_error(const ojson& id, int code, std::string message) {
  ojson e;
  e["jsonrpc"] = "2.0";
  e["id"] = id;
  e["error"] = ojson{{"code", code}, {"message", std::move(message)}};
  return e;
}

mcp_http_reply error_reply(int status, const ojson& id, int code, std::string message) {
  return json_reply(status, rpc_error(id, code, std::move(message)));
}

mcp_http_reply result_reply(const ojson& id, ojson result) {
  ojson r;
  r["jsonrpc"] = "2.0";
  r["id"] = id;
  r["result"] = std::move(result);
  return json_reply(200, r);
}

mcp_decision decide(mcp_http_reply r) { return mcp_decision{std::move(r), std::nullopt}; }

mcp_decision accepted() {
  mcp_http_reply r;
  r.status = 202;
  return decide(std::move(r));
}

// RFC 6750 §3.1: no error code when the request carried no credentials at all.
mcp_decision unauthenticated(bool presented) {
  auto r = error_reply(401, nullptr, unauthorized, "Unauthorized");
  r.headers.emplace_back("WWW-Authenticate", presented ? R"(Bearer error="invalid_token")" : "Bearer");
  return decide(std::move(r));
}

// The token of `Authorization: Bearer <token>`; nullopt for another scheme or no header.
std::optional<std::string_view> bearer_token(std::string_view header) {
  header = trim_ows(header);
  constexpr std::string_view scheme = "Bearer";
  if (header.size() < scheme.size() || !iequals(header.substr(0, scheme.size()), scheme)) return std::nullopt;
  std::string_view rest = header.substr(scheme.size());
  if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t') return std::nullopt;  // e.g. "Bearerx"
  return trim_ows(rest);
}

mcp_decision on_initialize(const mcp_server_options& options, mcp_grants& grants, std::string_view token,
                           const ojson& id, const json* params) {
  const json* requested = params && params->is_object() ? find_member(*params, "protocolVersion") : nullptr;
  if (!requested || !requested->is_string()) {
    return decide(error_reply(200, id, invalid_params, "Invalid params: initialize needs params.protocolVersion"));
  }
  ojson result;
  result["protocolVersion"] = std::string(mcp_negotiate_protocol_version(requested->get<std::string>()));
  result["capabilities"] = ojson{{"tools", ojson{{"listChanged", false}}}};
  result["serverInfo"] = ojson{{"name", options.server_name}, {"version", options.server_version}};
  if (!options.instructions.empty()) result["instructions"] = options.instructions;
  grants.mark_connected(token, options.server_name);
  return decide(result_reply(id, std::move(result)));
}

mcp_decision on_tools_list(const mcp_server_options& options, const turn_grant& grant, const ojson& id,
                           const json* params) {
  if (params && !params->is_null()) {
    if (!params->is_object()) return decide(error_reply(200, id, invalid_params, "Invalid params: expected an object"));
    const json* cursor = find_member(*params, "cursor");
    // We never hand out a cursor, so any cursor is one we did not issue.
    if (cursor && !cursor->is_null()) return decide(error_reply(200, id, invalid_params, "Invalid cursor"));
  }
  ojson tools = ojson::array();
  for (const auto& t : grant.tools) {
    auto parts = split_mcp_tool_name(t.name);
    if (!parts || parts->server != options.server_name) continue;
    ojson tool;
    tool["name"] = std::string(parts->tool);
    if (!t.description.empty()) tool["description"] = t.description;
    // Checked when the grant was added; parsed again here to keep nlohmann out of the header.
    tool["inputSchema"] = ojson::parse(t.input_schema_json, nullptr, false);
    if (!t.annotations_json.empty()) tool["annotations"] = ojson::parse(t.annotations_json, nullptr, false);
    tools.push_back(std::move(tool));
  }
  return decide(result_reply(id, ojson{{"tools", std::move(tools)}}));
}

mcp_decision on_tools_call(const mcp_server_options& options, mcp_grants& grants, const turn_grant& grant,
                           const ojson& id, const json* params) {
  if (!params || !params->is_object()) {
    return decide(error_reply(200, id, invalid_params, "Invalid params: tools/call needs params.name"));
  }
  const json* name = find_member(*params, "name");
  if (!name || !name->is_string()) {
    return decide(error_reply(200, id, invalid_params, "Invalid params: tools/call needs params.name"));
  }
  const std::string& tool = name->get_ref<const std::string&>();
  std::string canonical = mcp_tool_name(options.server_name, tool);
  bool granted = std::any_of(grant.tools.begin(), grant.tools.end(),
                             [&](const mcp_tool_definition& t) { return t.name == canonical; });
  // The spec's answer to an unknown tool; a tool that exists but was not granted to this turn
  // must look the same, so a runtime learns nothing about other turns' tools.
  if (!granted) return decide(error_reply(200, id, invalid_params, "Unknown tool: " + clip(tool)));
  const json* args = find_member(*params, "arguments");
  if (args && !args->is_null() && !args->is_object()) {
    return decide(error_reply(200, id, invalid_params, "Invalid params: arguments must be an object"));
  }
  mcp_tool_call call;
  call.id_json = compact_json(id);
  call.name = std::move(canonical);
  call.tool = tool;
  call.arguments_json = args && args->is_object() ? compact_json(*args) : "{}";
  call.app_id = grant.app_id;
  call.run_id = grant.run_id;
  grants.count_tool_call(grant.token);
  return mcp_decision{mcp_http_reply{}, std::move(call)};
}

}  // namespace

bool mcp_protocol_version_supported(std::string_view version) noexcept {
  return std::find(std::begin(mcp_protocol_versions), std::end(mcp_protocol_versions), version) !=
         std::end(mcp_protocol_versions);
}

std::string_view mcp_negotiate_protocol_version(std::string_view requested) noexcept {
  for (auto v : mcp_protocol_versions) {
    if (v == requested) return v;
  }
  return mcp_latest_protocol_version;
}

std::string mcp_endpoint_path(std::string_view server) { return "/mcp/" + std::string(server); }

std::string mcp_tool_name(std::string_view server, std::string_view tool) {
  std::string s = "mcp__";
  s.append(server);
  s.append("__");
  s.append(tool);
  return s;
}

std::optional<mcp_tool_name_parts> split_mcp_tool_name(std::string_view name) noexcept {
  constexpr std::string_view prefix = "mcp__";
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  name.remove_prefix(prefix.size());
  std::size_t sep = name.find("__");
  if (sep == std::string_view::npos || sep == 0 || sep + 2 == name.size()) return std::nullopt;
  return mcp_tool_name_parts{name.substr(0, sep), name.substr(sep + 2)};
}

// ---- grants ----

std::size_t mcp_grants::locate(std::string_view token) const {
  std::string d = sha256(token);
  std::size_t found = npos;
  // Every entry is compared and the match is selected by mask, not by branch or early exit.
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    std::size_t equal = static_cast<std::size_t>(CRYPTO_memcmp(d.data(), entries_[i].digest.data(), d.size()) == 0);
    std::size_t mask = static_cast<std::size_t>(0) - equal;
    found = (found & ~mask) | (i & mask);
  }
  return found;
}

result<void> mcp_grants::add(turn_grant grant) {
  const std::string& token = grant.token;
  bool header_safe = std::all_of(token.begin(), token.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
  if (token.size() < min_token_chars || !header_safe) {
    return fail(api_error::invalid_token, "a broker token must be at least 32 visible ASCII characters");
  }
  if (locate(token) != npos) return fail(api_error::duplicate_token, "another grant already holds this token");
  for (std::size_t i = 0; i < grant.tools.size(); ++i) {
    const auto& t = grant.tools[i];
    auto parts = split_mcp_tool_name(t.name);
    if (!parts || !server_part_ok(parts->server) || !tool_part_ok(parts->tool)) {
      return fail(api_error::invalid_tool_name, "tool `" + clip(t.name) +
                                           "` is not mcp__<server>__<tool> with a tool name of 1 to 128 "
                                           "letters, digits, `_`, `.` or `-`");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (grant.tools[j].name == t.name) return fail(api_error::duplicate_tool, "tool `" + t.name + "` is granted twice");
    }
    if (nests_deeper_than(t.input_schema_json, max_message_depth)) {
      return fail(api_error::invalid_input_schema, "the input schema of `" + t.name + "` nests too deeply");
    }
    json schema = json::parse(t.input_schema_json, nullptr, false);
    const json* type = schema.is_object() ? find_member(schema, "type") : nullptr;
    if (!type || *type != "object") {
      return fail(api_error::invalid_input_schema, "the input schema of `" + t.name +
                                              "` must be a JSON object with \"type\": \"object\" (MCP requires it)");
    }
    if (!t.annotations_json.empty()) {
      if (nests_deeper_than(t.annotations_json, max_message_depth) ||
          !json::parse(t.annotations_json, nullptr, false).is_object()) {
        return fail(api_error::invalid_annotations, "the annotations of `" + t.name + "` must be a JSON object");
      }
    }
  }
  entry e;
  e.digest = sha256(grant.token);
  e.grant = std::move(grant);
  entries_.push_back(std::move(e));
  return {};
}

std::optional<mcp_grant_usage> mcp_grants::remove(std::string_view token) {
  std::size_t i = locate(token);
  if (i == npos) return std::nullopt;
  mcp_grant_usage u = std::move(entries_[i].usage);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  return u;
}

const turn_grant* mcp_grants::find(std::string_view token) const {
  std::size_t i = locate(token);
  return i == npos ? nullptr : &entries_[i].grant;
}

std::optional<mcp_grant_usage> mcp_grants::usage(std::string_view token) const {
  std::size_t i = locate(token);
  if (i == npos) return std::nullopt;
  return entries_[i].usage;
}

bool mcp_grants::connected(std::string_view token, std::string_view server) const {
  std::size_t i = locate(token);
  if (i == npos) return false;
  const auto& s = entries_[i].usage.connected_servers;
  if (server.empty()) return !s.empty();
  return std::find(s.begin(), s.end(), server) != s.end();
}

void mcp_grants::mark_connected(std::string_view token, std::string_view server) {
  std::size_t i = locate(token);
  if (i == npos) return;
  auto& s = entries_[i].usage.connected_servers;
  if (std::find(s.begin(), s.end(), server) == s.end()) s.emplace_back(server);
}

void mcp_grants::count_tool_call(std::string_view token) {
  std::size_t i = locate(token);
  if (i != npos) ++entries_[i].usage.tool_calls;
}

// ---- the endpoint ----

mcp_decision handle_mcp_request(const mcp_server_options& options, mcp_grants& grants,
                                const mcp_http_request& request) {
  // Origin first (transports §Security): DNS rebinding from a browser page must not even learn
  // whether a token is right.
  if (!request.origin.empty() &&
      std::find(options.allowed_origins.begin(), options.allowed_origins.end(), request.origin) ==
          options.allowed_origins.end()) {
    return decide(error_reply(403, nullptr, transport_error, "Forbidden: origin not allowed"));
  }

  auto token = bearer_token(request.authorization);
  if (!token) return unauthenticated(false);
  const turn_grant* grant = grants.find(*token);
  if (!grant) return unauthenticated(true);

  if (request.method != "POST") {
    auto r = error_reply(405, nullptr, transport_error, "Method not allowed: this endpoint only takes POST");
    r.headers.emplace_back("Allow", "POST");
    return decide(std::move(r));
  }
  if (request.body.size() > options.max_body_bytes) {
    return decide(error_reply(413, nullptr, transport_error, "Payload too large"));
  }
  if (!request.accept.empty() && !accepts_json(request.accept)) {
    return decide(error_reply(406, nullptr, transport_error, "Not Acceptable: replies are application/json"));
  }
  if (!request.content_type.empty() && !iequals(media_type_of(request.content_type), json_type)) {
    return decide(error_reply(415, nullptr, transport_error, "Unsupported Media Type: send application/json"));
  }

  if (nests_deeper_than(request.body, max_message_depth)) {
    return decide(error_reply(400, nullptr, invalid_request, "Invalid Request: JSON nests too deeply"));
  }
  json msg = json::parse(request.body, nullptr, false);
  if (msg.is_discarded()) return decide(error_reply(400, nullptr, parse_error, "Parse error"));
  // Batches were removed in 2025-06-18; no client of ours sends them under 2025-03-26 either.
  if (msg.is_array()) {
    return decide(error_reply(400, nullptr, invalid_request, "Invalid Request: batches are not supported"));
  }
  if (!msg.is_object()) {
    return decide(error_reply(400, nullptr, invalid_request, "Invalid Request: expected a JSON-RPC object"));
  }

  ojson id = echo_id(msg);
  const json* jsonrpc = find_member(msg, "jsonrpc");
  if (!jsonrpc || *jsonrpc != "2.0") {
    return decide(error_reply(400, id, invalid_request, "Invalid Request: jsonrpc must be \"2.0\""));
  }
  const json* method = find_member(msg, "method");
  const json* raw_id = find_member(msg, "id");
  const json* params = find_member(msg, "params");

  bool is_request = false;
  if (method) {
    if (!method->is_string()) {
      return decide(error_reply(400, id, invalid_request, "Invalid Request: method must be a string"));
    }
    // MCP: a request id is a string or a number, never null.
    if (raw_id && !raw_id->is_string() && !raw_id->is_number()) {
      return decide(error_reply(400, nullptr, invalid_request, "Invalid Request: id must be a string or a number"));
    }
    if (params && !params->is_object() && !params->is_array()) {
      return decide(error_reply(400, id, invalid_request, "Invalid Request: params must be an object"));
    }
    is_request = raw_id != nullptr;
  } else {
    // A response to a server request: we send none, but the transport still owes it a 202.
    bool has_result = msg.contains("result");
    bool has_error = msg.contains("error");
    if (!raw_id || has_result == has_error) {
      return decide(error_reply(400, id, invalid_request, "Invalid Request: neither a request nor a response"));
    }
  }

  bool is_initialize = is_request && method->get_ref<const std::string&>() == "initialize";
  // Missing header: the transport says assume 2025-03-26, which we speak. This is also the
  // answer to the 2026-07-28 `server/discover` probe (header 2026-07-28), which makes a
  // dual-era client fall back to `initialize`.
  if (!is_initialize && !request.protocol_version.empty() &&
      !mcp_protocol_version_supported(request.protocol_version)) {
    return decide(error_reply(400, id, transport_error,
                              "Unsupported protocol version: " + clip(request.protocol_version)));
  }
  if (!is_request) return accepted();  // notifications (notifications/initialized, ...) and responses

  const std::string& m = method->get_ref<const std::string&>();
  if (is_initialize) return on_initialize(options, grants, *token, id, params);
  if (m == "ping") return decide(result_reply(id, ojson::object()));
  if (m == "tools/list") return on_tools_list(options, *grant, id, params);
  if (m == "tools/call") return on_tools_call(options, grants, *grant, id, params);
  return decide(error_reply(200, id, method_not_found, "Method not found: " + clip(m)));
}

mcp_http_reply mcp_tool_result_reply(const mcp_tool_call& call, std::string_view text, bool is_error) {
  ojson id = ojson::parse(call.id_json, nullptr, false);
  if (id.is_discarded() || !(id.is_string() || id.is_number())) id = nullptr;
  ojson result;
  result["content"] = ojson::array({ojson{{"type", "text"}, {"text", std::string(text)}}});
  if (is_error) result["isError"] = true;
  return result_reply(id, std::move(result));
}

}  // namespace platform
