#pragma once
// Tool audit events and the repair loop guard (spec "Automatic tool failure recovery",
// internal tool-failure-report: "records an audit event with compact metadata and hashes"):
// the companion store of the web server's tool routes. Events hold ids, codes and hashes only,
// never the report's text, inputs, provider bodies or secrets.
//
// The loop guard is beyond the spec: the same failure fingerprint may start only a bounded
// number of builder repair runs per window, so a repair that does not fix the failure cannot
// start repair after repair. Admission is one conditional upsert, so replicas racing on the
// same fingerprint never admit more than the bound.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct audit_event {
  std::string id;
  std::string workspace_id;
  std::string app_id;
  std::string kind;                  // "tool_failure_report"
  std::string actor;                 // "user:<id>" (app action) or "agent_run:<runId>" (agent tool)
  std::string tool_name;
  std::string fingerprint;           // hex sha256 of app, tool, errorCode, endpoint
  std::string outcome;               // "repair_started", "loop_guard", "repair_failed"
  std::string builder_run_id;        // the repair run, "" when none was started
  std::string metadata_json = "{}";  // compact: codes, hashes, sizes
  std::int64_t created_at = 0;
};

struct repair_admission {
  std::string workspace_id;
  std::string app_id;
  std::string fingerprint;
  std::int64_t now = 0;
  std::int64_t window_ms = 0;  // a window opens with the first admitted repair
  std::int64_t max_runs = 0;   // admitted repairs per window
};

// Failures as in store.hpp: store_unavailable, store_conflict, store_corrupt, store_invalid.
class audit_store {
 public:
  virtual ~audit_store() = default;

  virtual result<void> record(const audit_event& e) = 0;
  // The app's latest events, newest first (at most `limit`, 1-200).
  virtual result<std::vector<audit_event>> recent(std::string_view workspace_id, std::string_view app_id,
                                                  int limit) = 0;
  // True when one more repair run may start for the fingerprint (and counts it); false when
  // the window's bound is reached.
  virtual result<bool> admit_repair(const repair_admission& a) = 0;
};

}  // namespace platform
