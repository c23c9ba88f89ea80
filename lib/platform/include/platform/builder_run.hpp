#pragma once
// Builder run rules (spec "States and transitions: Builder run", "Chat POST rules" 2 and
// "Errors" 1): who may claim a run for streaming, and how a finished turn ends it. Pure
// functions; every store encodes the same claim rule in one conditional update, and uses
// classify_claim() only to explain a claim it did not win.
#include <cstdint>
#include <optional>
#include <string_view>

namespace platform {

enum class run_status : unsigned char { pending, streaming, completed, failed };

std::string_view to_string(run_status s);
std::optional<run_status> run_status_from(std::string_view s);

enum class claim_outcome : unsigned char {
  claimed,    // the caller now streams the run
  duplicate,  // someone streams it already: the caller answers with an empty stream
  stale,      // a shorter or equal message list than persisted: history is kept
  not_found,  // no such run under {workspaceId, appId, runId}
};

std::string_view to_string(claim_outcome c);

// The claim rule for a chat POST carrying `incoming_messages` UI messages.
//   pending                      → claimed (the first message)
//   completed|failed, longer list → claimed (the conversation continues)
//   completed|failed, otherwise   → stale
//   streaming                    → duplicate
claim_outcome classify_claim(run_status current, std::int64_t persisted_messages, std::int64_t incoming_messages);

// What the bridge saw of a turn, as far as the end state depends on it.
struct turn_evidence {
  bool approval_stop = false;            // a valid present_plan / present_agents returned
  bool done_building_succeeded = false;  // a successful done_building snapshot
  bool errored = false;                  // worker stream failure or an error result
  bool stopped_by_user = false;
  bool wrote_files = true;               // the turn may have changed the workspace
};

// A worker failure or a user stop fails the run. Otherwise an approval stop or a successful
// done_building snapshot completes it, and an implementation (a turn that may have written
// files) that stopped without either fails it (spec "Builder run" state table). A turn that
// only talked (no file-writing tool ran) completes: there is nothing to build.
run_status turn_end_status(const turn_evidence& e);

}  // namespace platform
