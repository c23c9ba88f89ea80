#pragma once
// runtime-b: one turn of the real `codex app-server`, driven over stdio JSON-RPC (initialize,
// thread/start or thread/resume, turn/start), its notifications turned into worker messages by
// the core's runtime-b normalizer. The thread is the session; its rollout file is what another
// worker restores. Builder turns in local development keep the app's process warm between
// turns; production and app-agent runs use one process per turn. docs/runtime-b.md.
#include <cstdint>
#include <memory>
#include <string>

#include "runtime_turn.hpp"

namespace platform::worker {

// Errors: `runtime_not_available` (codex missing or it did not start), `spawn_failed`,
// `workspace_unavailable`.
result<std::unique_ptr<runtime_turn>> start_runtime_b_turn(const config& cfg, const turn_request& req);

// codex app-server processes this worker started (for /health).
std::uint64_t codex_processes_started();

// Ends the app's warm process, if one waits: a deleted app's thread (and the HOME holding its
// rollout) must not outlive it by the idle minutes.
void end_warm_runtime_b(const std::string& app_id);

}  // namespace platform::worker
