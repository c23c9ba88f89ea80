#include "routine_scheduler.hpp"

#include <cstdio>

#include "tool_shaping.hpp"

namespace platform::web {

namespace {

// A claim this old whose run is not running yet was left by a replica that died mid-fire.
constexpr std::int64_t claim_grace_ms = 30000;
// Claims older than this are history, not work.
constexpr std::int64_t claim_horizon_ms = 24 * 3600 * 1000;

}  // namespace

std::string tick_run_id(std::string_view routine_id, std::int64_t tick) {
  return "arun_" + sha256_hex(std::string(routine_id) + "@" + std::to_string(tick)).substr(0, 24);
}

routine_scheduler::routine_scheduler(store& db, clock_fn clock, next_fn next, start_fn start)
    : db_(db), clock_(std::move(clock)), next_(std::move(next)), start_(std::move(start)) {}

routine_scheduler::~routine_scheduler() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void routine_scheduler::run_every(std::chrono::milliseconds period) {
  thread_ = std::thread([this, period] {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, period, [&] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      (void)tick_once();
      lock.lock();
    }
  });
}

bool routine_scheduler::run_active(const routine_record& r) {
  if (!r.last_run_id || r.last_outcome == "skipped") return false;
  auto s = db_.app_agent_runs().summary({r.workspace_id, r.app_id, *r.last_run_id});
  // A store that cannot say counts as active: a tick skipped beats two runs at once.
  if (!s) return true;
  return *s && !is_finished((*s)->status);
}

std::vector<std::string> routine_scheduler::tick_once() {
  std::vector<std::string> started;
  const std::int64_t now = clock_();
  auto due = db_.routines().due(now, 200);
  if (!due) return started;
  for (const auto& r : *due) {
    if (!r.schedule || !r.next_fire_at) continue;
    routine_state s{r.enabled, r.consecutive_failures, r.next_fire_at, false};
    s.run_active = run_active(r);
    auto action = on_tick(s, now);
    if (action == tick_action::wait) continue;
    std::string problem;
    auto next = next_(*r.schedule, now, problem);
    const bool fire = action == tick_action::fire;
    std::optional<std::string> run_id;
    if (fire) run_id = tick_run_id(r.id, *r.next_fire_at);
    auto claimed = db_.routines().claim_tick(r.id, *r.next_fire_at, next, fire ? "started" : "skipped", run_id, now);
    if (!claimed || !*claimed || !fire) continue;  // another replica has it, or it was a skip
    routine_record mine = r;
    mine.last_run_id = run_id;
    if (auto ok = start_(mine, *run_id); !ok) {
      std::fprintf(stderr, "web: routine %s run %s not started: %s\n", r.id.c_str(), run_id->c_str(), code_c_str(ok.error()));
      continue;
    }
    started.push_back(*run_id);
  }
  // Claims whose run a dead replica never created or started.
  auto left = db_.routines().started_before(now - claim_grace_ms, now - claim_horizon_ms, 100);
  if (!left) return started;
  for (const auto& r : *left) {
    auto s = db_.app_agent_runs().summary({r.workspace_id, r.app_id, *r.last_run_id});
    if (!s || (*s && (*s)->status != agent_run_status::pending)) continue;
    if (auto ok = start_(r, *r.last_run_id); ok) started.push_back(*r.last_run_id);
  }
  return started;
}

}  // namespace platform::web
