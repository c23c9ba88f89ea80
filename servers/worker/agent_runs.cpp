#include "agent_runs.hpp"

#include <algorithm>

namespace platform::worker {

void agent_run::append(std::string message) {
  std::lock_guard lock(mu_);
  messages_.push_back(std::move(message));
  grew_.notify_all();
}

void agent_run::finish(agent_run_state s) {
  std::lock_guard lock(mu_);
  if (state_ == agent_run_state::running) state_ = s;
  grew_.notify_all();
}

agent_run::read_result agent_run::wait_from(std::size_t cursor, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  grew_.wait_for(lock, timeout, [&] { return cursor < messages_.size() || state_ != agent_run_state::running; });
  read_result r;
  if (cursor < messages_.size()) r.messages.assign(messages_.begin() + static_cast<std::ptrdiff_t>(cursor), messages_.end());
  r.next = std::max(cursor, messages_.size());
  r.finished = state_ != agent_run_state::running && r.next >= messages_.size();
  return r;
}

agent_run_state agent_run::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

bool agent_run::request_stop() {
  std::lock_guard lock(mu_);
  if (state_ != agent_run_state::running) return false;
  stop_requested_ = true;
  if (interrupt_) interrupt_();
  return true;
}

bool agent_run::stop_requested() const {
  std::lock_guard lock(mu_);
  return stop_requested_;
}

void agent_run::set_interrupt(std::function<void()> interrupt) {
  std::lock_guard lock(mu_);
  interrupt_ = std::move(interrupt);
  // A stop that came before the runtime started ends it as soon as it does.
  if (interrupt_ && stop_requested_) interrupt_();
}

result<std::shared_ptr<agent_run>> agent_run_table::admit(const std::string& key, const std::string& run_id,
                                                          clock::time_point now) {
  std::lock_guard lock(mu_);
  expire(now);
  if (runs_.count(key) != 0) return fail("run_exists", "an agent run with this id is already held by the worker");
  if (runs_.size() >= capacity_) {
    // Evict the least recently used finished run; running ones are never dropped.
    auto victim = lru_.end();
    for (auto it = lru_.begin(); it != lru_.end(); ++it) {
      if (runs_.at(*it).finished_at) {
        victim = it;
        break;
      }
    }
    if (victim == lru_.end()) {
      return fail("worker_busy", "the worker already runs " + std::to_string(capacity_) + " agent runs; retry later");
    }
    runs_.erase(*victim);
    lru_.erase(victim);
  }
  auto run = std::make_shared<agent_run>(key, run_id);
  lru_.push_back(key);
  runs_.emplace(key, entry{run, std::nullopt, std::prev(lru_.end())});
  return run;
}

std::shared_ptr<agent_run> agent_run_table::find(const std::string& key, clock::time_point now) {
  std::lock_guard lock(mu_);
  expire(now);
  auto it = runs_.find(key);
  if (it == runs_.end()) return nullptr;
  touch(it->second);
  return it->second.run;
}

void agent_run_table::finished(const std::string& key, clock::time_point now) {
  std::lock_guard lock(mu_);
  auto it = runs_.find(key);
  if (it != runs_.end()) it->second.finished_at = now;
}

std::size_t agent_run_table::size() {
  std::lock_guard lock(mu_);
  return runs_.size();
}

std::size_t agent_run_table::running() {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(runs_.begin(), runs_.end(), [](const auto& r) { return !r.second.finished_at; }));
}

void agent_run_table::expire(clock::time_point now) {
  for (auto it = runs_.begin(); it != runs_.end();) {
    if (it->second.finished_at && now - *it->second.finished_at >= retention_) {
      lru_.erase(it->second.lru);
      it = runs_.erase(it);
    } else {
      ++it;
    }
  }
}

void agent_run_table::touch(entry& e) { lru_.splice(lru_.end(), lru_, e.lru); }

}  // namespace platform::worker
