// Routine rules.
#include "platform/routine.hpp"

namespace platform {

std::string_view to_string(routine_trigger t) { return t == routine_trigger::schedule ? "schedule" : "webhook"; }

tick_action on_tick(const routine_state& s, std::int64_t now) {
  if (!s.enabled || !s.next_fire_at || *s.next_fire_at > now) return tick_action::wait;
  return s.run_active ? tick_action::skip : tick_action::fire;
}

std::optional<std::int64_t> next_tick(const cron_schedule& s, const zone_rules& zone, std::int64_t now) {
  return next_fire(s, zone, now);
}

run_end_effect on_run_end(const routine_state& s, bool failed) {
  if (!failed) return {0, false};
  run_end_effect e;
  e.consecutive_failures = s.consecutive_failures + 1;
  e.switch_off = s.enabled && e.consecutive_failures >= routine_failure_limit;
  return e;
}

std::string webhook_run_prompt(std::string_view trigger_prompt, std::string_view body_json) {
  std::string out(trigger_prompt);
  if (!out.empty()) out += "\n\n";
  out += "The webhook's request body (JSON):\n";
  out += body_json;
  return out;
}

}  // namespace platform
