// Issue 37's parsers on arbitrary bytes: cron expressions (and their next firing on a zone with
// a gap and a fold), webhook signature headers, budget limits and a worker's step usage and closing lines (the closing line survives its own
// writer).
// Contract: never crashes; an accepted cron reads back to itself and fires strictly later, on a
// whole minute; a signature is accepted only when it is the one sign_webhook makes; accepted
// limits round-trip their wire form.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/api_error.hpp"
#include "platform/budget.hpp"
#include "platform/cron_schedule.hpp"
#include "platform/webhook_signature.hpp"
#include "platform/worker_message.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

class folding_zone final : public platform::zone_rules {
 public:
  [[nodiscard]] std::int64_t offset_at(std::int64_t utc) const override { return utc >= 1806195600 && utc < 1824944400 ? 7200 : 3600; }
  [[nodiscard]] const std::string& name() const override { return name_; }

 private:
  std::string name_ = "fuzz";
};

void check_cron(std::string_view input) {
  auto s = platform::parse_cron(input);
  if (!s) {
    check(s.error().code == platform::api_error::invalid_cron);
    return;
  }
  auto again = platform::parse_cron(s->text);
  check(again.has_value() && again->text == s->text);
  folding_zone z;
  const std::int64_t after = 1806000000000;  // before the gap of the zone above
  auto next = platform::next_fire(*s, z, after);
  if (next) check(*next > after && *next % 60000 == 0);
}

void check_signature(std::string_view input) {
  const std::string secret = "whsec_fuzz";
  const std::string body = "{\"a\":1}";
  auto v = platform::verify_webhook(secret, input, body, 1800000000);
  if (v) check(platform::sign_webhook(secret, v->t, body).find(v->signature) != std::string::npos);
  auto own = platform::sign_webhook(secret, 1800000000, input);
  check(platform::verify_webhook(secret, own, input, 1800000000).has_value());
}

void check_budget(std::string_view input) {
  if (auto s = platform::budget_settings_from_json(input)) {
    auto back = platform::budget_settings_from_json(platform::budget_settings_to_json(*s));
    check(back.has_value() && *back == *s);
  }
  if (auto o = platform::app_budget_overrides_from_json(input)) {
    auto back = platform::app_budget_overrides_from_json(platform::app_budget_overrides_to_json(*o));
    check(back.has_value() && *back == *o);
  }
  (void)platform::worker_message::step_usage_of(input);
}

void check_turn_end(std::string_view input) {
  namespace wm = platform::worker_message;
  auto end = wm::turn_end_of(input);
  if (!end) return;
  std::string line;
  wm::turn_end_line(line, *end);
  line.pop_back();
  auto back = wm::turn_end_of(line);
  check(back.has_value() && back->workspace_changed == end->workspace_changed && back->build_digest == end->build_digest);
  if (end->session_state_json.size() <= wm::turn_end_max_session_bytes) check(back->session_state_json == end->session_state_json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_cron(input);
  check_signature(input);
  check_budget(input);
  check_turn_end(input);
  return 0;
}
