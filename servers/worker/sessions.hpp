#pragma once
// Builder sessions in worker memory (spec "Worker session and run retention"): per app, the
// latest ProviderSessionState, destroyed after the TTL. The next message then restores the
// context from what the web server sends.
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "runtime_turn.hpp"

namespace platform::worker {

class session_table {
 public:
  explicit session_table(std::chrono::milliseconds ttl) : ttl_(ttl) {}

  void put(const std::string& app_id, const std::string& run_id, provider_session s);
  // The app's session if it is not older than the TTL (expired ones are destroyed here).
  std::optional<provider_session> get(const std::string& app_id, const std::string& run_id);
  std::size_t size();

 private:
  struct entry {
    std::string run_id;
    provider_session session;
    std::chrono::steady_clock::time_point used;
  };
  void expire(std::chrono::steady_clock::time_point now);

  std::chrono::milliseconds ttl_;
  std::mutex mu_;
  std::map<std::string, entry> by_app_;
};

}  // namespace platform::worker
