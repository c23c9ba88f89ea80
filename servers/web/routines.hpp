#pragma once
// Routines on the web server (issue 37; docs/routines.md): an app's published agents with
// triggers, kept in the store at every publish and rollback; their runs, started by the
// scheduler (routine_scheduler.hpp) or a signed webhook, in the published scope, as the
// approver of the published agents.json; each run's end counted (5 failures in a row switch the
// routine off); and the routes that show and manage them.
#include <optional>
#include <string>

#include "platform/routine.hpp"
#include "platform/routine_store.hpp"
#include "route_call.hpp"

namespace platform {
struct agents_approval;
}

namespace platform::web {

// Makes the app's routines the published approval's (none when it has no triggers). Logged on
// failure: the publish stands.
void sync_routines(web_app& app, std::string_view ws, std::string_view app_id);

// The first tick after `now` of a schedule in its zone (the zone database's), or the problem.
std::optional<std::int64_t> first_tick(const schedule_trigger& s, std::int64_t now, std::string& problem);

// Creates (unless it exists) and starts (unless started) the routine's run `run_id`, with
// `prompt` as its input, in the published scope, triggered by `trigger` and acting as the
// routine's approver. Budgets apply (409 budget_exhausted).
result<void> start_routine_run(web_app& app, const routine_record& r, const std::string& run_id, routine_trigger trigger,
                               const std::string& prompt);

// A run of a routine ended: its failures counted, a switch-off published.
void routine_run_ended(web_app& app, const agent_run_summary& run, bool failed);

// The webhook secret of a routine (derived, never stored): what the sender signs with.
std::string webhook_secret(const web_app& app, const routine_record& r);

namespace routine_routes {

void list_routines(web_app& app, const route_call& call, httplib::Response& res);
void set_routine_enabled(web_app& app, const route_call& call, httplib::Response& res);
void reveal_webhook_secret(web_app& app, const route_call& call, httplib::Response& res);
void rotate_webhook_secret(web_app& app, const route_call& call, httplib::Response& res);
// POST /api/hooks/{routine}: anyone who holds the secret; 202 {"runId"}.
void receive_webhook(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace routine_routes

}  // namespace platform::web
