#pragma once
// Builder sessions in worker memory: the core's builder_session_table (its rule) behind a
// lock, on the steady clock.
#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "platform/worker_retention.hpp"
#include "runtime_turn.hpp"

namespace platform::worker {

class session_table {
 public:
  explicit session_table(std::chrono::milliseconds ttl) : table_(ttl.count()) {}

  void put(const std::string& app_id, const std::string& run_id, provider_session_state s);
  // The app's session if it is not older than the TTL (expired ones are destroyed here).
  std::optional<provider_session_state> get(const std::string& app_id, const std::string& run_id);
  std::size_t size();
  void forget_app(const std::string& app_id);

 private:
  std::mutex mu_;
  builder_session_table<provider_session_state> table_;
};

}  // namespace platform::worker
