// Routine schedules (issue 37): cron expressions read and refused, the calendar, and the next
// firing in a zone, across a spring-forward gap and a fall-back fold. The zone here is a fixed
// rule with Europe/Paris's 2027 transitions, so the core is tested without a zone database.
#include <doctest/doctest.h>

#include "platform/api_error.hpp"
#include "platform/cron_schedule.hpp"

namespace cron_schedule_test {

using namespace platform;

namespace {

constexpr std::int64_t spring = 1806195600;  // 2027-03-28T01:00:00Z: 02:00 CET becomes 03:00 CEST
constexpr std::int64_t autumn = 1824944400;  // 2027-10-31T01:00:00Z: 03:00 CEST becomes 02:00 CET

class paris_2027 final : public zone_rules {
 public:
  [[nodiscard]] std::int64_t offset_at(std::int64_t utc) const override { return utc >= spring && utc < autumn ? 7200 : 3600; }
  [[nodiscard]] const std::string& name() const override { return name_; }

 private:
  std::string name_ = "Paris 2027";
};

std::int64_t utc_ms(int y, unsigned mo, unsigned d, int h, int mi) {
  return (days_of({y, mo, d}) * 86400 + h * 3600 + mi * 60) * 1000;
}

}  // namespace

TEST_CASE("cron: fields, ranges, steps, lists and names; bad expressions name the field") {
  auto s = parse_cron("  0  8 * *   mon-FRI ");
  REQUIRE(s);
  CHECK(s->text == "0 8 * * mon-FRI");
  CHECK(s->minutes.count() == 1);
  CHECK(s->hours[8]);
  CHECK(s->weekdays.count() == 5);
  CHECK_FALSE(s->weekdays[0]);
  auto steps = parse_cron("*/15 9-17/2 1,15 JAN,jul 0,7");
  REQUIRE(steps);
  CHECK(steps->minutes.count() == 4);
  CHECK(steps->hours.count() == 5);  // 9 11 13 15 17
  CHECK(steps->days.count() == 2);
  CHECK(steps->months[1]);
  CHECK(steps->months[7]);
  CHECK(steps->weekdays.count() == 1);  // 0 and 7 are both Sunday
  CHECK(parse_cron("5/20 * * * *")->minutes.count() == 3);  // 5 25 45
  for (const char* bad : {"0 8 * *", "0 8 * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 8",
                          "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *", "* * 30 2 *", "* * * FOO *", ""}) {
    auto r = parse_cron(bad);
    CAPTURE(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == platform::api_error::invalid_cron);
  }
  CHECK(parse_cron("60 * * * *").error().message == "the minute field has 60, outside 0-59");
  CHECK(parse_cron("0 8 * *").error().message.find("five fields") != std::string::npos);
}

TEST_CASE("the calendar: day numbers and dates both ways, week days") {
  CHECK(days_of({1970, 1, 1}) == 0);
  CHECK(weekday_of(0) == 4);  // a Thursday
  CHECK(weekday_of(-1) == 3);
  for (std::int64_t d : {-800000LL, -1LL, 0LL, 59LL, 11016LL, 20789LL, 2932896LL}) {
    CHECK(days_of(civil_of(d)) == d);
  }
  auto leap = civil_of(days_of({2028, 2, 29}));
  CHECK(leap.year == 2028);
  CHECK(leap.month == 2);
  CHECK(leap.day == 29);
  CHECK(days_of({2027, 3, 1}) - days_of({2027, 2, 28}) == 1);
  CHECK(weekday_of(days_of({2026, 12, 7})) == 1);  // a Monday
}

TEST_CASE("next firing: weekdays at 08:00 in the zone, strictly after, on whole minutes") {
  paris_2027 z;
  auto s = parse_cron("0 8 * * 1-5").value();
  // Friday 2026-12-04 09:00Z (10:00 local) -> Monday 2026-12-07 08:00 local = 07:00Z.
  CHECK(next_fire(s, z, utc_ms(2026, 12, 4, 9, 0)) == utc_ms(2026, 12, 7, 7, 0));
  // At the firing itself: the next one, not the same.
  CHECK(next_fire(s, z, utc_ms(2026, 12, 7, 7, 0)) == utc_ms(2026, 12, 8, 7, 0));
  CHECK(next_fire(s, z, utc_ms(2026, 12, 7, 7, 0) - 1) == utc_ms(2026, 12, 7, 7, 0));
  // In summer the same local time is an hour earlier in UTC.
  CHECK(next_fire(s, z, utc_ms(2027, 6, 1, 0, 0)) == utc_ms(2027, 6, 1, 6, 0));
  fixed_zone utc;
  CHECK(next_fire(parse_cron("* * * * *").value(), utc, utc_ms(2026, 12, 2, 18, 0) + 1) == utc_ms(2026, 12, 2, 18, 1));
}

TEST_CASE("a time the clock skips fires once when the gap ends; a time it passes twice fires once, the first time") {
  paris_2027 z;
  auto half_past_two = parse_cron("30 2 * * *").value();
  // 2027-03-28: 02:30 local does not exist; it fires at 03:00 CEST = 01:00Z, once.
  CHECK(next_fire(half_past_two, z, utc_ms(2027, 3, 27, 12, 0)) == spring * 1000);
  CHECK(next_fire(half_past_two, z, spring * 1000) == utc_ms(2027, 3, 29, 0, 30));
  auto every_quarter = parse_cron("*/15 2 * * *").value();
  CHECK(next_fire(every_quarter, z, utc_ms(2027, 3, 27, 12, 0)) == spring * 1000);
  CHECK(next_fire(every_quarter, z, spring * 1000) == utc_ms(2027, 3, 29, 0, 0));
  // 2027-10-31: 02:30 local comes at 00:30Z (CEST) and again at 01:30Z (CET): only the first.
  CHECK(next_fire(half_past_two, z, utc_ms(2027, 10, 30, 12, 0)) == utc_ms(2027, 10, 31, 0, 30));
  CHECK(next_fire(half_past_two, z, utc_ms(2027, 10, 31, 0, 30)) == utc_ms(2027, 11, 1, 1, 30));
}

TEST_CASE("both day fields restricted: a day matching either fires") {
  fixed_zone utc;
  auto s = parse_cron("0 0 13 * 5").value();  // the 13th, and every Friday
  // From Monday 2026-12-07: Friday the 11th, then Sunday the 13th, then Friday the 18th.
  CHECK(next_fire(s, utc, utc_ms(2026, 12, 7, 0, 0)) == utc_ms(2026, 12, 11, 0, 0));
  CHECK(next_fire(s, utc, utc_ms(2026, 12, 11, 0, 0)) == utc_ms(2026, 12, 13, 0, 0));
  CHECK(next_fire(s, utc, utc_ms(2026, 12, 13, 0, 0)) == utc_ms(2026, 12, 18, 0, 0));
  // 29 February: four years on at most.
  CHECK(next_fire(parse_cron("0 0 29 2 *").value(), utc, utc_ms(2028, 3, 1, 0, 0)) == utc_ms(2032, 2, 29, 0, 0));
}

}  // namespace cron_schedule_test
