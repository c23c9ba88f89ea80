#pragma once
// App-agent runs in worker memory (spec "Worker session and run retention", "App agent
// trigger flow" 3–5): each run buffers every worker message so a viewer that comes late
// replays it all, then follows live; a viewer that leaves never stops the run. How long the
// worker keeps them is the core's rule (platform/worker_retention.hpp).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/error.hpp"
#include "platform/worker_retention.hpp"

namespace platform::worker {

enum class agent_run_state : unsigned char { running, completed, failed };

class agent_run {
 public:
  agent_run(std::string key, std::string run_id) : key_(std::move(key)), run_id_(std::move(run_id)) {}

  void append(std::string message);
  void finish(agent_run_state s);

  struct read_result {
    std::vector<std::string> messages;  // from the cursor on
    std::size_t next = 0;
    bool finished = false;              // and nothing after `next`
  };
  // Messages from `cursor`; waits up to `timeout` when there are none yet and the run goes on.
  read_result wait_from(std::size_t cursor, std::chrono::milliseconds timeout);

  [[nodiscard]] agent_run_state state() const;

  // A user's stop: interrupts the run's runtime when it runs (the run then fails with reason
  // user stop); false when the run had ended already.
  bool request_stop();
  // A budget's stop (the web server said the run reached a limit): as a user's, with the
  // budget's reason and sentence; the first stop's reason stands.
  bool request_stop(std::string reason_code, std::string message);
  [[nodiscard]] bool stop_requested() const;
  // The stop's stopReason ("user", "budget") and sentence, once a stop was requested.
  [[nodiscard]] std::pair<std::string, std::string> stop_reason() const;
  // What request_stop() calls while the run's runtime runs; the run's thread sets it when the
  // runtime started and clears it (nullptr) before releasing the runtime.
  void set_interrupt(std::function<void()> interrupt);
  // After request_stop(): until the runtime is released (its output ended, its processes gone),
  // at most until `deadline`.
  void wait_released(std::chrono::steady_clock::time_point deadline);
  [[nodiscard]] const std::string& key() const { return key_; }
  [[nodiscard]] const std::string& run_id() const { return run_id_; }

 private:
  const std::string key_;
  const std::string run_id_;
  mutable std::mutex mu_;
  std::condition_variable grew_;
  std::vector<std::string> messages_;
  agent_run_state state_ = agent_run_state::running;
  bool stop_requested_ = false;
  std::string stop_code_, stop_message_;
  std::function<void()> interrupt_;
};

// The core's app_agent_run_table (its retention rule) behind a lock, on the steady clock.
class agent_run_table {
 public:
  using clock = std::chrono::steady_clock;
  agent_run_table(std::size_t capacity, std::chrono::milliseconds retention) : table_(capacity, retention.count()) {}

  // A new running run under `key` ({appId}__agent__{runId}). Fails with `run_exists` when the
  // key is held, `worker_busy` when `capacity` runs are all still running.
  result<std::shared_ptr<agent_run>> admit(const std::string& key, const std::string& run_id, clock::time_point now);
  // The run, if held and not expired; counts as a use for the LRU order.
  std::shared_ptr<agent_run> find(const std::string& key, clock::time_point now);
  // Records when a run finished (its retention starts then).
  void finished(const std::string& key, clock::time_point now);
  std::size_t size();
  std::size_t running();  // admitted and not finished (a draining worker waits for them)
  // Takes the app's runs out of the table (keys {appId}__agent__*), running ones too.
  std::vector<std::shared_ptr<agent_run>> take_app(const std::string& app_id);

 private:
  std::mutex mu_;
  app_agent_run_table<std::shared_ptr<agent_run>> table_;
};

}  // namespace platform::worker
