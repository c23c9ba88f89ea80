#pragma once
// A time zone as the core needs it: the offset from UTC in force at an instant. The core has no
// zone database (reading one is I/O); the zone adapter (adapters/tz_zones.hpp) answers from the
// system's, and tests feed fixed rules with the transitions they need.
#include <cstdint>
#include <string>

namespace platform {

class zone_rules {
 public:
  virtual ~zone_rules() = default;
  // Seconds east of UTC in force at `utc_seconds` (Unix time).
  [[nodiscard]] virtual std::int64_t offset_at(std::int64_t utc_seconds) const = 0;
  [[nodiscard]] virtual const std::string& name() const = 0;
};

// UTC, and any fixed offset.
class fixed_zone final : public zone_rules {
 public:
  explicit fixed_zone(std::int64_t offset_seconds = 0, std::string name = "UTC") : offset_(offset_seconds), name_(std::move(name)) {}
  [[nodiscard]] std::int64_t offset_at(std::int64_t) const override { return offset_; }
  [[nodiscard]] const std::string& name() const override { return name_; }

 private:
  std::int64_t offset_;
  std::string name_;
};

}  // namespace platform
