#pragma once
// One runtime-c (opencode) turn: `opencode run --format json` with the normalized settings'
// flags, the prompt on stdin (then EOF), the system prompt as the prompt of the run's own
// agent (a file the per-run config names, never env or config text), and a private opencode
// tree per turn holding the per-run config: the operator's providers, the broker's MCP
// servers and the turn's tool permissions. opencode's JSON lines go through the core's
// runtime-c normalizer. The session travels as `opencode export` JSON and is imported into
// the next turn's tree (any worker), then continued with `--session`.
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/child_process.hpp"
#include "opencode_cli.hpp"
#include "platform/runtime_normalizer.hpp"
#include "platform/usage.hpp"
#include "runtime_turn.hpp"

namespace platform::worker {

class turn_jail;

// ProviderSessionState.format of runtime-c: `data` is the JSON of `opencode export <id>`.
inline constexpr const char* opencode_session_format = "opencode-export";

// What a runtime-c turn on `model` would reach its provider with (for "Ready", without a
// model call): whether a sandboxed run can be led to the provider, and whether a key is there
// for it (or the operator's provider needs none).
struct runtime_c_provider_state {
  bool routed = false;
  bool credentials = false;
};
runtime_c_provider_state runtime_c_provider(const config& cfg, const std::string& model);

class runtime_c_turn final : public runtime_turn {
 public:
  // Errors: `runtime_not_available` (opencode missing or without `run --format json`),
  // `invalid_config` (PLATFORM_OPENCODE_CONFIG), `spawn_failed`, `workspace_unavailable`.
  static result<std::unique_ptr<runtime_turn>> start(const config& cfg, const turn_request& req);
  ~runtime_c_turn() override;

  bool next(std::string& line) override;
  [[nodiscard]] std::optional<provider_session_state> session() const override;
  int exit_code() override;
  [[nodiscard]] bool result_seen() const override { return result_seen_; }
  void stop() override;

 private:
  explicit runtime_c_turn(const config& cfg) : cfg_(cfg) {}
  result<void> prepare(const turn_request& req, const std::string& version);
  result<void> spawn(bool resume);
  void native_line(const std::string& native);
  void end_of_output();
  bool retry_fresh();

  const config& cfg_;
  std::unique_ptr<turn_jail> jail_;  // outlives tree_: the tree is its HOME
  std::unique_ptr<opencode_tree> tree_;
  std::string cwd_;
  std::string prompt_;
  std::vector<std::string> args_;  // without --session
  std::string resume_id_;          // the imported session, empty for a fresh one
  std::unique_ptr<child_process> proc_;
  std::unique_ptr<runtime_normalizer> normalizer_;
  std::unique_ptr<usage_accumulator> usage_;
  std::deque<std::string> queued_;
  std::string session_id_;
  bool native_seen_ = false;
  bool foreign_ = false;
  bool finished_ = false;
  bool result_seen_ = false;
  bool stopped_ = false;
  bool retried_ = false;
  mutable std::optional<std::optional<provider_session_state>> exported_;
};

}  // namespace platform::worker
