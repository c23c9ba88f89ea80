#pragma once
// The web server's side of hop 1: the worker's builder endpoints over HTTP
// (docs/http-api.md, "Worker endpoints").
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/preview_store.hpp"
#include "platform/worker_routing.hpp"

namespace httplib {
class Client;
}

namespace platform::web {

// Lets another thread end a long-lived worker request at once (a viewer that left): the
// request's socket is shut down instead of waiting for the worker's next event.
class request_cancel {
 public:
  void cancel();
  [[nodiscard]] bool cancelled() const;
  // Used by the request while it runs: attach is false when it was cancelled already.
  bool attach(httplib::Client* client);
  void detach();

 private:
  mutable std::mutex mu_;
  httplib::Client* client_ = nullptr;
  bool cancelled_ = false;
};

class worker_client {
 public:
  worker_client(std::string base_url, std::string internal_token);

  [[nodiscard]] const std::string& base_url() const { return base_url_; }

  // GET /health: up, draining, or down when it does not answer as a worker (short timeouts).
  [[nodiscard]] worker_availability health() const;

  // POST /sessions/{appId}/messages; calls `on_event` with each SSE event's data (worker
  // messages, then "[DONE]"). `on_event` returning false, or `cancel`, aborts the request (the
  // worker ends the turn when its client goes away). Errors: `worker_unreachable` (nothing was
  // sent back: the turn did not start there), the worker's own code when it refused the turn
  // (`worker_draining`, `workspace_missing`, `workspace_stale`, ...) or else
  // `worker_http_<status>`, `worker_stream_broken` (ended early).
  result<void> stream_messages(std::string_view app_id, const std::string& body_json,
                               const std::function<bool(std::string_view)>& on_event,
                               request_cancel* cancel = nullptr) const;

  // GET /sessions/{appId}/session-state?runId=: the ProviderSessionState after a turn, or
  // nullopt when the worker has none.
  result<std::optional<std::string>> provider_session_state(std::string_view app_id, std::string_view run_id) const;

  // POST /sessions/{appId}__agent__{runId}/agent-run: the worker's HTTP status (202 started,
  // 409 run_exists) with its body, or `worker_unreachable`.
  struct reply {
    int status = 0;
    std::string body;
    // A refusal as an error: the worker's own code from its error body, else worker_http_<status>.
    [[nodiscard]] error refusal(std::string_view what) const;
  };
  result<reply> start_agent_run(std::string_view app_id, std::string_view run_id, const std::string& body_json) const;

  // GET /sessions/{appId}__agent__{runId}/agent-run/{runId}/events: `on_event` gets each SSE
  // event's data (worker messages, then "[DONE]"); returning false, or `cancel`, ends the
  // request. Errors: `worker_unreachable`, `worker_http_<status>` (404: the worker no longer
  // holds the run), `worker_stream_broken`.
  result<void> agent_run_events(std::string_view app_id, std::string_view run_id,
                                const std::function<bool(std::string_view)>& on_event,
                                request_cancel* cancel = nullptr) const;

  // GET /sessions/{appId}/source-snapshot: the builder workspace's text files (path ->
  // content), nullopt when this worker holds no workspace for the app. `capability` is the
  // app's latest builder turn's (the worker answers only to it). Errors:
  // `worker_unreachable`, `snapshot_too_large`, `worker_http_<status>`, `worker_bad_reply`.
  result<std::optional<std::map<std::string, std::string>>> source_snapshot(std::string_view app_id,
                                                                            std::string_view capability) const;

  // PUT /sessions/{appId}/files: writes one text file into the builder workspace.
  result<void> put_file(std::string_view app_id, std::string_view path, std::string_view content) const;

  // PUT /sessions/{appId}/source: makes `files` the workspace's whole source (a missing or
  // stale workspace gets the app's draft).
  result<void> put_source(std::string_view app_id, const std::map<std::string, std::string>& files) const;

  // GET /detect-provider, passed through as JSON text.
  result<std::string> detect_provider(bool fresh = false) const;
  // The app workspace's current build ({digest, files}); nullopt when it has none.
  struct preview_build {
    std::string digest;
    std::vector<preview_file> files;
  };
  result<std::optional<preview_build>> preview_artifact(std::string_view app_id, std::string_view capability) const;
  // A provider key entered on the onboarding screen: the worker keeps it for its runtime.
  // Errors: the worker's `unknown_key` / `invalid_key` (bad input), `worker_*` otherwise.
  result<void> put_provider_key(std::string_view name, std::string_view value) const;

  // GET /sessions/{appId}__agent__{runId}/agent-run/{runId}: "running", "completed" or
  // "failed", or nullopt when the worker does not hold the run (404). Errors:
  // `worker_unreachable`, `worker_http_<status>`, `worker_bad_reply`.
  result<std::optional<std::string>> agent_run_status(std::string_view app_id, std::string_view run_id) const;

  // POST /sessions/{appId}__agent__{runId}/agent-run/{runId}/stop: what the worker said (202
  // stopping, 409 ended there, 404 not held). Errors: `worker_unreachable`,
  // `worker_http_<status>` for any other answer.
  enum class stop_answer : unsigned char { stopping, ended, not_held };
  result<stop_answer> stop_agent_run(std::string_view app_id, std::string_view run_id) const;

  // POST /sessions/{appId}/turns/{runId}/stop: the builder turn's runtime ended there, its
  // output over, when this returns `stopping` (`not_held`: the worker runs no such turn).
  // Errors: `worker_unreachable`, `worker_http_<status>`.
  result<stop_answer> stop_turn(std::string_view app_id, std::string_view run_id) const;

  // DELETE /sessions/{appId}: the worker lets go of a deleted app (its turns and runs stopped,
  // sessions forgotten, workspace removed) and refuses it from then on. Errors:
  // `worker_unreachable`, the worker's own code, or `worker_http_<status>`.
  result<void> forget_app(std::string_view app_id) const;

  // GET /opencode/models: runtime-c's discovered catalog as JSON text (metadata only).
  // Errors: `worker_unreachable`, `worker_http_<status>` (503 when opencode is not usable).
  result<std::string> opencode_models() const;
  // GET /runtime-readiness (no CLI started, no model called): answered in milliseconds, so it
  // gets a short timeout; the picker goes without marks when the worker is slow.
  result<std::string> runtime_readiness() const;

 private:
  std::string base_url_;
  std::string token_;
};

}  // namespace platform::web
