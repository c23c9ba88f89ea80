#pragma once
// Worker session and run retention (spec "Worker session and run retention"): which builder
// sessions and app-agent runs a worker still holds. Value tables without a clock or a lock:
// the owner passes its own monotonic time (any unit, the same for every call and for the
// durations) and serializes the calls.
#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/error.hpp"

namespace platform {

// Builder sessions: per app, the latest session of its run, forgotten `ttl` after it was put.
// The app's next message then restores the context from what the web server sends.
template <class Session>
class builder_session_table {
 public:
  explicit builder_session_table(std::int64_t ttl) : ttl_(ttl) {}

  void put(const std::string& app_id, std::string run_id, Session s, std::int64_t now) {
    tick(now);
    by_app_[app_id] = {std::move(run_id), std::move(s), now};
  }
  // The app's session when it belongs to `run_id` and has not expired.
  const Session* get(std::string_view app_id, std::string_view run_id, std::int64_t now) {
    tick(now);
    auto it = by_app_.find(app_id);
    if (it == by_app_.end() || it->second.run_id != run_id) return nullptr;
    return &it->second.session;
  }
  void tick(std::int64_t now) {
    std::erase_if(by_app_, [&](const auto& e) { return now - e.second.put_at > ttl_; });
  }
  // A deleted app's session goes at once, not at its TTL: nothing may resume it.
  void forget_app(std::string_view app_id) {
    if (auto it = by_app_.find(app_id); it != by_app_.end()) by_app_.erase(it);
  }
  [[nodiscard]] std::size_t size() const { return by_app_.size(); }

 private:
  struct entry {
    std::string run_id;
    Session session;
    std::int64_t put_at = 0;
  };
  std::int64_t ttl_;
  std::map<std::string, entry, std::less<>> by_app_;
};

// App-agent runs: at most `capacity` held; a finished run is kept `retention` after it
// finished; admitting one more evicts the least recently used finished run, never a running
// one.
template <class Run>
class app_agent_run_table {
 public:
  app_agent_run_table(std::size_t capacity, std::int64_t retention) : capacity_(capacity), retention_(retention) {}

  // `run_exists` when the key is held, `worker_busy` when `capacity` runs all still run.
  result<Run*> admit(const std::string& key, Run run, std::int64_t now) {
    tick(now);
    if (runs_.count(key) != 0) return fail(api_error::run_exists, "an agent run with this id is already held by the worker");
    if (runs_.size() >= capacity_) {
      auto victim = std::find_if(lru_.begin(), lru_.end(), [&](const std::string& k) { return runs_.at(k).finished_at.has_value(); });
      if (victim == lru_.end()) {
        return fail(api_error::worker_busy, "the worker already runs " + std::to_string(capacity_) + " agent runs; retry later");
      }
      runs_.erase(*victim);
      lru_.erase(victim);
    }
    lru_.push_back(key);
    auto& e = runs_.emplace(key, entry{std::move(run), std::nullopt, std::prev(lru_.end())}).first->second;
    return &e.run;
  }
  // The run, if held; a use for the LRU order.
  Run* find(std::string_view key, std::int64_t now) {
    tick(now);
    auto it = runs_.find(key);
    if (it == runs_.end()) return nullptr;
    lru_.splice(lru_.end(), lru_, it->second.lru);
    return &it->second.run;
  }
  // Its retention starts now.
  void finished(std::string_view key, std::int64_t now) {
    if (auto it = runs_.find(key); it != runs_.end()) it->second.finished_at = now;
  }
  void tick(std::int64_t now) {
    for (auto it = runs_.begin(); it != runs_.end();) {
      if (it->second.finished_at && now - *it->second.finished_at >= retention_) {
        lru_.erase(it->second.lru);
        it = runs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Takes every run whose key starts with `prefix` out of the table, running ones too (a
  // deleted app's runs: the caller stops those still running).
  std::vector<Run> take_prefixed(std::string_view prefix) {
    std::vector<Run> out;
    for (auto it = runs_.begin(); it != runs_.end();) {
      if (!it->first.starts_with(prefix)) {
        ++it;
        continue;
      }
      out.push_back(std::move(it->second.run));
      lru_.erase(it->second.lru);
      it = runs_.erase(it);
    }
    return out;
  }
  [[nodiscard]] std::size_t size() const { return runs_.size(); }
  [[nodiscard]] std::size_t running() const {
    return static_cast<std::size_t>(std::count_if(runs_.begin(), runs_.end(), [](const auto& r) { return !r.second.finished_at; }));
  }

 private:
  struct entry {
    Run run;
    std::optional<std::int64_t> finished_at;
    std::list<std::string>::iterator lru;
  };
  std::size_t capacity_;
  std::int64_t retention_;
  std::map<std::string, entry, std::less<>> runs_;
  std::list<std::string> lru_;  // front = least recently used
};

}  // namespace platform
