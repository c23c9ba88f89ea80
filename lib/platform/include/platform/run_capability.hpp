#pragma once
// The second wall on the internal routes (issue 32): a leaked INTERNAL_API_TOKEN, or a worker
// that is no longer trustworthy, must not act on any run it was not given. When the web hands a
// run (a builder turn or an app-agent run) to a worker, it gives that run a capability bound by
// HMAC-SHA256 to {kind, workspaceId, appId, runId}; every internal call about the run carries it
// (header X-Run-Capability) and the web checks it against the tuple the call's body names. It
// needs no storage: any replica holding the secrets key recomputes it, and it is worth nothing
// once the run has ended (the web checks the run's state beside it).
//
//   capability = "rc1." + hex(HMAC-SHA256(key, kind "\n" workspaceId "\n" appId "\n" runId))
//
// `key` is the web's own (derived from its secrets key); the worker never learns it, so it can
// repeat a capability it was given but not make one.
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

inline constexpr std::string_view run_capability_header = "X-Run-Capability";
inline constexpr std::size_t run_capability_max_size = 200;

enum class run_kind { builder_turn, agent_run };

struct run_tuple {
  run_kind kind = run_kind::builder_turn;
  std::string_view workspace_id;
  std::string_view app_id;
  std::string_view run_id;
};

std::string run_capability(std::string_view key, const run_tuple& run);

// Errors: `invalid_run_capability` (missing, malformed, or made for another run or kind).
// Compared in constant time.
result<void> verify_run_capability(std::string_view key, std::string_view capability, const run_tuple& run);

// Whether `offered` is `expected`, in constant time: the worker's check on its per-app routes,
// which holds the capability the web gave it rather than the key.
bool same_run_capability(std::string_view expected, std::string_view offered) noexcept;

}  // namespace platform
