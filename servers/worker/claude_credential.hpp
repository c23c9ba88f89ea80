#pragma once
// The credential one runtime-a process gets (core claude_login.hpp has the rules): the API key,
// else the operator's Claude Code login, else the demo provider. The secret reaches the process
// on fd 3 (the CLI's *_FILE_DESCRIPTOR variables), never in its environment: the agent's Bash
// tool inherits that environment and could read /proc/<pid>/environ. Of the login only the
// access token goes out; the worker refreshes an expiring login itself (one refresh at a time)
// and writes it back to the operator's file, so the CLI never holds the refresh token.
#include <optional>
#include <string>
#include <vector>

#include "platform/claude_login.hpp"
#include "worker_config.hpp"

namespace platform::worker {

struct claude_credential {
  claude_credential_source source = claude_credential_source::none;
  std::vector<std::string> env;    // NAME=value for the process; nothing secret
  std::optional<std::string> fd3;  // the secret, read by the CLI from fd 3
};

// Which credential a turn would use now, without refreshing (detection, the demo label).
claude_credential_source claude_credential_now(const config& cfg);
// Whether the operator's CLI login (or a setup token) is there, key or not.
bool claude_login_present(const config& cfg);

// The credential for one runtime-a process. An expiring login is refreshed first; when that
// fails the turn goes on with the token it has (the provider decides) and the worker's log
// says why, without any token.
claude_credential claude_credential_for_turn(const config& cfg);

}  // namespace platform::worker
