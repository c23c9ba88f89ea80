#pragma once
// The closed set of error codes of the platform: every code an `error` value carries and every
// code the HTTP routes of platform-web and platform-worker answer with in the error body of the
// design notes ({"error": {"code", "message"}}), each with the one HTTP status a route answers
// when that error ends the request. The table is in api_error.cpp; docs/http-api.md lists it.
// The Integration tool result's errorCode values (integration_tool_result.hpp) and the
// validators' violation codes (agents_validation.hpp) are sets of their own.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

enum class api_error : unsigned char {
  // the request
  invalid_body,
  invalid_cursor,
  invalid_limit,
  invalid_path,
  invalid_messages,
  invalid_cron,
  invalid_timezone,
  invalid_json,
  invalid_utf8,
  too_deep,
  number_out_of_range,
  duplicate_key,
  too_large,
  body_too_large,
  length_required,
  method_not_allowed,
  http_error,
  unsupported_media_type,
  // who is asking
  unauthenticated,
  invalid_token,
  token_expired,
  invalid_preview_token,
  preview_token_expired,
  forbidden,
  invalid_run_capability,
  invalid_signature,
  signature_expired,
  cross_site_request,
  host_not_allowed,
  // what is addressed
  not_found,
  agent_not_found,
  tool_not_found,
  data_not_found,
  no_build,
  // state conflicts
  conflict,
  no_draft,
  draft_changed,
  not_approved,
  approval_stale,
  not_published,
  not_pending,
  review_pending,
  not_streaming,
  not_running,
  app_busy,
  budget_exhausted,
  webhook_replayed,
  routine_off,
  run_finished,
  run_exists,
  workspace_missing,
  workspace_stale,
  build_changed,
  version_conflict,
  collection_full,
  store_conflict,
  // app data
  invalid_scope,
  invalid_collection,
  invalid_document_id,
  invalid_data,
  document_too_large,
  collection_not_declared,
  // tools and approvals
  tool_not_approved,
  tool_disabled,
  agents_invalid,
  invalid_config,
  approval_invalid,
  not_agents_document,
  unknown_hash_scheme,
  invalid_setup,
  repair_not_started,
  // runtime settings
  unknown_runtime,
  unknown_model,
  unknown_param,
  invalid_param_value,
  unsupported_param_value,
  // provider setup
  unknown_key,
  invalid_key,
  // integrations and OAuth
  invalid_state,
  oauth_denied,
  oauth_provider_error,
  oauth_provider_invalid,
  oauth_token_refused,
  oauth_token_failed,
  secrets_key_missing,
  secret_unreadable,
  crypto_failed,
  invalid_secrets_key,
  // storage and the cache store
  store_unavailable,
  store_invalid,
  store_corrupt,
  store_failed,
  cache_unavailable,
  replay_not_found,
  replay_exists,
  replay_complete,
  replay_store_full,
  replay_head_too_large,
  private_file_unwritable,
  // workers, runtimes, workspaces
  worker_unreachable,
  worker_bad_reply,
  worker_stream_broken,
  worker_draining,
  worker_busy,
  runtime_not_available,
  runtime_not_ready,
  opencode_models_failed,
  opencode_models_error,
  spawn_failed,
  sandbox_unavailable,
  sandbox_invalid,
  egress_refused,
  stdin_closed,
  node_unavailable,
  template_unavailable,
  workspace_unavailable,
  workspace_incomplete,
  snapshot_too_large,
  file_too_large,
  build_too_large,
  web_unreachable,
  web_error,
  token_unavailable,
  peer_failure,
  // the builder's tools (MCP)
  invalid_arguments,
  invalid_tool_name,
  invalid_input_schema,
  invalid_annotations,
  duplicate_tool,
  duplicate_token,
  invalid_spec,
  invalid_name,
  unsupported_source,
  missing_version,
  not_exact_version,
  app_packages_invalid,
  npm_failed,
  npm_unavailable,
  // HTTP actions and custom tools (their own results carry the Integration tool result codes)
  invalid_url,
  invalid_host,
  scheme_not_allowed,
  userinfo_not_allowed,
  invalid_network,
  invalid_allow_rule,
  invalid_options,
  invalid_tls_config,
  invalid_request,
  invalid_body_json,
  placeholder_empty,
  placeholder_invalid_path,
  placeholder_unclosed,
  insecure_redirect,
  dns_failed,
  timeout,
  // runtime transcripts and logins
  usage_invalid_field,
  usage_invalid_json,
  invalid_catalog,
  invalid_login,
  refresh_failed,
  // bugs
  internal,
};

struct api_error_info {
  std::string_view code;     // snake_case, as on the wire
  int status;                // the HTTP status of a reply that ends with it
  std::string_view meaning;  // one line for docs/http-api.md
};

const api_error_info& info_of(api_error e);
inline std::string_view code_of(api_error e) { return info_of(e).code; }
inline int status_of(api_error e) { return info_of(e).status; }

// The code named `code`, if it is one of the set.
std::optional<api_error> api_error_named(std::string_view code);

// The code as on the wire: its row's name, or the peer's code it relays.
inline std::string_view code_name(const error& e) { return e.relayed.empty() ? code_of(e.code) : std::string_view(e.relayed); }
// The same as a C string, for logs (both are NUL-terminated).
inline const char* code_c_str(const error& e) { return e.relayed.empty() ? code_of(e.code).data() : e.relayed.c_str(); }
// The HTTP status of a reply that ends with `e`: its row's.
inline int status_of(const error& e) { return status_of(e.code); }

// Whether `e` carries `code`.
inline bool is(const error& e, api_error code) { return e.code == code; }

// Whether `e` is the document store's failure (unavailable, invalid, corrupt, failed or a write
// conflict): a route answers it as the store's, not as its own.
inline bool is_store_failure(const error& e) {
  for (api_error code : {api_error::store_unavailable, api_error::store_invalid, api_error::store_corrupt,
                         api_error::store_failed, api_error::store_conflict}) {
    if (is(e, code)) return true;
  }
  return false;
}

// A failure of the set's row `code`: the only way the core, the adapters and the servers make
// one of their own.
inline error error_of(api_error code, std::string message) { return error{code, std::move(message)}; }
inline tl::unexpected<error> fail(api_error code, std::string message) {
  return tl::unexpected<error>(error_of(code, std::move(message)));
}

// A failure whose code arrived as text from a peer (a worker's error body), passed on as it
// came: its row when it names one, else peer_failure relaying the text.
error relayed_error(std::string_view code, std::string message);
inline tl::unexpected<error> fail_relayed(std::string_view code, std::string message) {
  return tl::unexpected<error>(relayed_error(code, std::move(message)));
}

// A worker's refusal that carried no code of its own: worker_http_<status> (a 502 here).
inline tl::unexpected<error> fail_worker_http(int status, std::string message) {
  return fail_relayed("worker_http_" + std::to_string(status), std::move(message));
}

// Every row, in enum order.
std::span<const api_error_info> api_error_table();

}  // namespace platform
