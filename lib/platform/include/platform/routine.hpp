#pragma once
// Routines (issue 37; docs/routines.md): an app agent that runs on its published schedule or
// on its webhook, as the app's routine. The rules, sans-I/O: when a due schedule fires, when
// it is skipped (its previous run still going), when a routine is switched off (5 failures in
// a row), and what its next firing is. The store makes each firing happen once across
// replicas (a claim of the tick); the web server does the I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/cron_schedule.hpp"

namespace platform {

// A routine's runs fail this many times in a row, and it is switched off until an admin
// switches it on again.
inline constexpr int routine_failure_limit = 5;

// How a routine's run was started, as its record says.
enum class routine_trigger : unsigned char { schedule, webhook };
std::string_view to_string(routine_trigger t);

struct routine_state {
  bool enabled = true;
  std::int64_t consecutive_failures = 0;
  std::optional<std::int64_t> next_fire_at;  // schedules: the tick due next (Unix ms)
  bool run_active = false;                   // its last run has not ended
};

enum class tick_action : unsigned char {
  wait,  // not due, or switched off
  fire,  // start a run for this tick
  skip,  // due, but the previous run is still going: the tick is recorded as skipped
};

// At `now`. A schedule that missed several ticks (no replica ran) fires once, not once per
// missed tick; either way the next tick is the first after `now`.
tick_action on_tick(const routine_state& s, std::int64_t now);

// The tick after `now` for the routine's schedule, nullopt when it never fires again.
std::optional<std::int64_t> next_tick(const cron_schedule& s, const zone_rules& zone, std::int64_t now);

struct run_end_effect {
  std::int64_t consecutive_failures = 0;
  bool switch_off = false;  // this failure was the limit's: switch off, an event and a banner
};
// A run of the routine ended (a skipped tick is not a run).
run_end_effect on_run_end(const routine_state& s, bool failed);

// The input of a webhook's run: the trigger's prompt, then the request's JSON body (already
// bounded and redacted by the caller).
std::string webhook_run_prompt(std::string_view trigger_prompt, std::string_view body_json);

}  // namespace platform
