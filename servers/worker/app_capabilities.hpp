#pragma once
// The capability of each app's latest builder turn, as the web gave it (run_capability.hpp).
// The worker's per-app routes (source snapshot, preview artifact) answer only to it, so the
// internal token alone, leaked, reads no app's source or build. The worker cannot verify a
// capability (it never holds the web's key); it only repeats and compares what it was given.
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "platform/run_capability.hpp"

namespace platform::worker {

class app_capabilities {
 public:
  void remember(const std::string& app_id, std::string capability) {
    std::lock_guard lock(mu_);
    latest_[app_id] = std::move(capability);
  }

  void forget(const std::string& app_id) {
    std::lock_guard lock(mu_);
    latest_.erase(app_id);
  }

  [[nodiscard]] bool holds(const std::string& app_id, std::string_view offered) const {
    std::lock_guard lock(mu_);
    auto it = latest_.find(app_id);
    return it != latest_.end() && same_run_capability(it->second, offered);
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> latest_;
};

}  // namespace platform::worker
