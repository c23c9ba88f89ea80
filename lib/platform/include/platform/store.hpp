#pragma once
// The document store (spec "Resources and their fields"): users, workspaces and memberships,
// apps, builder runs (the spec's collection agent_runs, kept in the table builder_runs) with
// their per-runtime session states and usage. The web server talks only to this interface;
// implementations live beside the core (SQLite, the embedded default, and PostgreSQL for
// several web replicas) and pass one shared test suite.
//
// Every state change that two web replicas could race on is one conditional update in the
// database, never read-modify-write in C++: the streaming claim, the end of a turn, usage
// increments. Time is passed in (milliseconds since the epoch), so stores need no clock.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/app_agent_run_store.hpp"
#include "platform/app_data_store.hpp"
#include "platform/audit_store.hpp"
#include "platform/preview_store.hpp"
#include "platform/release_store.hpp"
#include "platform/budget_store.hpp"
#include "platform/routine_store.hpp"
#include "platform/version_store.hpp"
#include "platform/builder_run.hpp"
#include "platform/error.hpp"
#include "platform/governance_store.hpp"
#include "platform/integration_store.hpp"
#include "platform/page.hpp"
#include "platform/usage.hpp"

namespace platform {

enum class workspace_role : unsigned char { viewer, collaborator, admin, owner };
std::string_view to_string(workspace_role r);
std::optional<workspace_role> workspace_role_from(std::string_view s);

struct user_record {
  std::string id;
  std::string email;
  std::string name;
};

struct workspace_summary {
  std::string id;
  std::string name;
  workspace_role role = workspace_role::viewer;  // the asking user's
};

struct member_record {
  user_record user;
  workspace_role role = workspace_role::viewer;
};

struct app_record {
  std::string id;
  std::string workspace_id;
  std::string name;
  std::string created_by;           // user id of the app's creator (a role of its own)
  std::string runtime_id;           // persisted runtime settings ("" = registry default)
  std::string runtime_model;
  std::string runtime_params_json = "{}";
  std::int64_t created_at = 0;
};

// {workspaceId, appId, runId}: a run is never loaded by its id alone (spec "Errors" 12).
struct run_key {
  std::string workspace_id;
  std::string app_id;
  std::string run_id;
};

// ProviderSessionState of one runtime, plus how many persisted UI messages it covers.
struct provider_session_state_record {
  std::string state_json;           // {"runtimeId","sessionId","data","format","metadata"}
  std::int64_t covered_messages = 0;
};

struct builder_run_record {
  run_key key;
  run_status status = run_status::pending;
  std::string messages_json = "[]";  // UIMessage array (AI SDK format)
  std::int64_t message_count = 0;
  std::optional<std::string> active_stream_id;
  std::string run_reason;            // "" or "app_tool_failure"
  std::optional<run_usage> usage;    // null until the first turn's increment
  std::optional<std::string> provider_session_state_json;  // the latest ProviderSessionState
  std::map<std::string, provider_session_state_record> runtime_session_states;
  std::string claim_token;           // holder of the streaming claim ("" when not streaming)
  std::int64_t lease_until = 0;      // the claim holder renews this while it streams
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  std::string stop_reason;           // why the last turn was stopped: "", "user" (user_stop.hpp),
                                     // "runtime_not_ready" (runtime_readiness.hpp)
  std::string stop_message;          // that reason as a person reads it, when it has one
};

// What store::delete_app did.
enum class app_deletion : unsigned char {
  deleted,
  not_found,
  builder_turn_streaming,  // refused: a builder run of the app is streaming
  agent_run_active,        // refused: an app agent run of the app is running or streaming
};

struct app_listing {
  app_record app;
  std::optional<builder_run_record> latest_run;  // projected: no messages or session states
};

// What a viewer needs to attach to a run's stream, without its messages.
struct run_stream_state {
  run_status status = run_status::pending;
  std::optional<std::string> active_stream_id;
};

struct claim_request {
  std::int64_t incoming_messages = 0;
  std::string claim_token;  // unique per attempt; later calls prove the claim with it
  std::int64_t now = 0;
  std::int64_t lease_until = 0;
  // The client's messages, persisted with a won claim: a page loaded while the turn streams
  // shows the message that started it, and a turn that dies keeps it.
  std::optional<std::string> messages_json;
};

struct turn_end {
  run_status status = run_status::completed;  // completed or failed
  std::optional<std::string> messages_json;   // final UI messages; nullopt keeps history
  std::int64_t message_count = 0;
  std::int64_t now = 0;
  std::string stop_reason;  // "", "user" or "runtime_not_ready" (builder_run_record)
  std::string stop_message;
};

// Store failures: `store_unavailable` (connection, I/O), `store_conflict` (an id taken),
// `store_corrupt` (a row the store cannot read back), `store_invalid` (bad argument).
class store {
 public:
  virtual ~store() = default;

