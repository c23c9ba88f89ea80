// platformctl: the command-line face of libplatform. JSON on stdout; exit 0 ok, 1 invalid
// input, 2 usage or I/O error.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli.hpp"

namespace {

constexpr const char* help_text = R"(platformctl - the application builder platform core on the command line

Usage:
  platformctl agents validate FILE [--setup SETUP_FILE]
      Validate agents.json as present_agents does.
      Prints {"ok":bool,"violations":[{"path","code","message"}]}.
  platformctl agents hash FILE
      Print the v1 approval hash (v1:<64 hex>) of agents.json.
  platformctl setup validate FILE
      Validate integration-setup.json. Same report shape as agents validate.
  platformctl tool request FILE TOOL_NAME [--agent ID] --input JSON [--secrets JSON]
      Show the HTTP request the executor would send for a custom tool (secret values
      redacted), or the Integration tool result error it would return instead.
  platformctl runtime normalize --runtime ID [--model M] [--param K=V]...
      Normalize runtime settings: applied downgrades and the CLI argument list.
  platformctl runtime list
      Print the runtime registry (ids, models, defaults, parameter constraints).
  platformctl bridge translate --runtime runtime-a|runtime-b|runtime-c [--message-id ID] [FILE|-]
      Translate a runtime transcript into the UI message stream SSE body the browser gets.
  platformctl stream check [FILE|-]
      Check an SSE body against the UI message stream invariants; exit 1 on any violation.

FILE may be - for standard input.
Exit status: 0 success, 1 invalid input, 2 usage or I/O error.
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return platformctl::usage_error("missing command");
  std::string group = argv[1];
  if (group == "--help" || group == "-h" || group == "help") {
    std::fputs(help_text, stdout);
    return platformctl::exit_ok;
  }
  if (group == "--version") {
    std::puts("platformctl 0.1.0");
    return platformctl::exit_ok;
  }
  if (group == "agents") return platformctl::run_agents(argc, argv);
  if (group == "setup") return platformctl::run_setup(argc, argv);
  if (group == "tool") return platformctl::run_tool(argc, argv);
  if (group == "runtime") return platformctl::run_runtime(argc, argv);
  if (group == "bridge") return platformctl::run_bridge(argc, argv);
  if (group == "stream") return platformctl::run_stream(argc, argv);
  return platformctl::usage_error("unknown command '" + group + "'");
}
