#pragma once
// How the worker answers the requests `codex app-server` sends its client mid-turn (spec
// "Authentication" 5): an MCP tool-call approval is accepted only for a tool of an allowlisted
// server (platform, app_tools, app_data) that this turn's broker grant holds; every other
// elicitation, command, file-change and permission approval is declined; requests a headless
// client cannot serve get a JSON-RPC error. Pure: no I/O.
#include <optional>
#include <string>
#include <string_view>

#include "runtime_turn.hpp"

namespace platform::worker {

struct codex_answer {
  std::string reply;     // the JSON-RPC response line (no newline)
  std::string decision;  // for the trace: accept, decline, denied, no_answer, unsupported
};

// `request` is one server request line as codex printed it ({method, id, params}).
codex_answer answer_codex_request(std::string_view request, const std::optional<broker_access>& broker);

}  // namespace platform::worker
