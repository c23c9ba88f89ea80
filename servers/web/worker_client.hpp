#pragma once
// The web server's side of hop 1: the worker's builder endpoints over HTTP
// (docs/http-api.md, "Worker endpoints").
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform::web {

class worker_client {
 public:
  worker_client(std::string base_url, std::string internal_token);

  // POST /sessions/{appId}/messages; calls `on_event` with each SSE event's data (worker
  // messages, then "[DONE]"). `on_event` returning false aborts the request. Errors:
  // `worker_unreachable`, `worker_http_<status>`, `worker_stream_broken` (ended early).
  result<void> stream_messages(std::string_view app_id, const std::string& body_json,
                               const std::function<bool(std::string_view)>& on_event) const;

  // GET /sessions/{appId}/session-state?runId=: the ProviderSessionState after a turn, or
  // nullopt when the worker has none.
  result<std::optional<std::string>> session_state(std::string_view app_id, std::string_view run_id) const;

  // GET /detect-provider, passed through as JSON text.
  result<std::string> detect_provider() const;

 private:
  std::string base_url_;
  std::string token_;
};

}  // namespace platform::web
