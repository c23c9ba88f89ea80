#include "sessions.hpp"

namespace platform::worker {

namespace {
std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

void session_table::put(const std::string& app_id, const std::string& run_id, provider_session_state s) {
  std::lock_guard lock(mu_);
  table_.put(app_id, run_id, std::move(s), now_ms());
}

std::optional<provider_session_state> session_table::get(const std::string& app_id, const std::string& run_id) {
  std::lock_guard lock(mu_);
  const provider_session_state* s = table_.get(app_id, run_id, now_ms());
  return s ? std::optional<provider_session_state>(*s) : std::nullopt;
}

void session_table::forget_app(const std::string& app_id) {
  std::lock_guard lock(mu_);
  table_.forget_app(app_id);
}

std::size_t session_table::size() {
  std::lock_guard lock(mu_);
  return table_.size();
}

}  // namespace platform::worker
