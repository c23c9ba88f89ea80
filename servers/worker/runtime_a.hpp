#pragma once
// One runtime-a (Claude Code CLI) builder turn, the way the Agent SDK spawns it: stream-json
// in and out, partial messages, the normalized settings' flags, the system prompt in the
// initialize frame, and `--resume` with the session JSONL restored from ProviderSessionState
// so any worker can continue a session. Each turn gets its own temp HOME, removed after.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/child_process.hpp"
#include "platform/usage.hpp"
#include "worker_config.hpp"

namespace platform::worker {

struct provider_session {
  std::string runtime_id;
  std::string session_id;
  std::string data;    // the CLI's session JSONL
};

struct turn_request {
  std::string app_id;
  std::string run_id;
  std::string prompt;
  std::string system_prompt;
  std::vector<std::string> settings_args;  // from the runtime registry
  std::string model;
  std::optional<provider_session> restore;
  // App-agent runs: their own workspace (the run's source files) and tool allowlist, with
  // nothing auto-approved beyond it. Empty: a builder turn in the app's workspace.
  std::string cwd;
  std::vector<std::string> allowed_tools;
};

class runtime_a_turn {
 public:
  static result<std::unique_ptr<runtime_a_turn>> start(const config& cfg, const turn_request& req);
  ~runtime_a_turn();

  // The next worker message (one JSON line); false when the CLI is done. The result line
  // carries `platform_turn_usage` (this turn's RunUsage) when the CLI reported usage.
  bool next(std::string& line);
  // After next() returned false: the session to keep, and the CLI's exit code.
  std::optional<provider_session> session() const;
  int exit_code();
  [[nodiscard]] bool result_seen() const { return result_seen_; }
  std::string stderr_tail() const;

 private:
  runtime_a_turn() = default;
  std::unique_ptr<child_process> proc_;
  std::unique_ptr<usage_accumulator> usage_;
  std::string home_;
  std::string cwd_;
  std::string session_id_;
  bool result_seen_ = false;
};

}  // namespace platform::worker
