#include "agent_runs.hpp"

#include "platform/user_stop.hpp"

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

bool agent_run::request_stop() { return request_stop(std::string(user_stop_code), std::string(user_stop_reason)); }

bool agent_run::request_stop(std::string reason_code, std::string message) {
  std::lock_guard lock(mu_);
  if (state_ != agent_run_state::running) return false;
  if (!stop_requested_) {
    stop_code_ = std::move(reason_code);
    stop_message_ = std::move(message);
  }
  stop_requested_ = true;
  if (interrupt_) interrupt_();
  return true;
}

std::pair<std::string, std::string> agent_run::stop_reason() const {
  std::lock_guard lock(mu_);
  return {stop_code_, stop_message_};
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
  if (!interrupt_) grew_.notify_all();
}

void agent_run::wait_released(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  grew_.wait_until(lock, deadline, [&] { return !interrupt_ || state_ != agent_run_state::running; });
}

namespace {
std::int64_t ms(agent_run_table::clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
}  // namespace

result<std::shared_ptr<agent_run>> agent_run_table::admit(const std::string& key, const std::string& run_id,
                                                          clock::time_point now) {
  std::lock_guard lock(mu_);
  auto held = table_.admit(key, std::make_shared<agent_run>(key, run_id), ms(now));
  if (!held) return tl::unexpected(held.error());
  return **held;
}

std::shared_ptr<agent_run> agent_run_table::find(const std::string& key, clock::time_point now) {
  std::lock_guard lock(mu_);
  auto* run = table_.find(key, ms(now));
  return run ? *run : nullptr;
}

void agent_run_table::finished(const std::string& key, clock::time_point now) {
  std::lock_guard lock(mu_);
  table_.finished(key, ms(now));
}

std::size_t agent_run_table::size() {
  std::lock_guard lock(mu_);
  return table_.size();
}

std::vector<std::shared_ptr<agent_run>> agent_run_table::take_app(const std::string& app_id) {
  std::lock_guard lock(mu_);
  return table_.take_prefixed(app_id + "__agent__");
}

std::size_t agent_run_table::running() {
  std::lock_guard lock(mu_);
  return table_.running();
}

}  // namespace platform::worker
