#include "sessions.hpp"

namespace platform::worker {

void session_table::put(const std::string& app_id, const std::string& run_id, provider_session s) {
  std::lock_guard lock(mu_);
  auto now = std::chrono::steady_clock::now();
  expire(now);
  by_app_[app_id] = {run_id, std::move(s), now};
}

std::optional<provider_session> session_table::get(const std::string& app_id, const std::string& run_id) {
  std::lock_guard lock(mu_);
  expire(std::chrono::steady_clock::now());
  auto it = by_app_.find(app_id);
  if (it == by_app_.end() || it->second.run_id != run_id) return std::nullopt;
  return it->second.session;
}

std::size_t session_table::size() {
  std::lock_guard lock(mu_);
  return by_app_.size();
}

void session_table::expire(std::chrono::steady_clock::time_point now) {
  for (auto it = by_app_.begin(); it != by_app_.end();) {
    if (now - it->second.used > ttl_) it = by_app_.erase(it);
    else ++it;
  }
}

}  // namespace platform::worker
