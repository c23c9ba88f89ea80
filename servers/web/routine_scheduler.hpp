#pragma once
// The routines' clock on a web replica (issue 37; docs/routines.md): every tick it asks the
// store for the schedules that are due, decides each with the core's rules (fire, or skip while
// the last run goes), claims the tick in the store (one replica wins it) and starts the tick's
// run; and it finishes the claims of a replica that died after claiming (their runs are named
// by the claim, so they are created and started once). Every replica runs one; they agree
// through the store, never through timers of their own. The clock is injected.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "platform/routine.hpp"
#include "platform/routine_store.hpp"
#include "platform/store.hpp"

namespace platform::web {

// The run of a routine's tick: derived from the routine and the tick, so whoever creates it
// creates the same one.
std::string tick_run_id(std::string_view routine_id, std::int64_t tick);

class routine_scheduler {
 public:
  using clock_fn = std::function<std::int64_t()>;  // Unix ms
  // Creates (unless it exists) and starts (unless started) the routine's run `run_id`; an
  // error is logged and the run's claim is finished on a later pass.
  using start_fn = std::function<result<void>(const routine_record&, const std::string& run_id)>;
  // The first tick after `now` of a schedule (the zone's, from the zone database), or why none.
  using next_fn = std::function<std::optional<std::int64_t>(const schedule_trigger&, std::int64_t now, std::string& problem)>;

  routine_scheduler(store& db, clock_fn clock, next_fn next, start_fn start);
  ~routine_scheduler();
  routine_scheduler(const routine_scheduler&) = delete;
  routine_scheduler& operator=(const routine_scheduler&) = delete;

  // One pass at the clock's now. Returns the runs this pass started (for tests and traces).
  std::vector<std::string> tick_once();
  // Runs tick_once every `period` on a thread of its own, until destroyed.
  void run_every(std::chrono::milliseconds period);

 private:
  bool run_active(const routine_record& r);

  store& db_;
  clock_fn clock_;
  next_fn next_;
  start_fn start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace platform::web
