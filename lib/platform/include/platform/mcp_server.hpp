#pragma once
// The worker's MCP broker (spec "Authentication" 4 and 5): a tools-only MCP server over
// Streamable HTTP through which a runtime turn reaches the platform's own tools, authorized by
// one bearer token per turn that grants only that turn's tools.
//
// Sans-I/O: `handle_mcp_request` turns one HTTP request (method, the few header values that
// matter, body) into a decision the HTTP glue writes out. Tool calls are not run here: the
// decision carries the call, the glue runs it (possibly asynchronously) and writes
// `mcp_tool_result_reply`. We speak the initialize-handshake revisions (2025-11-25, 2025-06-18,
// 2025-03-26) statelessly (no MCP-Session-Id) and always answer `application/json`, never SSE;
// Claude Code's 2026-07-28 `server/discover` probe gets the 400/-32000 that makes it fall back.
// Paths are the glue's: one endpoint per server name (`mcp_endpoint_path`), 404 for anything
// else, including the OAuth well-known paths (a static per-turn token needs no discovery).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/error.hpp"

namespace platform {

// Newest first. The first is what `initialize` answers to a version we do not speak.
inline constexpr std::string_view mcp_protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};
inline constexpr std::string_view mcp_latest_protocol_version = mcp_protocol_versions[0];

[[nodiscard]] bool mcp_protocol_version_supported(std::string_view version) noexcept;
// The version `initialize` answers: the client's when we speak it, else our latest.
[[nodiscard]] std::string_view mcp_negotiate_protocol_version(std::string_view requested) noexcept;

// The broker's server names; a runtime sees a tool as `mcp__<server>__<tool>`.
inline constexpr std::string_view mcp_server_platform = "platform";
inline constexpr std::string_view mcp_server_app_tools = "app_tools";
inline constexpr std::string_view mcp_server_app_data = "app_data";

// `/mcp/<server>`: where the glue mounts the endpoint of one server name.
[[nodiscard]] std::string mcp_endpoint_path(std::string_view server);

// `mcp__<server>__<tool>`, the spec's canonical tool name.
[[nodiscard]] std::string mcp_tool_name(std::string_view server, std::string_view tool);
struct mcp_tool_name_parts {
  std::string_view server;
  std::string_view tool;
};
// Splits at the first `__` after `mcp__` (server names hold single underscores, tool names may
// hold double ones). nullopt when either part is empty.
[[nodiscard]] std::optional<mcp_tool_name_parts> split_mcp_tool_name(std::string_view name) noexcept;

// One tool a turn may call.
struct mcp_tool_definition {
  std::string name;               // canonical `mcp__<server>__<tool>`; the tool part [A-Za-z0-9_.-]{1,128}
  std::string description;        // empty: omitted from tools/list
  std::string input_schema_json;  // a JSON Schema object with "type":"object"
  std::string annotations_json;   // optional MCP ToolAnnotations object; empty: omitted
};

// What one runtime turn may do through the broker.
struct turn_grant {
  std::string token;  // at least 32 visible ASCII characters, minted by the worker per turn
  std::string app_id;
  std::string run_id;
  std::vector<mcp_tool_definition> tools;  // may span several server names
};

// What the broker saw of a grant: the worker checks after the turn that the runtime really
// connected (Codex, for one, reports nothing when the broker rejected it).
struct mcp_grant_usage {
  std::vector<std::string> connected_servers;  // servers that answered an `initialize`, first seen first
  std::size_t tool_calls = 0;                  // tools/call decisions handed to the glue
};

// The live grants of a worker. A plain data structure: the glue serializes access to it.
// Lookups by token compare SHA-256 digests with CRYPTO_memcmp against every grant, so the time
// taken says nothing about how much of a guess was right, nor which grant matched.
class mcp_grants {
 public:
  // Errors: `invalid_token` (short or not header-safe), `duplicate_token`, `invalid_tool_name`,
  // `duplicate_tool`, `invalid_input_schema`, `invalid_annotations`. Messages never hold the token.
  result<void> add(turn_grant grant);
  // The grant's usage as it stood, or nullopt when no grant holds the token.
  std::optional<mcp_grant_usage> remove(std::string_view token);

