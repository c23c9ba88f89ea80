#pragma once
// The workers this web server sends turns and agent runs to (docs/operations.md, "Several
// workers"). Each app goes to the first worker of its own order (platform::rank_workers); a
// worker that does not answer, or that drains, gives its apps to their next worker. With
// several workers a background probe asks each one's /health; a request that cannot connect
// or is refused as draining marks its worker at once, without waiting for the probe.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "platform/error.hpp"
#include "platform/worker_routing.hpp"
#include "worker_client.hpp"

namespace platform::web {

class worker_pool {
 public:
  worker_pool(const std::vector<std::string>& urls, const std::string& internal_token, std::chrono::milliseconds probe_every);
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  // Where new work of the app goes, best first: the workers that take new work; all of them
  // in the app's order when none does (the requests then fail with the worker's own reason).
  [[nodiscard]] std::vector<const worker_client*> for_new_work(std::string_view app_id) const;
  // The app's worker while it takes work (what a user's edit of agents.json is written to).
  [[nodiscard]] const worker_client& for_app(std::string_view app_id) const { return *for_new_work(app_id).front(); }
  // For requests about no app (provider detection, runtime-c's catalog): the first worker up.
  [[nodiscard]] const worker_client& any() const { return for_app(""); }
  [[nodiscard]] const std::vector<worker_client>& all() const { return workers_; }
  // How many workers are up, draining and down, as this server last saw them (/api/health).
  struct counts {
    std::size_t up = 0, draining = 0, down = 0;
  };
  [[nodiscard]] counts availability() const;

  // The worker holding an app agent run (runs stay where they started): nullptr when every
  // worker that answered says it holds none. Errors: `worker_unreachable` when none holds it
  // and one did not answer (it may be that one's).
  [[nodiscard]] result<const worker_client*> agent_run_holder(std::string_view app_id, std::string_view run_id) const;

  // What a request learned of its worker: it could not connect, or it is draining.
  void observed(const worker_client& w, worker_availability state) const;
  // Routing outcome of a worker's error: true when the work did not start there and belongs
  // on the app's next worker (marks the worker).
  bool moves_on(const worker_client& w, const error& e) const;

 private:
  void probe_loop();

  std::vector<worker_client> workers_;
  std::vector<std::string> ids_;
  mutable std::mutex mu_;
  mutable std::vector<worker_availability> state_;
  std::vector<int> probe_misses_;  // the prober's own: one slow answer does not move apps
  std::chrono::milliseconds probe_every_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread prober_;
};

}  // namespace platform::web
