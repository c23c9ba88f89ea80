// The zone adapter over the system's zone database: the offsets the cron tests assume for
// Europe/Paris are the database's, UTC is zero, and an unknown name is a clear error.
#include <doctest/doctest.h>

#include "adapters/tz_zones.hpp"
#include "platform/api_error.hpp"
#include "platform/cron_schedule.hpp"

TEST_CASE("zones from the database: Europe/Paris's 2027 transitions, UTC, and an unknown name") {
  auto paris = platform::load_zone("Europe/Paris");
  REQUIRE(paris);
  CHECK((*paris)->offset_at(1806195600 - 1) == 3600);
  CHECK((*paris)->offset_at(1806195600) == 7200);
  CHECK((*paris)->offset_at(1824944400 - 1) == 7200);
  CHECK((*paris)->offset_at(1824944400) == 3600);
  CHECK((*paris)->name() == "Europe/Paris");
  CHECK(platform::load_zone("Europe/Paris").value() == *paris);  // looked up once
  CHECK(platform::load_zone("UTC").value()->offset_at(1796234400) == 0);
  CHECK(platform::load_zone("America/New_York").value()->offset_at(1796234400) == -5 * 3600);
  for (const char* bad : {"Nope/Zone", "", "../../etc/passwd"}) {
    auto r = platform::load_zone(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == platform::api_error::invalid_timezone);
  }
  // A weekday schedule read in New York.
  auto s = platform::parse_cron("0 8 * * 1-5").value();
  auto ny = platform::load_zone("America/New_York").value();
  CHECK(platform::next_fire(s, *ny, 1796234400000) == 1796302800000);  // 2026-12-03 08:00 EST = 13:00Z
}