  [[nodiscard]] const turn_grant* find(std::string_view token) const;
  [[nodiscard]] std::optional<mcp_grant_usage> usage(std::string_view token) const;
  // True once `server` (any server when empty) answered an `initialize` under this token.
  [[nodiscard]] bool connected(std::string_view token, std::string_view server = {}) const;
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

  // Used by `handle_mcp_request`.
  void mark_connected(std::string_view token, std::string_view server);
  void count_tool_call(std::string_view token);

 private:
  struct entry {
    turn_grant grant;
    std::string digest;  // SHA-256 of the token
    mcp_grant_usage usage;
  };
  [[nodiscard]] std::size_t locate(std::string_view token) const;  // index or npos
  std::vector<entry> entries_;
};

struct mcp_server_options {
  std::string server_name{mcp_server_platform};  // which of a grant's tools this endpoint serves
  std::string server_version = "0.1.0";           // serverInfo.version
  std::string instructions;                       // InitializeResult.instructions; empty: omitted
  // Origin values accepted besides none at all (the CLIs send none; a browser always does, and
  // a page must not reach a loopback broker).
  std::vector<std::string> allowed_origins;
  std::size_t max_body_bytes = 4u << 20;
};

// Header values as received; an empty view means the header was absent.
struct mcp_http_request {
  std::string_view method;            // "POST", "GET", "DELETE", ...
  std::string_view authorization;     // Authorization
  std::string_view origin;            // Origin
  std::string_view accept;            // Accept
  std::string_view content_type;      // Content-Type
  std::string_view protocol_version;  // MCP-Protocol-Version
  std::string_view body;
};

struct mcp_http_reply {
  int status = 200;
  std::string content_type;  // "application/json", or empty with an empty body (202)
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // WWW-Authenticate, Allow
};

// A granted tools/call for the glue to run.
struct mcp_tool_call {
  std::string id_json;         // the JSON-RPC id as JSON text, echoed in the reply
  std::string name;            // canonical `mcp__<server>__<tool>`
  std::string tool;            // as the client called it (the tool part)
  std::string arguments_json;  // a JSON object ({} when the client sent none)
  std::string app_id;          // from the grant
  std::string run_id;
};

struct mcp_decision {
  mcp_http_reply reply;               // write this now, unless `call` is set
  std::optional<mcp_tool_call> call;  // run it, then write `mcp_tool_result_reply(*call, ...)`
};

// Checks in order: Origin (403), bearer token (401 + WWW-Authenticate: Bearer), HTTP method
// (405 + Allow: POST; GET streams and DELETE of sessions are not offered), body size (413),
// Accept must admit application/json (406), Content-Type when present must be application/json
// (415), JSON (-32700, 400), one JSON-RPC object (-32600, 400; batches too), MCP-Protocol-Version
// on anything but `initialize` (400, -32000). Then notifications and client responses get 202;
// initialize, ping, tools/list, tools/call are answered (-32602 for bad params or a tool not
// granted to this turn on this server); any other method gets -32601. `initialize` marks the
// grant connected for `options.server_name`.
[[nodiscard]] mcp_decision handle_mcp_request(const mcp_server_options& options, mcp_grants& grants,
                                              const mcp_http_request& request);

// The tools/call result: `content: [{type: "text", text}]`, plus `isError: true` when the tool
// failed (a result, not a JSON-RPC error, so the model can read it and correct itself).
// Invalid UTF-8 in `text` becomes U+FFFD.
[[nodiscard]] mcp_http_reply mcp_tool_result_reply(const mcp_tool_call& call, std::string_view text, bool is_error);

}  // namespace platform
