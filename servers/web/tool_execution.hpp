#pragma once
// Executing one custom tool or app action for a user (spec "Custom tool and app action
// execution rules"): the request built by the core (a missing input placeholder, or input to
// an endpoint that reads none, fails and calls nothing), the app-scoped credentials (not
// configured → a random mockData entry with mock: true and mockReason), the OAuth token and
// secrets injected server-side, the guarded HTTP executor, and the reply shaped as the
// Integration tool result. Secrets, refresh and access tokens never reach the reply or a log.
// Which tool may run, and for whom, is the routes' business (tool_routes.cpp).
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "adapters/http_executor.hpp"
#include "platform/agents_config.hpp"
#include "platform/error.hpp"
#include "platform/integration_tool_result.hpp"
#include "web_config.hpp"

namespace platform::web {

struct web_app;

// Which mockData entry answers: an index below `count`. Injected so tests can seed it.
using mock_picker = std::function<std::size_t(std::size_t count)>;

// One call: where, on behalf of whom (the run's triggeredByUserId for agent tools, the
// current viewer for app actions), with what input (JSON object text; empty = none).
struct tool_call {
  std::string workspace_id;
  std::string app_id;
  std::string user_id;
  std::string input_json;
};

// The values of the secrets (and the OAuth token) a call of `t` would carry for `call`'s user:
// what to scrub from anything about that tool that leaves the server (failure reports pasted
// by a person or an agent). Empty when nothing is configured or the store cannot be read.
std::vector<std::string> known_secret_values(web_app& app, const tool& t, const tool_call& call);

class tool_runner {
 public:
  // The executor with the operator's allow-list and limits from `cfg`; an empty picker draws
  // from a CSPRNG-seeded generator.
  static result<std::unique_ptr<tool_runner>> create(const config& cfg, mock_picker pick = {});

  // Always a reply: every failure is an Integration tool result (internal ones included).
  [[nodiscard]] integration_tool_result run(web_app& app, const tool& t, const tool_call& call) const;

 private:
  tool_runner(std::unique_ptr<http_executor> executor, mock_picker pick);
  [[nodiscard]] std::size_t pick(std::size_t count) const;

  std::unique_ptr<http_executor> executor_;
  mock_picker pick_;
  mutable std::mutex rng_mu_;
  mutable std::mt19937_64 rng_;
};

}  // namespace platform::web