  // ---- identities ------------------------------------------------------------------------
  virtual result<void> put_user(const user_record& u) = 0;  // insert or update
  virtual result<std::optional<user_record>> get_user(std::string_view user_id) = 0;
  virtual result<void> put_workspace(std::string_view workspace_id, std::string_view name, std::int64_t now) = 0;
  virtual result<bool> workspace_exists(std::string_view workspace_id) = 0;
  virtual result<void> set_membership(std::string_view workspace_id, std::string_view user_id, workspace_role role) = 0;
  virtual result<std::optional<workspace_role>> membership(std::string_view workspace_id, std::string_view user_id) = 0;
  // Takes a person out of the workspace, with the OAuth accounts they connected to its apps
  // (their tokens must not act for an app they can no longer open). False when not a member.
  virtual result<bool> remove_membership(std::string_view workspace_id, std::string_view user_id) = 0;
  // A new workspace and its owner, in one transaction. store_conflict when the id is taken.
  virtual result<void> create_workspace(std::string_view workspace_id, std::string_view name,
                                        std::string_view owner_user_id, std::int64_t now) = 0;
  virtual result<std::vector<workspace_summary>> workspaces_of(std::string_view user_id) = 0;
  virtual result<std::vector<member_record>> members(std::string_view workspace_id) = 0;

  // ---- apps --------------------------------------------------------------------------------
  virtual result<void> create_app(const app_record& app) = 0;  // store_conflict when taken
  virtual result<std::optional<app_record>> get_app(std::string_view workspace_id, std::string_view app_id) = 0;
  // Name and runtime settings of an existing app; false when there is no such app.
  virtual result<bool> update_app(const app_record& app) = 0;
  // Deletes the app and every row of it, in one transaction: builder runs with their usage and
  // session states, app agent runs, both data scopes, source snapshots, approval, publication,
  // reviews, previews and each build no other app's preview shows, integration secrets,
  // requirements, the app's own OAuth accounts and connect states, tool audit events and
  // repair guards. Refused with nothing changed while a builder turn streams or an app agent
  // run runs: they would go on writing rows of an app that is gone.
  virtual result<app_deletion> delete_app(std::string_view workspace_id, std::string_view app_id) = 0;
  // The workspace's apps, newest first, each with its latest builder run (messages, session
  // states and per-model usage left out): a sidebar's rows and their repair badge.
  virtual result<std::vector<app_listing>> list_apps(std::string_view workspace_id, const list_page& page) = 0;

  // ---- builder runs (spec collection agent_runs, table builder_runs) -------------------------
  // Creates a pending run with no messages; `run.key.app_id` must name an app of that
  // workspace (store_invalid otherwise); store_conflict when the run id is taken.
  virtual result<void> create_builder_run(const builder_run_record& run) = 0;
  virtual result<std::optional<builder_run_record>> get_builder_run(const run_key& key) = 0;
  // An app's builder runs, newest first, without messages, session states or per-model usage.
  virtual result<std::vector<builder_run_record>> list_builder_runs(std::string_view workspace_id,
                                                                    std::string_view app_id,
                                                                    const list_page& page) = 0;
  // One indexed read: the resume path and the liveness checks of waiting viewers.
  virtual result<std::optional<run_stream_state>> builder_run_stream(const run_key& key) = 0;

  // The streaming claim, atomically (builder_run.hpp's classify_claim rule). On `claimed`
  // the run is streaming under `claim_token` with no active stream yet.
  virtual result<claim_outcome> claim_builder_run(const run_key& key, const claim_request& claim) = 0;
  // These succeed (true) only while `claim_token` still holds the claim; false means the
  // claim was lost (e.g. stale stream recovery failed the run meanwhile).
  virtual result<bool> set_active_stream(const run_key& key, std::string_view claim_token,
                                         std::string_view stream_id, std::int64_t now) = 0;
  virtual result<bool> renew_lease(const run_key& key, std::string_view claim_token, std::int64_t lease_until) = 0;
  // Ends the turn: status, final messages, active stream and claim cleared.
  virtual result<bool> end_turn(const run_key& key, std::string_view claim_token, const turn_end& end) = 0;

  // Adds one turn's usage by increment (totals and per model), atomically as a whole.
  virtual result<void> add_usage(const run_key& key, const run_usage& turn) = 0;
  // Stores a runtime's ProviderSessionState and makes it the run's latest.
  virtual result<void> save_provider_session_state(const run_key& key, std::string_view runtime_id,
                                                   const provider_session_state_record& state) = 0;

  // Runs of a workspace that are streaming (catch-up events for a new workspace viewer).
  virtual result<std::vector<builder_run_record>> streaming_builder_runs(std::string_view workspace_id) = 0;
  // Stale stream recovery: fails every streaming run whose lease ended before `now` (its
  // web process or worker died) and returns them, so the caller publishes run.failed.
  virtual result<std::vector<run_key>> fail_expired_claims(std::int64_t now) = 0;

  // ---- companion stores ----------------------------------------------------------------------
  virtual app_data_store& app_data() = 0;      // collections and documents, draft/published scopes
  virtual governance_store& governance() = 0;  // source snapshots, agents approval, publish
  virtual app_agent_run_store& app_agent_runs() = 0;  // app agent runs (app_agent_runs)
  virtual integration_store& integrations() = 0;  // grants, secrets, OAuth providers and accounts
  virtual audit_store& audit() = 0;            // tool audit events, repair loop guard
  virtual preview_store& previews() = 0;       // preview builds by digest, each app's current preview
  virtual version_store& versions() = 0;       // each app's versions, files stored by content
  virtual release_store& releases() = 0;       // each app's releases: what every publish made live
  virtual budget_store& budgets() = 0;         // limits and the spend ledger (budget_store.hpp)
  virtual routine_store& routines() = 0;       // scheduled and webhook agents (routine_store.hpp)
};

}  // namespace platform
