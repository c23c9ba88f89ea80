#pragma once
// The credentials one custom tool call may use (spec "Custom tool and app action execution
// rules" 1-4, 7). Grants are app-scoped: another app's grant never satisfies this app.
// Static tools resolve secrets from this app's grant for {domain, keySlug}; OAuth tools use the
// triggering user's connected account, refreshed on demand; a missing piece is not an error but
// a mock_reason (the executor then answers with mockData, mock: true).
#include <optional>
#include <string>

#include "platform/agents_config.hpp"
#include "platform/error.hpp"
#include "platform/tool_request.hpp"

namespace platform::web {

struct web_app;

// What the executor may use for one call of `t` in app {ws, app} on behalf of `user_id`
// (the run's triggeredByUserId for agent tools, the current viewer for app actions).
struct tool_credentials {
  secret_resolver secrets;                        // platform/tool_request.hpp; nullopt when a NAME is not configured
  std::optional<std::string> oauth_access_token;  // OAuth tools: a valid (refreshed on demand) token
  std::optional<std::string> mock_reason;         // set: not configured → answer with mockData (mock: true)
};

// Errors are store or crypto failures only; "not configured" is a mock_reason.
result<tool_credentials> credentials_for(web_app& app, const std::string& ws, const std::string& app_id,
                                         const platform::tool& t, const std::string& user_id);

}  // namespace platform::web
