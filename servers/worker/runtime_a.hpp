#pragma once
// One runtime-a (Claude Code CLI) builder turn, the way the Agent SDK spawns it: stream-json
// in and out, partial messages, the normalized settings' flags, the system prompt in the
// initialize frame, and `--resume` with the session JSONL restored from ProviderSessionState
// so any worker can continue a session. Each turn gets its own temp HOME, removed after.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "adapters/child_process.hpp"
#include "platform/usage.hpp"
#include "runtime_turn.hpp"

namespace platform::worker {

class turn_jail;

class runtime_a_turn final : public runtime_turn {
 public:
  static result<std::unique_ptr<runtime_turn>> start(const config& cfg, const turn_request& req);
  ~runtime_a_turn() override;

  bool next(std::string& line) override;
  [[nodiscard]] std::optional<provider_session_state> session() const override;
  int exit_code() override;
  [[nodiscard]] bool result_seen() const override { return result_seen_; }
  void stop() override;
  [[nodiscard]] std::optional<run_usage> stopped_usage() const override { return stopped_usage_; }

 private:
  runtime_a_turn() = default;
  void answer_control_request(const nlohmann::json& m);
  std::unique_ptr<turn_jail> jail_;  // outlives proc_: its HOME holds the session file
  std::unique_ptr<child_process> proc_;
  std::unique_ptr<usage_accumulator> usage_;
  std::string home_;
  std::string cwd_;
  std::string session_id_;
  std::optional<run_usage> stopped_usage_;  // from the result line of a turn the hook stopped
  std::string step_usage_;  // the platform_step_usage line owed after the line just returned
  std::string last_tool_result_id_;  // of the last tool result printed (approval stops wait for it)
  bool result_seen_ = false;
  bool stopped_ = false;
  bool hook_stopped_ = false;  // the approval hook told the CLI to end the turn
};

}  // namespace platform::worker
