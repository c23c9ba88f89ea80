#pragma once
// Budgets on the web server (issue 37; docs/budgets.md): the admission of a run, each step's
// reservation and stop decision, the settling at a run's end, the 80 % warnings, and the
// routes that read and set limits. The rules are the core's (platform/budget.hpp); this is
// their I/O. A store that cannot be reached never stops a run that is going (its recorded
// usage still counts when it ends); it does refuse nothing either (logged).
#include <optional>
#include <string_view>

#include "adapters/cache_store.hpp"
#include "platform/budget.hpp"
#include "platform/budget_store.hpp"
#include "route_call.hpp"

namespace platform {
class store;
}

namespace platform::web {

// One run's budget while it runs: its limits, read once at its start, and its ledger entry.
struct run_spend {
  spend_entry_key entry;
  run_budget limits;
  spend so_far;  // the last estimate reported
};

// The limits a run of `kind` of the app is bound by.
result<run_budget> run_budget_for(store& db, std::string_view ws, std::string_view app_id, budget_run_kind kind);
// 409 budget_exhausted (a sentence naming who can raise it) when a budget is spent.
result<run_spend> admit_run(store& db, spend_entry_key entry);

// A step's estimate: reserved in the ledger, warned about at 80 %, and the stop when a limit
// is reached.
std::optional<budget_stop> spend_step(store& db, cache_store& cache, run_spend& run, const run_usage& so_far);
// The run's end: its recorded usage (or, without one, its last estimate) settles its entry.
void settle_run(store& db, cache_store& cache, run_spend& run, const std::optional<run_usage>& recorded);

namespace budget_routes {

void get_workspace_budget(web_app& app, const route_call& call, httplib::Response& res);
void put_workspace_budget(web_app& app, const route_call& call, httplib::Response& res);
void get_app_budget(web_app& app, const route_call& call, httplib::Response& res);
void put_app_budget(web_app& app, const route_call& call, httplib::Response& res);
// The worker's report of an app agent run's spend so far: {"stop": false} or
// {"stop": true, "stopReason": "budget", "message"}.
void agent_run_spend(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace budget_routes

}  // namespace platform::web
