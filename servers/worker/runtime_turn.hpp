#pragma once
// One runtime turn, whatever the runtime: the worker reads worker messages (runtime-a's SDK
// form, one JSON line each) from it, and after the last one the session to keep. runtime-a
// streams its own form; runtime-b and runtime-c lines go through the core's normalizers.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/error.hpp"
#include "platform/usage.hpp"
#include "worker_config.hpp"

namespace platform::worker {

// ProviderSessionState as the web server stores it: what lets any worker continue a session.
struct provider_session_state {
  std::string runtime_id;
  std::string session_id;  // runtime-a session id, runtime-b thread id, runtime-c session id
  std::string data;        // runtime-a: the session JSONL; the others: their own restore data
  std::string format = "jsonl";
};

// How the runtime reaches the worker's MCP broker this turn. The token is the turn's own
// (never INTERNAL_API_TOKEN) and is written only into the turn's temp config, readable by the
// runtime alone.
struct broker_access {
  std::string base_url;              // http://127.0.0.1:<worker port>
  std::string token;
  std::vector<std::string> servers;  // server names that hold tools this turn (platform, app_tools, app_data)
  std::vector<std::string> tools;    // canonical mcp__<server>__<tool> names granted
};

struct turn_request {
  std::string runtime_id = "runtime-a";
  std::string app_id;
  std::string run_id;
  std::string prompt;
  std::string system_prompt;
  std::vector<std::string> settings_args;  // from the runtime registry
  std::string protocol_params_json = "{}";  // runtime-b: thread/turn params from the registry
  std::string model;
  std::optional<provider_session_state> restore;
  std::optional<broker_access> broker;
  // App-agent runs: their own workspace (the run's source files) and tool allowlist, with
  // nothing auto-approved beyond it. Empty: a builder turn in the app's workspace.
  std::string cwd;
  std::vector<std::string> allowed_tools;
  [[nodiscard]] bool app_agent() const { return !cwd.empty(); }
};

class runtime_turn {
 public:
  virtual ~runtime_turn() = default;
  // The next worker message (one JSON line); false when the runtime is done. The result line
  // carries `platform_turn_usage` (this turn's RunUsage) when the runtime reported usage.
  virtual bool next(std::string& line) = 0;
  // After next() returned false: the session to keep, and the runtime's exit code.
  [[nodiscard]] virtual std::optional<provider_session_state> session() const = 0;
  virtual int exit_code() = 0;
  [[nodiscard]] virtual bool result_seen() const = 0;
  // Ends the runtime now (an approval stop): next() then drains what is already read and
  // returns false.
  virtual void stop() = 0;
  // After stop(): what the stopped turn used, when the runtime still reported it (the turn's
  // result line is never read by next()).
  [[nodiscard]] virtual std::optional<run_usage> stopped_usage() const { return std::nullopt; }

  // From any thread (a user's stop): kills the runtime's process group, so the reading thread's
  // next() ends. Only a process this turn started itself (never a warm one it borrowed).
  void interrupt() const {
    interrupted_.store(true);
    int group = interrupt_group_.load();
    if (group > 0) ::kill(-group, SIGKILL);
  }
  // Whether a user's stop interrupted the turn: its end is the stop's, not the runtime's.
  [[nodiscard]] bool interrupted() const { return interrupted_.load(); }

  // When the turn asked for its runtime's process (or took a warm one): where the runtime's own
  // time starts in the worker's turn timing (PLATFORM_CODEX_TRACE). Unset before that.
  [[nodiscard]] std::chrono::steady_clock::time_point spawn_requested() const { return spawn_requested_; }

 protected:
  // The process group interrupt() kills; set once the turn's own runtime process runs.
  void set_interrupt_group(int pid) { interrupt_group_.store(pid); }
  // Called right before the runtime's process is started; the first call counts (a retry's
  // second process is the runtime's time too).
  void mark_spawn() {
    if (spawn_requested_ == std::chrono::steady_clock::time_point{}) spawn_requested_ = std::chrono::steady_clock::now();
  }

 private:
  std::atomic<int> interrupt_group_{-1};
  mutable std::atomic<bool> interrupted_{false};
  std::chrono::steady_clock::time_point spawn_requested_{};
};

// Starts a turn of `req.runtime_id`. Errors: `runtime_not_available` (CLI missing or not
// usable), `spawn_failed`, `workspace_unavailable`.
result<std::unique_ptr<runtime_turn>> start_runtime_turn(const config& cfg, const turn_request& req);

}  // namespace platform::worker
