#pragma once
// Budgets in the store (issue 37; docs/budgets.md): each workspace's limits, each app's
// overrides, and the spend ledger. Every run (a builder turn, an app agent run) has one entry:
// its estimate while it runs (the reservation, raised per step), settled by its recorded usage
// when it ends. Settled and in-flight entries both count toward the month, so every replica
// sees runs in flight; an entry whose run died keeps its last estimate, which is what it spent
// as far as anyone knows. Reserving and reading the month are one transaction under the
// workspace's budget lock, so two replicas never both read a month without the other's step.
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/budget.hpp"
#include "platform/error.hpp"

namespace platform {

// One run's ledger entry. `entry_id` is unique in the workspace: the builder turn's message
// id, or the app agent run's id.
struct spend_entry_key {
  std::string workspace_id;
  std::string app_id;
  std::string entry_id;
  std::string run_id;
  budget_run_kind kind = budget_run_kind::builder_turn;
};

// Failures as in store.hpp: store_unavailable, store_conflict, store_corrupt, store_invalid.
class budget_store {
 public:
  virtual ~budget_store() = default;

  // No row yet: no limits.
  virtual result<budget_settings> settings(std::string_view workspace_id) = 0;
  virtual result<void> put_settings(std::string_view workspace_id, const budget_settings& s, std::int64_t now) = 0;
  virtual result<app_budget_overrides> app_overrides(std::string_view workspace_id, std::string_view app_id) = 0;
  virtual result<void> put_app_overrides(std::string_view workspace_id, std::string_view app_id,
                                         const app_budget_overrides& o, std::int64_t now) = 0;

  // The spend of entries that started in [month_start, month_start's month end): the
  // workspace's, and `app_id`'s (zero for an empty app id).
  virtual result<month_spend> month(std::string_view workspace_id, std::string_view app_id, std::int64_t month_start) = 0;
  // Raises the entry's estimate to `so_far` (creating it at `now`; never lowering it, never
  // touching a settled one) and returns the month the entry is counted in, with it.
  virtual result<month_spend> reserve(const spend_entry_key& key, const spend& so_far, std::int64_t now) = 0;
  // The run ended: its recorded spend replaces the estimate (created at `now` if the run
  // never reserved). Returns the entry's month, as reserve does.
  virtual result<month_spend> settle(const spend_entry_key& key, const spend& recorded, std::int64_t now) = 0;
  // True the first time it is called for (workspace, `budget` key, month): the warning at 80 %
  // goes out once a month per budget, whichever replica sees it first.
  virtual result<bool> first_warning(std::string_view workspace_id, std::string_view budget, std::int64_t month_start) = 0;
};

}  // namespace platform
