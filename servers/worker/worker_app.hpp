#pragma once
// What the worker's route handlers share: its configuration, the builder sessions, the
// runtimes, the MCP broker, the app-agent runs, and the counts /health reports.
#include <atomic>
#include <cstdint>

#include "agent_runs.hpp"
#include "app_capabilities.hpp"
#include "broker.hpp"
#include "deleted_apps.hpp"
#include "running_turns.hpp"
#include "sessions.hpp"
#include "worker_config.hpp"
#include "worker_registry.hpp"

namespace platform::worker {

struct worker_app {
  config& cfg;
  session_table& sessions;
  worker_registry& registry;
  broker& brk;
  agent_run_table& agent_runs;
  app_capabilities capabilities{};
  deleted_apps deleted{};  // refused on every /sessions/{app} route from their deletion on
  running_turns running{};  // the builder turns streaming now, for a user's stop  // each app's latest builder turn's, for the per-app routes
  std::atomic<std::uint64_t> turns_started{0};  // tests count runtime queries
  std::atomic<std::uint64_t> agent_runs_started{0};
  // Draining (docs/operations.md, "Several workers"): the operator is taking this worker away.
  // It finishes its turns and agent runs and refuses new ones, so the web servers send them to
  // the app's next worker; /health says so, and how much still runs.
  std::atomic<bool> draining{false};
  std::atomic<std::int64_t> turns_running{0};
};

}  // namespace platform::worker
