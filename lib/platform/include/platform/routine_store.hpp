#pragma once
// Routines in the store (issue 37; docs/routines.md). Each published agent with triggers has
// one routine; publishing (or rolling back) replaces an app's routines with the published
// document's, keeping the id, the webhook secret and the failure count of an agent that
// stays. A schedule's tick is claimed with one conditional update (its next_fire_at moves from
// the tick to the next one), so across replicas exactly one claims it; the claim names the
// tick's run id, which is derived from the routine and the tick, so a replica that dies after
// claiming leaves a run any replica can create and start, once.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/agents_config.hpp"
#include "platform/error.hpp"

namespace platform {

// What the published document says of one agent's routine.
struct routine_spec {
  std::string agent_id;
  std::optional<schedule_trigger> schedule;
  std::optional<webhook_trigger> webhook;
};

struct routine_record {
  std::string id;  // "rtn_<hex>", also the webhook URL's
  std::string workspace_id;
  std::string app_id;
  std::string agent_id;
  std::optional<schedule_trigger> schedule;
  std::optional<webhook_trigger> webhook;
  bool enabled = true;
  std::int64_t consecutive_failures = 0;
  std::optional<std::int64_t> next_fire_at;  // a schedule's next tick (Unix ms)
  std::string problem;                       // why it cannot fire (an unknown zone); empty when fine
  std::string approved_by;                   // who approved the published document: the runs act as them
  std::string webhook_secret_sealed;         // sealed with the secrets key (secret_box); empty until made
  std::optional<std::string> last_run_id;
  std::int64_t last_fired_at = 0;
  std::string last_outcome;                  // "", "started", "skipped"
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
};

// Failures as in store.hpp.
class routine_store {
 public:
  virtual ~routine_store() = default;

  // Makes the app's routines the published document's `specs` (`approved_by` its approver).
  // `next_fire_at` gives each schedule's first tick after now (nullopt and a problem when it
  // cannot fire). Returns the routines as they are after.
  using first_tick_fn = std::optional<std::int64_t> (*)(const schedule_trigger&, std::int64_t now, std::string& problem);
  virtual result<std::vector<routine_record>> sync(std::string_view ws, std::string_view app, const std::vector<routine_spec>& specs,
                                                   const std::string& approved_by, first_tick_fn first_tick, std::int64_t now) = 0;
  virtual result<std::vector<routine_record>> list(std::string_view ws, std::string_view app) = 0;
  // By id alone: a webhook's URL names only the routine.
  virtual result<std::optional<routine_record>> get(std::string_view routine_id) = 0;
  // Switched-on schedules of every workspace whose tick is due at `now`, oldest tick first.
  virtual result<std::vector<routine_record>> due(std::int64_t now, std::size_t limit) = 0;
  // Routines whose last claim started a run at or before `claimed_before`: the runs a replica
  // that died after claiming may have left uncreated or unstarted.
  virtual result<std::vector<routine_record>> started_before(std::int64_t claimed_before, std::int64_t claimed_after,
                                                             std::size_t limit) = 0;

  // Claims tick `tick`: true for the one caller whose update moved next_fire_at from `tick` to
  // `next`, recording `outcome` ("started" with `run_id`, or "skipped").
  virtual result<bool> claim_tick(std::string_view routine_id, std::int64_t tick, std::optional<std::int64_t> next,
                                  std::string_view outcome, const std::optional<std::string>& run_id, std::int64_t now) = 0;
  // A webhook's run: recorded as the routine's last run.
  virtual result<void> record_webhook_run(std::string_view routine_id, std::string_view run_id, std::int64_t now) = 0;
  // A run of the routine ended: the count of failures in a row, and the switch-off at the
  // limit (routine.hpp). Returns whether this end switched it off.
  virtual result<bool> record_run_end(std::string_view routine_id, bool failed, std::int64_t now) = 0;
  virtual result<void> set_enabled(std::string_view routine_id, bool enabled, std::optional<std::int64_t> next_fire_at,
                                   std::int64_t now) = 0;
  virtual result<void> put_webhook_secret(std::string_view routine_id, std::string_view sealed, std::int64_t now) = 0;
  // Remembers a webhook signature until `expires_at`; false when it was seen already (a replay).
  virtual result<bool> first_use_of_signature(std::string_view routine_id, std::string_view signature, std::int64_t expires_at,
                                              std::int64_t now) = 0;
};

}  // namespace platform
