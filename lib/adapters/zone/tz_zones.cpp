// zone_rules over date::tz (the system's zone database). Zones are looked up once and kept:
// the database is read on the first lookup and never changes while the process runs.
#include "adapters/tz_zones.hpp"

#include <map>
#include <mutex>
#include <string>

#include <date/tz.h>

#include "platform/api_error.hpp"

namespace platform {
namespace {

class tz_zone final : public zone_rules {
 public:
  tz_zone(const date::time_zone* z, std::string name) : zone_(z), name_(std::move(name)) {}
  [[nodiscard]] std::int64_t offset_at(std::int64_t utc_seconds) const override {
    return zone_->get_info(date::sys_seconds{std::chrono::seconds{utc_seconds}}).offset.count();
  }
  [[nodiscard]] const std::string& name() const override { return name_; }

 private:
  const date::time_zone* zone_;
  std::string name_;
};

}  // namespace

result<std::shared_ptr<const zone_rules>> load_zone(std::string_view name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const zone_rules>, std::less<>> loaded;
  std::lock_guard lock(mu);
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;
  if (name.empty() || name.size() > 64) return fail(api_error::invalid_timezone, "write a zone name such as Europe/Paris or UTC");
  try {
    const date::time_zone* z = date::locate_zone(name);
    auto made = std::make_shared<tz_zone>(z, std::string(name));
    loaded.emplace(std::string(name), made);
    return std::shared_ptr<const zone_rules>(made);
  } catch (const std::exception&) {
    return fail(api_error::invalid_timezone, "\"" + std::string(name) + "\" is not a time zone of the zone database: write one such as Europe/Paris, America/New_York or UTC");
  }
}

}  // namespace platform
