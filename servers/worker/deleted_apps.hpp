#pragma once
// The apps deleted on this worker (DELETE /sessions/{appId}). A request for one of them that
// was already under way when it was deleted (a user's file edit, a restore of its draft) would
// otherwise make its workspace again: a directory of an app that no longer exists, which
// nothing would ever remove. App ids are random and never reused, so refusing them for good
// is safe; the newest 100,000 are kept, far longer than any request takes.
#include <cstddef>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace platform::worker {

class deleted_apps {
 public:
  void add(const std::string& app_id) {
    std::lock_guard lock(mu_);
    if (!ids_.insert(app_id).second) return;
    order_.push_back(app_id);
    if (order_.size() > capacity) {
      ids_.erase(order_.front());
      order_.pop_front();
    }
  }

  // `segment` is a path's {app}: an app id, or an agent run's {appId}__agent__{runId}.
  [[nodiscard]] bool holds(std::string_view segment) const {
    std::string_view app = segment.substr(0, segment.find("__agent__"));
    std::lock_guard lock(mu_);
    return ids_.find(app) != ids_.end();
  }

 private:
  static constexpr std::size_t capacity = 100'000;
  mutable std::mutex mu_;
  std::set<std::string, std::less<>> ids_;
  std::deque<std::string> order_;
};

}  // namespace platform::worker
