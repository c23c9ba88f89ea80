#pragma once
// Time zones from the system's zone database (Debian's tzdata, read through
// libhowardhinnant-date's tz library): the zone_rules a routine's schedule is read in.
#include <memory>
#include <string_view>

#include "platform/error.hpp"
#include "platform/zone_rules.hpp"

namespace platform {

// `invalid_timezone` for a name the database does not have (names are IANA's: Europe/Paris,
// America/New_York, UTC).
result<std::shared_ptr<const zone_rules>> load_zone(std::string_view name);

}  // namespace platform
