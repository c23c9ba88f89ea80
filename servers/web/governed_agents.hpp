#pragma once
// Governed agents (spec "Agent config approval") as the other route modules need them: the
// agents.json of a scope with its approval status, whether tools may run, the source files of
// a scope for agent runs, and the approved policy a run of a scope enforces.
//
// Rules: the draft is what creators and collaborators see and what draft runs start from;
// custom HTTP tools, app actions and agent data tools of the draft run only while the draft's
// v1 semantic hash equals the approved hash (otherwise the approval is stale). The published
// app runs the payload that was approved when it was published.
#include <optional>
#include <string>
#include <string_view>

#include "platform/agents_config.hpp"
#include "platform/error.hpp"
#include "platform/governance_store.hpp"
#include "platform/store.hpp"
#include "worker_client.hpp"

namespace platform::web {

struct web_app;

enum class approval_status : unsigned char { none, approved, stale };
std::string_view to_string(approval_status s);

struct agents_view {
  source_scope scope = source_scope::draft;
  std::optional<std::string> text;           // agents.json as stored; nullopt when the file is missing
  std::optional<agents_config> config;       // set when the text is a valid agents.json
  violations problems;                       // why it is not (file_missing, invalid_json, ...)
  std::optional<std::string> hash;           // v1 hash of `text` (nullopt: missing or not hashable)
  approval_status status = approval_status::none;
  // Draft scope: the latest approval; published scope: the approval that was published.
  std::optional<agents_approval> approval;
  std::optional<agents_publication> publication;
};

// The agents.json of `scope` with validation and approval status. Store failures only.
result<agents_view> load_agents(web_app& app, std::string_view ws, std::string_view app_id, source_scope scope);

// Whether custom HTTP tools, app actions and agent data tools may run for `scope`: draft → an
// approval exists and the draft's hash equals it (not stale); published → the app was published.
result<bool> tools_allowed(web_app& app, std::string_view ws, std::string_view app_id,
                           source_scope scope = source_scope::draft);

// Every file of the scope's snapshot (agent runs get them as sourceFiles).
result<source_files> source_files_of(web_app& app, std::string_view ws, std::string_view app_id, source_scope scope);

// The approved policy a run of `scope` enforces (tool-execute checks the tool against it):
// draft → the current approval's normalized payload, only while it is not stale;
// published → the published payload. nullopt when there is none (or stale).
struct approved_policy {
  std::string hash;
  std::string payload_json;  // normalized agents.json
  agents_config config;
};
result<std::optional<approved_policy>> approved_payload(web_app& app, std::string_view ws, std::string_view app_id,
                                                        source_scope scope);

// Makes the draft snapshot the builder workspace's current text files (after every builder
// turn: the builder, a file edit or a shell command may have changed agents.json). Returns
// false when the worker holds no workspace for the app (the draft is kept). Errors: the
// worker's (worker_unreachable, snapshot_too_large, ...) and the store's.
// `files` gets the snapshot when there is one (the turn's version is made of it).
result<bool> sync_draft_from_worker(store& db, const worker_client& worker, std::string_view ws,
                                    std::string_view app_id, std::int64_t now, std::string_view capability,
                                    source_files* files = nullptr);

}  // namespace platform::web
