#pragma once
// App agent runs (spec "App agent run", collection app_agent_runs; "App agent trigger flow"):
// the companion store of the web server's agent-runs routes. A run is created pending with its
// server-resolved triggering user and the agent config resolved from the governing agents.json;
// the first start moves it to running; a viewer stream makes it streaming while its
// activeStreamId is set; the worker's completion callback ends it completed or failed.
//
// Every change two web replicas could race on is one conditional update: the start claim,
// the viewer stream's registration and release, the completion (the first one wins, so a
// retried callback changes nothing and publishes nothing). Runs are always addressed by
// {workspaceId, appId, runId}.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/page.hpp"

namespace platform {

struct run_key;  // store.hpp

enum class agent_run_status : unsigned char { pending, running, streaming, completed, failed };

inline std::string_view to_string(agent_run_status s) {
  switch (s) {
    case agent_run_status::pending: return "pending";
    case agent_run_status::running: return "running";
    case agent_run_status::streaming: return "streaming";
    case agent_run_status::completed: return "completed";
    case agent_run_status::failed: return "failed";
  }
  return "failed";
}

inline std::optional<agent_run_status> agent_run_status_from(std::string_view s) {
  for (auto st : {agent_run_status::pending, agent_run_status::running, agent_run_status::streaming,
                  agent_run_status::completed, agent_run_status::failed}) {
    if (to_string(st) == s) return st;
  }
  return std::nullopt;
}

// Ended runs never change again (the completion is written once).
inline bool is_finished(agent_run_status s) {
  return s == agent_run_status::completed || s == agent_run_status::failed;
}

// What list and status polling may see: no prompt, no transcript, no messages.
struct agent_run_summary {
  std::string workspace_id;
  std::string app_id;
  std::string run_id;
  std::string agent_id;
  std::string agent_name;
  agent_run_status status = agent_run_status::pending;
  bool draft = false;                      // draft data scope and draft agents.json
  std::string triggered_by_user_id;        // server-resolved, never from a request body
  std::string triggered_by_user_email;
  std::string triggered_by_user_name;
  std::optional<std::string> result_json;  // any JSON value; nullopt = null
  std::optional<std::string> error;
  std::optional<std::string> usage_json;   // RunUsage JSON; nullopt until completion
  std::optional<std::string> active_stream_id;
  std::optional<std::string> session_id;   // the runtime's session, once the run finished
  std::string stop_reason;                 // a failed run's why: "", "user", "budget" (budget.hpp)
  std::string routine_id;                  // a routine's run: the routine (routine_store.hpp); else ""
  std::string trigger;                     // and how it started: "schedule" or "webhook"
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  std::int64_t started_at = 0;             // 0 until the first start
  std::int64_t finished_at = 0;            // 0 until completion
};

// The whole run, for the server's own use (starting it on the worker, converting the
// transcript, the internal routes that act for it).
struct agent_run_record : agent_run_summary {
  std::string prompt;
  std::string system_prompt;               // the agent's, resolved at creation
  std::string agent_config_json = "{}";    // {"id","tools","dataCollections"}, resolved at creation
  std::string transcript_json = "[]";      // the worker's messages without stream deltas
  std::string messages_json = "[]";        // the transcript as AI SDK UIMessages
};

struct agent_run_completion {
  agent_run_status status = agent_run_status::completed;  // completed or failed
  std::optional<std::string> result_json;
  std::optional<std::string> error;
  std::optional<std::string> usage_json;
  std::string transcript_json = "[]";
  std::string messages_json = "[]";
  std::int64_t now = 0;
  std::optional<std::string> session_id;  // the runtime's, from the transcript's system init
  std::string stop_reason;                // "", "user", "budget"
};

// Failures as in store.hpp: store_unavailable, store_conflict, store_corrupt, store_invalid.
class app_agent_run_store {
 public:
  virtual ~app_agent_run_store() = default;

  // Inserts a pending run (status, stream and completion fields of `run` are ignored).
  // store_invalid when the app is not in that workspace; store_conflict when the id is taken.
  virtual result<void> create(const agent_run_record& run) = 0;
  virtual result<std::optional<agent_run_record>> get(const run_key& key) = 0;
  // One read of the projected columns only (status polling, viewers' liveness checks).
  virtual result<std::optional<agent_run_summary>> summary(const run_key& key) = 0;
  // An app's runs, newest first, as projected summaries; draft runs only with `with_draft`
  // (those who may read the draft).
  virtual result<std::vector<agent_run_summary>> list(std::string_view workspace_id, std::string_view app_id,
                                                      bool with_draft, const list_page& page) = 0;

  // pending → running. True only for the one caller that moved it: a second start is not an
  // error, it starts nothing.
  virtual result<bool> claim_start(const run_key& key, std::int64_t now) = 0;
  // Registers a viewer stream while the run is running or streaming and has none: the run is
  // streaming from then on. False when another stream holds it or the run is not live.
  virtual result<bool> set_active_stream(const run_key& key, std::string_view stream_id, std::int64_t now) = 0;
  // Clears the stream only if `stream_id` still holds it; a streaming run is running again.
  // The run itself goes on: a viewer's stream is transient.
  virtual result<bool> clear_active_stream(const run_key& key, std::string_view stream_id, std::int64_t now) = 0;
  // Ends the run with the worker's outcome. True for the first completion; false when the
  // run had ended already (a retried callback) — the caller then publishes nothing.
  virtual result<bool> finish(const run_key& key, const agent_run_completion& completion) = 0;
  // Runs of every workspace that started before `started_before` and have not ended, oldest
  // first, at most `limit`: the ones whose worker may have lost them.
  virtual result<std::vector<agent_run_summary>> unfinished(std::int64_t started_before, std::size_t limit) = 0;
};

}  // namespace platform
