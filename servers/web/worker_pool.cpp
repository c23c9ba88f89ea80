#include "worker_pool.hpp"
#include "platform/api_error.hpp"

#include <cstdio>

namespace platform::web {

worker_pool::worker_pool(const std::vector<std::string>& urls, const std::string& internal_token,
                         std::chrono::milliseconds probe_every)
    : ids_(urls), state_(urls.size(), worker_availability::up), probe_misses_(urls.size(), 0), probe_every_(probe_every) {
  workers_.reserve(urls.size());
  for (const auto& u : urls) workers_.emplace_back(u, internal_token);
  // One worker takes everything whatever its health: probing it would change nothing.
  if (workers_.size() > 1) prober_ = std::thread([this] { probe_loop(); });
}

worker_pool::~worker_pool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (prober_.joinable()) prober_.join();
}

std::vector<const worker_client*> worker_pool::for_new_work(std::string_view app_id) const {
  std::vector<worker_availability> states;
  {
    std::lock_guard lock(mu_);
    states = state_;
  }
  std::vector<const worker_client*> out;
  auto order = rank_workers(app_id, ids_, states);
  for (auto i : order) {
    if (states[i] == worker_availability::up) out.push_back(&workers_[i]);
  }
  if (out.empty()) {
    for (auto i : order) out.push_back(&workers_[i]);
  }
  return out;
}

result<const worker_client*> worker_pool::agent_run_holder(std::string_view app_id, std::string_view run_id) const {
  if (workers_.size() == 1) return &workers_.front();
  std::vector<worker_availability> states;
  {
    std::lock_guard lock(mu_);
    states = state_;
  }
  bool unanswered = false;
  for (auto i : rank_workers(app_id, ids_, states)) {
    auto status = workers_[i].agent_run_status(app_id, run_id);
    if (status && *status) return &workers_[i];
    if (!status && is(status.error(), api_error::worker_unreachable)) observed(workers_[i], worker_availability::down);
    if (!status) unanswered = true;
  }
  if (unanswered) return fail(api_error::worker_unreachable, "no worker that answered holds the run, and one did not answer");
  return static_cast<const worker_client*>(nullptr);
}

worker_pool::counts worker_pool::availability() const {
  std::lock_guard lock(mu_);
  counts c;
  for (auto s : state_) {
    if (s == worker_availability::up) ++c.up;
    else if (s == worker_availability::draining) ++c.draining;
    else ++c.down;
  }
  return c;
}

void worker_pool::observed(const worker_client& w, worker_availability state) const {
  std::size_t i = static_cast<std::size_t>(&w - workers_.data());
  if (i >= workers_.size()) return;
  std::lock_guard lock(mu_);
  if (state_[i] != state) {
    std::fprintf(stderr, "web: worker %s is %s\n", ids_[i].c_str(),
                 state == worker_availability::up ? "up" : state == worker_availability::draining ? "draining" : "down");
  }
  state_[i] = state;
}

bool worker_pool::moves_on(const worker_client& w, const error& e) const {
  if (workers_.size() == 1) return false;
  if (is(e, api_error::worker_unreachable)) observed(w, worker_availability::down);
  else if (is(e, api_error::worker_draining)) observed(w, worker_availability::draining);
  else return false;
  return true;
}

void worker_pool::probe_loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      auto state = workers_[i].health();
      probe_misses_[i] = state == worker_availability::down ? probe_misses_[i] + 1 : 0;
      if (state != worker_availability::down || probe_misses_[i] >= 2) observed(workers_[i], state);
    }
    lock.lock();
    stop_cv_.wait_for(lock, probe_every_, [&] { return stopping_; });
  }
}

}  // namespace platform::web
