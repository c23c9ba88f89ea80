#pragma once
// The builder turns running on this worker, by app and run, so that a user's stop ends the
// runtime at once (spec "Stop"). Without it the worker would notice a stopped turn only when it
// next wrote to the web's cut connection, and a model holding its reply would go on generating,
// and billing, for as long as it liked.
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "granted_turn.hpp"

namespace platform::worker {

// One turn's stop: kills its runtime's process group, and tells whoever stopped it once the
// runtime's output has ended (its processes are gone with it).
class turn_stop {
 public:
  void attach(const granted_turn* turn) {
    std::lock_guard lock(mu_);
    turn_ = turn;
  }
  // The reading thread: the runtime's output ended, or the turn is released.
  void ended() {
    std::lock_guard lock(mu_);
    turn_ = nullptr;
    ended_ = true;
    cv_.notify_all();
  }
  enum class outcome { already_ended, stopped, still_running };
  // Kills the runtime and waits until its output ended, at most until `deadline`.
  outcome stop(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu_);
    if (ended_) return outcome::already_ended;
    if (turn_) turn_->interrupt();
    return cv_.wait_until(lock, deadline, [&] { return ended_; }) ? outcome::stopped : outcome::still_running;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  const granted_turn* turn_ = nullptr;
  bool ended_ = false;
};

class running_turns {
 public:
  void add(const std::string& app_id, const std::string& run_id, std::shared_ptr<turn_stop> stop) {
    std::lock_guard lock(mu_);
    turns_[app_id + "\n" + run_id] = std::move(stop);
  }
  void remove(const std::string& app_id, const std::string& run_id, const turn_stop* which) {
    std::lock_guard lock(mu_);
    auto it = turns_.find(app_id + "\n" + run_id);
    if (it != turns_.end() && it->second.get() == which) turns_.erase(it);
  }
  [[nodiscard]] std::shared_ptr<turn_stop> find(const std::string& app_id, const std::string& run_id) const {
    std::lock_guard lock(mu_);
    auto it = turns_.find(app_id + "\n" + run_id);
    return it == turns_.end() ? nullptr : it->second;
  }
  // Every turn of the app (a deleted app's, to stop).
  [[nodiscard]] std::vector<std::shared_ptr<turn_stop>> of_app(const std::string& app_id) const {
    std::lock_guard lock(mu_);
    std::vector<std::shared_ptr<turn_stop>> out;
    const std::string prefix = app_id + "\n";
    for (auto it = turns_.lower_bound(prefix); it != turns_.end() && it->first.starts_with(prefix); ++it) out.push_back(it->second);
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<turn_stop>> turns_;
};

}  // namespace platform::worker
