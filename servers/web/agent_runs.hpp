#pragma once
// App agent runs on the web server (spec "App agent run", "App agent trigger flow"): what the
// agent-runs routes and the internal completion callback do, apart from HTTP parsing.
//
// The worker owns a started run: nothing here waits for it or stops it. A viewer stream is
// separate from the run: the first viewer registers a replay buffer as the run's
// activeStreamId and pumps the worker's events through the bridge into it; later viewers
// replay-then-follow that buffer; when the owning viewer leaves, its pump stops reading the
// worker's events and the activeStreamId is cleared — the run goes on, and so do the other
// viewers, on the run's next stream at the event where they were.
#include <httplib.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json_fwd.hpp>

#include "platform/app_agent_run_store.hpp"
#include "platform/governance_store.hpp"
#include "platform/store.hpp"

namespace platform::web {

struct web_app;
struct caller;

// The agent a run of `draft` scope may start: its agents.json entry (raw JSON, tools passed
// to the worker as written) from the draft agents.json, or from the payload approved at
// publish time. Errors: `agent_not_found` (404), `agents_invalid` (422), store failures.
result<nlohmann::json> governed_agent(web_app& app, std::string_view ws, std::string_view app_id, bool draft,
                                      std::string_view agent_id);

// A pending run for `who`, its agent config resolved now.
agent_run_record new_agent_run(const run_key& key, const caller& who, const nlohmann::json& agent, bool draft,
                               std::string prompt);

// {"id","runId","workspaceId","appId","agentId","agentName","status","sourceVersion","draft",
//  "triggeredByUserId","result","error","usage","activeStreamId","createdAt","updatedAt","startedAt",
//  "finishedAt"}:
// never the prompt, the transcript or messages.
nlohmann::json agent_run_summary_json(const agent_run_summary& s);

struct start_outcome {
  bool started = false;  // false: the run was not pending (a second start starts nothing)
  agent_run_status status = agent_run_status::pending;
};

// pending → running, then POST agent-run to the worker (which answers at once). A worker that
// refuses or cannot be reached fails the run (run.failed) and the error is returned.
// `local_origin` is where this request came in, the callback origin without PLATFORM_WEB_URL.
result<start_outcome> start_agent_run(web_app& app, const run_key& key, const std::string& local_origin);

// A viewer stream: replay-then-follow the run's active stream, or become its owner; a
// finished run without one is served whole from its stored transcript; a pending run is 204.
void serve_agent_run_viewer(web_app& app, const run_key& key, std::uint64_t cursor, httplib::Response& res);

// The worker's completion callback body {workspaceId, appId, runId, status, result, error,
// usage, transcript}: stores the outcome and its UI messages and publishes the compact run
// event once. Returns false when the run had ended already (a retry: nothing changes).
// Errors: `not_found`, `invalid_body`, store failures.
result<bool> complete_agent_run(web_app& app, const nlohmann::json& body);

// A user's stop of an app agent run (the run fails with "Stopped by the user."): a pending run
// fails at once; a started one is stopped on its worker, whose callback then completes it.
enum class agent_stop_outcome { stopping, stopped, not_running };
result<agent_stop_outcome> stop_agent_run(web_app& app, const run_key& key, agent_run_status status);

// Fails the runs whose worker lost them (platform/agent_run_recovery.hpp), every
// `cfg.agent_run_check` on its own thread, until destroyed. Every replica runs one; the first
// to fail a run publishes its event.
class agent_run_recovery {
 public:
  explicit agent_run_recovery(web_app& app);
  ~agent_run_recovery();
  agent_run_recovery(const agent_run_recovery&) = delete;
  agent_run_recovery& operator=(const agent_run_recovery&) = delete;

  void check_once();

 private:
  web_app& app_;
  std::map<std::string, std::int64_t> unreachable_since_;  // run id -> first failed probe
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

// The data scope and governing payload of a run: draft runs use the draft.
source_scope run_scope(const agent_run_record& run);

// For the internal routes a runtime's tools call: the run of the body's {workspaceId, appId,
// runId} acting for the body's agentId. Otherwise the error is written (404 for a run of
// another app: it does not exist for the caller; 403 for another agent's run).
std::optional<agent_run_record> acting_run(web_app& app, const nlohmann::json& body, httplib::Response& res);

}  // namespace platform::web
