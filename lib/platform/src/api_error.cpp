#include "platform/api_error.hpp"

#include "platform/code_table.hpp"

namespace platform {
namespace {

using row = code_row<api_error, api_error_info>;

// clang-format off
constexpr row rows[] = {
    // the request
    {api_error::invalid_body, {"invalid_body", 400, "The body is not what the route takes (fields, types, sizes)."}},
    {api_error::invalid_cursor, {"invalid_cursor", 400, "A list or stream cursor is malformed."}},
    {api_error::invalid_limit, {"invalid_limit", 400, "A page limit is out of range."}},
    {api_error::invalid_path, {"invalid_path", 400, "A workspace file path is absolute, escapes the workspace or is not allowed."}},
    {api_error::invalid_messages, {"invalid_messages", 400, "The chat's messages are not valid UI messages."}},
    {api_error::invalid_cron, {"invalid_cron", 400, "A routine's schedule is not a five-field cron expression (minute hour day-of-month month day-of-week)."}},
    {api_error::invalid_timezone, {"invalid_timezone", 400, "A routine's time zone is not a zone of the time zone database (e.g. Europe/Paris, UTC)."}},
    {api_error::invalid_json, {"invalid_json", 400, "A JSON document does not parse."}},
    {api_error::invalid_utf8, {"invalid_utf8", 400, "A JSON string holds ill-formed UTF-8 or an unpaired surrogate escape."}},
    {api_error::too_deep, {"too_deep", 400, "A JSON value nests deeper than its limit."}},
    {api_error::number_out_of_range, {"number_out_of_range", 400, "A JSON number is outside the range of a double."}},
    {api_error::duplicate_key, {"duplicate_key", 400, "A JSON object repeats a key."}},
    {api_error::too_large, {"too_large", 413, "A JSON value is larger than its limit."}},
    {api_error::body_too_large, {"body_too_large", 413, "The request body is larger than the server takes."}},
    {api_error::length_required, {"length_required", 411, "A request body came without a Content-Length (chunked)."}},
    {api_error::method_not_allowed, {"method_not_allowed", 405, "A preview origin serves files only (GET, HEAD)."}},
    {api_error::http_error, {"http_error", 400, "cpp-httplib refused the request itself (its status is kept)."}},
    {api_error::unsupported_media_type, {"unsupported_media_type", 415, "A body was not sent as Content-Type: application/json."}},
    // who is asking
    {api_error::unauthenticated, {"unauthenticated", 401, "No identity: sign in."}},
    {api_error::invalid_token, {"invalid_token", 401, "The identity, preview or broker token is not valid."}},
    {api_error::token_expired, {"token_expired", 401, "The token has expired."}},
    {api_error::invalid_preview_token, {"invalid_preview_token", 403, "The preview link is not one of this app's."}},
    {api_error::preview_token_expired, {"preview_token_expired", 403, "The preview link expired: reload the builder page."}},
    {api_error::forbidden, {"forbidden", 403, "The caller's role does not allow it."}},
    {api_error::invalid_run_capability, {"invalid_run_capability", 403, "The internal call does not carry the capability of the run it names."}},
    {api_error::invalid_signature, {"invalid_signature", 401, "A routine's webhook request has no valid X-Platform-Signature for its body and secret."}},
    {api_error::signature_expired, {"signature_expired", 401, "A routine's webhook request was signed more than the replay window (300 s) from now."}},
    {api_error::cross_site_request, {"cross_site_request", 403, "The request came from another site or origin."}},
    {api_error::host_not_allowed, {"host_not_allowed", 421, "Without sign-in the server answers only to a loopback host name."}},
    // what is addressed
    {api_error::not_found, {"not_found", 404, "No such workspace, app, run, review, secret or provider for this caller."}},
    {api_error::agent_not_found, {"agent_not_found", 404, "No such agent in the approved agents.json."}},
    {api_error::tool_not_found, {"tool_not_found", 404, "No such app action in the approved appTools."}},
    {api_error::data_not_found, {"data_not_found", 404, "No such document in the collection."}},
    {api_error::no_build, {"no_build", 409, "The app has no build yet (to publish or preview)."}},
    // state conflicts
    {api_error::conflict, {"conflict", 409, "The request conflicts with the resource (the owner's role)."}},
    {api_error::no_draft, {"no_draft", 409, "The app has no draft to approve, review or publish."}},
    {api_error::draft_changed, {"draft_changed", 409, "The draft changed since it was shown or reviewed."}},
    {api_error::not_approved, {"not_approved", 409, "agents.json was never approved: publishing and its tools wait for an approval."}},
    {api_error::approval_stale, {"approval_stale", 409, "agents.json changed since its approval: publishing and its tools wait for a new one."}},
    {api_error::not_published, {"not_published", 403, "The app has not been published, so its tools cannot run."}},
    {api_error::not_pending, {"not_pending", 409, "The review was decided already."}},
    {api_error::review_pending, {"review_pending", 409, "A review of this app is already waiting."}},
    {api_error::not_streaming, {"not_streaming", 409, "The builder run has no turn to stop."}},
    {api_error::not_running, {"not_running", 409, "The app agent run has ended already."}},
    {api_error::app_busy, {"app_busy", 409, "A builder turn of the app is streaming or an app agent run of it is running: stop it or let it end, then retry."}},
    {api_error::budget_exhausted, {"budget_exhausted", 409, "The app's or the workspace's monthly budget is spent: a workspace admin can raise it."}},
    {api_error::webhook_replayed, {"webhook_replayed", 409, "A routine's webhook request repeats a signature already used: nothing was started."}},
    {api_error::routine_off, {"routine_off", 409, "The routine is switched off (after 5 failed runs in a row, or by an admin): switch it on first."}},
    {api_error::run_finished, {"run_finished", 409, "The acting run has ended."}},
    {api_error::run_exists, {"run_exists", 409, "The worker already holds that app agent run."}},
    {api_error::workspace_missing, {"workspace_missing", 409, "The worker has no workspace for the app (restore it and retry)."}},
    {api_error::workspace_stale, {"workspace_stale", 409, "The worker's workspace is older than the app's draft (restore it and retry)."}},
    {api_error::build_changed, {"build_changed", 409, "The preview build changed while it was read."}},
    {api_error::version_conflict, {"version_conflict", 409, "The document changed since the version the write names."}},
    {api_error::collection_full, {"collection_full", 409, "The collection holds its maximum number of documents."}},
    {api_error::store_conflict, {"store_conflict", 409, "A concurrent write won."}},
    // app data
    {api_error::invalid_scope, {"invalid_scope", 400, "scope is neither draft nor published."}},
    {api_error::invalid_collection, {"invalid_collection", 400, "A collection name breaks the name rules."}},
    {api_error::invalid_document_id, {"invalid_document_id", 400, "A document id breaks the id rules."}},
    {api_error::invalid_data, {"invalid_data", 400, "A document's data is not a JSON object within the limits."}},
    {api_error::document_too_large, {"document_too_large", 413, "A document is larger than the limit."}},
    {api_error::collection_not_declared, {"collection_not_declared", 403, "The agent did not declare that collection."}},
    // tools and approvals
    {api_error::tool_not_approved, {"tool_not_approved", 403, "The tool is not in the approved payload for this agent."}},
    {api_error::tool_disabled, {"tool_disabled", 403, "The tool is switched off on the agents page."}},
    {api_error::agents_invalid, {"agents_invalid", 422, "agents.json is invalid."}},
    {api_error::invalid_config, {"invalid_config", 422, "A document (agents.json, the server's settings) is invalid."}},
    {api_error::approval_invalid, {"approval_invalid", 422, "The stored approval does not parse."}},
    {api_error::not_agents_document, {"not_agents_document", 422, "The payload to hash is not an agents.json object."}},
    {api_error::unknown_hash_scheme, {"unknown_hash_scheme", 422, "The approval hash has an unknown schema version."}},
    {api_error::invalid_setup, {"invalid_setup", 422, "integration-setup.json is invalid."}},
    {api_error::repair_not_started, {"repair_not_started", 502, "The builder repair run could not be started."}},
    // runtime settings
    {api_error::unknown_runtime, {"unknown_runtime", 400, "No such runtime."}},
    {api_error::unknown_model, {"unknown_model", 400, "The runtime has no such model."}},
    {api_error::unknown_param, {"unknown_param", 400, "The runtime has no such parameter."}},
    {api_error::invalid_param_value, {"invalid_param_value", 400, "A parameter's value is outside its constraints."}},
    {api_error::unsupported_param_value, {"unsupported_param_value", 400, "The model does not support that parameter value."}},
    // provider setup
    {api_error::unknown_key, {"unknown_key", 400, "No such provider key name."}},
    {api_error::invalid_key, {"invalid_key", 400, "The provider key is malformed."}},
    // integrations and OAuth
    {api_error::invalid_state, {"invalid_state", 400, "Unknown, used or expired OAuth state."}},
    {api_error::oauth_denied, {"oauth_denied", 400, "The person denied the OAuth consent."}},
    {api_error::oauth_provider_error, {"oauth_provider_error", 502, "The OAuth provider answered with an error."}},
    {api_error::oauth_provider_invalid, {"oauth_provider_invalid", 502, "The OAuth provider's answer is malformed."}},
    {api_error::oauth_token_refused, {"oauth_token_refused", 502, "The OAuth provider refused the token request."}},
    {api_error::oauth_token_failed, {"oauth_token_failed", 502, "The OAuth token request failed."}},
    {api_error::secrets_key_missing, {"secrets_key_missing", 503, "No secrets key is configured for sealed values."}},
    {api_error::secret_unreadable, {"secret_unreadable", 500, "A sealed value does not open with the secrets key."}},
    {api_error::crypto_failed, {"crypto_failed", 500, "OpenSSL failed."}},
    {api_error::invalid_secrets_key, {"invalid_secrets_key", 500, "The secrets key is malformed."}},
    // storage and the cache store
    {api_error::store_unavailable, {"store_unavailable", 503, "The database is unreachable."}},
    {api_error::store_invalid, {"store_invalid", 503, "The database rejected a statement."}},
    {api_error::store_corrupt, {"store_corrupt", 503, "A stored record does not parse."}},
    {api_error::store_failed, {"store_failed", 500, "A worker-local file store failed."}},
    {api_error::cache_unavailable, {"cache_unavailable", 503, "The cache store is unreachable."}},
    {api_error::replay_not_found, {"replay_not_found", 503, "The replay buffer is gone (its cache store restarted)."}},
    {api_error::replay_exists, {"replay_exists", 503, "A replay buffer with that id exists."}},
    {api_error::replay_complete, {"replay_complete", 503, "The replay buffer is complete already."}},
    {api_error::replay_store_full, {"replay_store_full", 503, "The cache store holds its maximum of replay buffers."}},
    {api_error::replay_head_too_large, {"replay_head_too_large", 503, "The replay head is larger than its limit."}},
    {api_error::private_file_unwritable, {"private_file_unwritable", 500, "A private file could not be written."}},
    // workers, runtimes, workspaces
    {api_error::worker_unreachable, {"worker_unreachable", 502, "The worker is unreachable."}},
    {api_error::worker_bad_reply, {"worker_bad_reply", 502, "The worker's answer is malformed."}},
    {api_error::worker_stream_broken, {"worker_stream_broken", 502, "The worker's stream ended before [DONE]."}},
    {api_error::worker_draining, {"worker_draining", 503, "The worker is draining: use another."}},
    {api_error::worker_busy, {"worker_busy", 503, "The worker holds its maximum of app agent runs."}},
    {api_error::runtime_not_available, {"runtime_not_available", 503, "The runtime's CLI is not installed or not usable."}},
    {api_error::runtime_not_ready, {"runtime_not_ready", 409, "The runtime has no credentials for the chosen model."}},
    {api_error::opencode_models_failed, {"opencode_models_failed", 502, "runtime-c's model listing failed."}},
    {api_error::opencode_models_error, {"opencode_models_error", 502, "runtime-c's model listing is malformed."}},
    {api_error::spawn_failed, {"spawn_failed", 503, "A process could not be started."}},
    {api_error::sandbox_unavailable, {"sandbox_unavailable", 503, "The agent sandbox cannot be started on this worker."}},
    {api_error::sandbox_invalid, {"sandbox_invalid", 500, "A sandbox's rules are not well formed."}},
    {api_error::egress_refused, {"egress_refused", 400, "A sandboxed CLI's request to its model provider breaks the egress proxy's rules."}},
    {api_error::stdin_closed, {"stdin_closed", 503, "A process closed its input."}},
    {api_error::node_unavailable, {"node_unavailable", 503, "Node.js is not available for the build."}},
    {api_error::template_unavailable, {"template_unavailable", 503, "The app workspace template is missing."}},
    {api_error::workspace_unavailable, {"workspace_unavailable", 503, "The workspace could not be prepared."}},
    {api_error::workspace_incomplete, {"workspace_incomplete", 503, "The workspace lacks what the build needs."}},
    {api_error::snapshot_too_large, {"snapshot_too_large", 413, "The workspace's source snapshot is larger than its limit."}},
    {api_error::file_too_large, {"file_too_large", 413, "A workspace file is larger than its limit."}},
    {api_error::build_too_large, {"build_too_large", 413, "The preview build is larger than its limit."}},
    {api_error::web_unreachable, {"web_unreachable", 502, "The worker cannot reach platform-web."}},
    {api_error::web_error, {"web_error", 502, "platform-web refused the worker's request."}},
    {api_error::token_unavailable, {"token_unavailable", 503, "The broker has no token for the turn."}},
    {api_error::peer_failure, {"peer_failure", 502, "A worker failed with a code outside this set (worker_http_<status> when its refusal carried none); its code is passed on as it came."}},
    // the builder's tools (MCP)
    {api_error::invalid_arguments, {"invalid_arguments", 400, "A tool call's arguments are not what the tool takes."}},
    {api_error::invalid_tool_name, {"invalid_tool_name", 400, "A tool name breaks the name rules."}},
    {api_error::invalid_input_schema, {"invalid_input_schema", 500, "A tool's input schema is malformed."}},
    {api_error::invalid_annotations, {"invalid_annotations", 500, "A tool's annotations are malformed."}},
    {api_error::duplicate_tool, {"duplicate_tool", 500, "Two tools share a name."}},
    {api_error::duplicate_token, {"duplicate_token", 500, "Two turns share a broker token."}},
    {api_error::invalid_spec, {"invalid_spec", 400, "A package spec is not allowed."}},
    {api_error::invalid_name, {"invalid_name", 400, "A package name is not allowed."}},
    {api_error::unsupported_source, {"unsupported_source", 400, "A package source is not the registry."}},
    {api_error::missing_version, {"missing_version", 400, "A package is given without a version."}},
    {api_error::not_exact_version, {"not_exact_version", 400, "A package version is a range, a tag or partial."}},
    {api_error::app_packages_invalid, {"app_packages_invalid", 400, "package.json or package-lock.json breaks the rules for app packages."}},
    {api_error::npm_failed, {"npm_failed", 502, "npm failed."}},
    {api_error::npm_unavailable, {"npm_unavailable", 503, "npm is not available to install app packages."}},
    // HTTP actions and custom tools (their own results carry the Integration tool result codes)
    {api_error::invalid_url, {"invalid_url", 400, "A URL is not an absolute http(s) URL."}},
    {api_error::invalid_host, {"invalid_host", 400, "A URL's host is malformed."}},
    {api_error::scheme_not_allowed, {"scheme_not_allowed", 400, "A URL's scheme is not http or https."}},
    {api_error::userinfo_not_allowed, {"userinfo_not_allowed", 400, "A URL carries user information."}},
    {api_error::invalid_network, {"invalid_network", 500, "An address range in the settings is malformed."}},
    {api_error::invalid_allow_rule, {"invalid_allow_rule", 500, "An allow rule in the settings is malformed."}},
    {api_error::invalid_options, {"invalid_options", 500, "The HTTP executor's settings are invalid."}},
    {api_error::invalid_tls_config, {"invalid_tls_config", 500, "The HTTP executor's TLS settings are invalid."}},
    {api_error::invalid_request, {"invalid_request", 400, "The HTTP request to make is malformed."}},
    {api_error::invalid_body_json, {"invalid_body_json", 400, "A placeholder-filled body is not JSON."}},
    {api_error::placeholder_empty, {"placeholder_empty", 400, "A placeholder names nothing."}},
    {api_error::placeholder_invalid_path, {"placeholder_invalid_path", 400, "A placeholder's path is malformed."}},
    {api_error::placeholder_unclosed, {"placeholder_unclosed", 400, "A placeholder is not closed."}},
    {api_error::insecure_redirect, {"insecure_redirect", 502, "A redirect leaves https or the allowed hosts."}},
    {api_error::dns_failed, {"dns_failed", 502, "A host name did not resolve."}},
    {api_error::timeout, {"timeout", 504, "The endpoint did not answer in time."}},
    // runtime transcripts and logins
    {api_error::usage_invalid_field, {"usage_invalid_field", 500, "A usage record has a field of the wrong type."}},
    {api_error::usage_invalid_json, {"usage_invalid_json", 500, "A usage record is not JSON."}},
    {api_error::invalid_catalog, {"invalid_catalog", 502, "runtime-c's catalog is malformed."}},
    {api_error::invalid_login, {"invalid_login", 400, "The Claude login file is malformed."}},
    {api_error::refresh_failed, {"refresh_failed", 502, "The Claude login could not be refreshed."}},
    // bugs
    {api_error::internal, {"internal", 500, "The server failed on this request."}},
};
// clang-format on

constexpr code_table table(rows, api_error::internal);

}  // namespace

const api_error_info& info_of(api_error e) { return table[e]; }

std::optional<api_error> api_error_named(std::string_view code) { return table.named(code); }

error relayed_error(std::string_view code, std::string message) {
  if (auto e = api_error_named(code)) return error{*e, std::move(message)};
  return error{api_error::peer_failure, std::move(message), std::string(code.substr(0, 100))};
}

std::span<const api_error_info> api_error_table() { return table.rows(); }

}  // namespace platform
