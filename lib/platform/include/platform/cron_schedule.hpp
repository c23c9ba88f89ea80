#pragma once
// A routine's schedule (issue 37; docs/routines.md): a five-field cron expression read in a
// time zone. Fields: minute (0-59), hour (0-23), day of month (1-31), month (1-12 or JAN-DEC),
// day of week (0-7 or SUN-SAT, 0 and 7 both Sunday). Each field is `*`, a number, a range
// `a-b`, any of those with a step `/n`, or a comma list of them. When both day fields are
// restricted a day matches either (as cron has always done).
//
// Local times are the zone's: a time the clock skips (a spring-forward gap) fires once at the
// end of the gap, and a time the clock passes twice (a fall-back fold) fires once, the first
// time. Sans-I/O: the zone's offsets come in as zone_rules.
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"
#include "platform/zone_rules.hpp"

namespace platform {

struct cron_schedule {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days;      // 1-31
  std::bitset<13> months;    // 1-12
  std::bitset<7> weekdays;   // 0 = Sunday
  bool any_day = true;       // the day-of-month field is `*`
  bool any_weekday = true;   // the day-of-week field is `*`
  std::string text;          // the expression, its fields joined by single spaces
};

// `invalid_cron`, with a message naming the field and what is wrong with it.
result<cron_schedule> parse_cron(std::string_view expression);

// The first firing strictly after `after_ms` (Unix ms), as a Unix ms instant on a whole
// minute; nullopt when none falls within the next five years (e.g. 30 February).
std::optional<std::int64_t> next_fire(const cron_schedule& s, const zone_rules& zone, std::int64_t after_ms);

// The calendar date of a day number (days since 1970-01-01) and back; the week day (0 Sunday).
struct civil_date {
  int year = 1970;
  unsigned month = 1;
  unsigned day = 1;
};
civil_date civil_of(std::int64_t days);
std::int64_t days_of(const civil_date& d);
unsigned weekday_of(std::int64_t days);

}  // namespace platform
