#pragma once
// The worker's app-agent run endpoints (spec "Worker endpoints"): start a run in the
// background and answer at once; stream a run's buffered then live messages to a viewer.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agent_runs.hpp"
#include "broker.hpp"
#include "worker_config.hpp"
#include "worker_registry.hpp"

namespace platform::worker {

// POST /sessions/{appId}__agent__{runId}/agent-run. 202 {status: "started", runId}; the run
// goes on in the background and posts the completion callback when it ends.
void start_agent_run(const config& cfg, worker_registry& registry, broker& brk, agent_run_table& table,
                     std::atomic<std::uint64_t>& started, const std::string& key, const nlohmann::json& body,
                     httplib::Response& res);

// GET /sessions/{key}/agent-run/{runId}/events: SSE of the run's worker messages, buffered
// first then live, `data: [DONE]` after the last; keep-alive comments while idle.
// GET .../agent-run/{runId}: {"runId", "status": "running"|"completed"|"failed"}, or 404 when
// this worker does not hold the run (it restarted, or the run was evicted): the web server's
// recovery of runs whose worker lost them.
void agent_run_status(agent_run_table& table, const std::string& key, const std::string& run_id, httplib::Response& res);

// POST .../agent-run/{runId}/stop: 202 while the run's runtime is being ended (the run then
// fails with "Stopped by the user." and its callback is posted), 409 `not_running` when it ended,
// 404 when this worker does not hold it.
void stop_agent_run(agent_run_table& table, const std::string& key, const std::string& run_id, httplib::Response& res);

void follow_agent_run(agent_run_table& table, const std::string& key, const std::string& run_id,
                      std::chrono::milliseconds heartbeat, httplib::Response& res);

}  // namespace platform::worker
