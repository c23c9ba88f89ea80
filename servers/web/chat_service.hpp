#pragma once
// Builder chat turns (spec "Chat POST rules", "Builder run" states): claim, run the worker
// through the bridge into a replay buffer, persist, publish. The turn runs on its own thread,
// so a viewer that goes away (the POST's own client included) never stops it; every viewer,
// the POST's included, is a follower of the replay buffer.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json_fwd.hpp>

#include "adapters/cache_store.hpp"
#include "local_streams.hpp"
#include "platform/governance_store.hpp"
#include "platform/runtime_settings.hpp"
#include "platform/store.hpp"
#include "web_config.hpp"
#include "worker_pool.hpp"

namespace platform {
class builder_turn;
struct budget_stop;
struct builder_turn_record;
struct run_usage;
}  // namespace platform

namespace platform::web {

class append_batcher;

class worker_client;
struct chat_service_turn_io;

// A chat stream's replay window as configured (PLATFORM_REPLAY_MAX_BYTES / _EVENTS).
replay_limits replay_window(const config& c);

struct turn_request {
  run_key key;
  std::string messages_json;       // the client's full UI message list
  std::int64_t message_count = 0;
  std::string prompt;              // text of the last user message
  normalized_settings settings;
  std::string run_reason;
  // When the chat POST reached its route: the start of the turn timing PLATFORM_CODEX_TRACE
  // prints (unset: timed from start()).
  std::chrono::steady_clock::time_point received{};
  std::string asked_by;            // the user id of who sent the turn (its version says so)
};

struct turn_start {
  claim_outcome outcome = claim_outcome::not_found;
  std::string stream_id;           // set when claimed
};

class chat_service {
 public:
  // `capability_key` signs each turn's run capability (run_capability.hpp).
  // `local`: the windows of the streams this process writes, which its followers read.
  chat_service(const config& cfg, store& db, cache_store& cache, local_streams& local, append_batcher* batcher,
               const worker_pool& workers, std::string capability_key);
  ~chat_service();
  chat_service(const chat_service&) = delete;
  chat_service& operator=(const chat_service&) = delete;

  // Claims the run; on `claimed` the stream is registered (activeStreamId set, run.starting
  // and run.stream_ready published) and the turn runs in the background.
  result<turn_start> start(turn_request request);

  // Asks the process running the run's turn (this one or another replica) to stop it: the
  // worker's runtime ends, what streamed so far is kept, the run fails with reason user stop.
  result<void> request_stop(const run_key& key);

  // Active turns of this process (for /api/health and tests).
  [[nodiscard]] std::size_t active_turns() const;

 private:
  struct turn;
  void run(const std::shared_ptr<turn>& t);
  nlohmann::json worker_request(const turn& t, source_files& draft_files);
  void stop_for_budget(turn& t, const worker_client& w, budget_stop stop);
  result<void> stream_turn(turn& t, builder_turn& bt, chat_service_turn_io& io, const nlohmann::json& body,
                           const source_files& draft_files, const worker_client*& worker);
  void prune_versions(const run_key& key);
  bool leave_behind(turn& t, const builder_turn_record& rec, const std::optional<run_usage>& usage,
                    const worker_client& worker);
  void housekeeping();  // lease renewal and stale stream recovery
  std::string turn_capability(const run_key& k) const;

  const config& cfg_;
  store& db_;
  cache_store& cache_;
  local_streams& local_;
  append_batcher* batcher_;
  const worker_pool& workers_;
  const std::string capability_key_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<turn>> turns_;  // by stream id
  bool stopping_ = false;
  std::thread keeper_;
};

std::int64_t now_ms();
// A builder turn's assistant message id, stable per turn (a replay repeats it); also its
// budget ledger entry.
std::string turn_message_id(const run_key& k, std::int64_t message_count);

}  // namespace platform::web
