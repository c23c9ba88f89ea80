#pragma once
// The worker's MCP broker glue (spec "Authentication" 4 and 5): mounts the core's sans-I/O
// MCP server (platform/mcp_server.hpp) on `/mcp/<server>`, mints one bearer token per runtime
// turn that grants only that turn's tools, and runs granted tool calls through the handlers
// the turn registered. A lease ends the grant: a token is useless once its turn is over.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "platform/mcp_server.hpp"
#include "runtime_turn.hpp"
#include "worker_config.hpp"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace platform::worker {

// What a turn's tools act on. Builder turns: the app's workspace. App-agent runs: the run's
// own workspace and its agent config ({id, tools, dataCollections} as the web sent it).
struct turn_context {
  enum class kind { builder, agent };
  kind k = kind::builder;
  std::string workspace_id, app_id, run_id;
  std::string run_capability;     // sent on every internal call about the run (run_capability.hpp)
  std::string workspace_dir;
  std::string web_origin;         // where internal routes are called
  std::string agent_config_json;  // app-agent runs
  std::string runtime_id;
  // Set by present_plan / present_agents once their card payload is returned: the turn ends
  // right after the runtime reports that tool result (spec "Approval stops").
  std::atomic<bool> stop_requested{false};

  // Real custom tool failures of this run (spec "Automatic tool failure recovery" 1):
  // bounded, redacted records that report_tool_call_failed sends along.
  void record_failure(std::string record_json);
  std::vector<std::string> failures() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> failures_;
};

struct tool_outcome {
  std::string text;  // what the model reads (JSON text for structured results)
  bool is_error = false;
};

using tool_handler = std::function<tool_outcome(turn_context&, const mcp_tool_call&)>;

struct tool_binding {
  mcp_tool_definition definition;  // canonical mcp__<server>__<tool> name
  tool_handler run;
};

class broker;

// One turn's grant. Destroying it revokes the token.
class broker_lease {
 public:
  broker_lease(broker& b, std::string token, std::shared_ptr<turn_context> ctx, broker_access access)
      : broker_(b), token_(std::move(token)), ctx_(std::move(ctx)), access_(std::move(access)) {}
  ~broker_lease();
  broker_lease(const broker_lease&) = delete;
  broker_lease& operator=(const broker_lease&) = delete;

  [[nodiscard]] const broker_access& access() const { return access_; }
  [[nodiscard]] turn_context& context() { return *ctx_; }
  // Whether the runtime opened an MCP session (initialize) on any of the turn's servers.
  [[nodiscard]] bool connected() const;
  [[nodiscard]] std::size_t tool_calls() const;

 private:
  broker& broker_;
  std::string token_;
  std::shared_ptr<turn_context> ctx_;
  broker_access access_;
};

class broker {
 public:
  explicit broker(const config& cfg) : cfg_(cfg) {}

  // Grants `tools` to one turn under a fresh random token. Errors from the grant checks.
  result<std::unique_ptr<broker_lease>> open(std::shared_ptr<turn_context> ctx, std::vector<tool_binding> tools);

  // POST/GET/DELETE /mcp/<server>.
  void handle(std::string_view server, const httplib::Request& req, httplib::Response& res);

  [[nodiscard]] std::size_t live_grants();

 private:
  friend class broker_lease;
  struct turn_entry {
    std::shared_ptr<turn_context> ctx;
    std::unordered_map<std::string, tool_handler> handlers;  // by canonical name
  };
  void revoke(const std::string& token);

  const config& cfg_;
  std::mutex mu_;
  mcp_grants grants_;
  std::unordered_map<std::string, turn_entry> turns_;  // by token
};

}  // namespace platform::worker
