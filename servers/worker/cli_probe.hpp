#pragma once
// Running a runtime CLI to its end for a short answer (`--version`, `run --help`, `login
// status`, `models`, `export`): stdin closed at once, stdout and stderr both kept, and the
// whole process group killed when it overstays, so a hung CLI cannot hold a worker thread.
#include <chrono>
#include <string>

#include "adapters/child_process.hpp"

namespace platform::worker {

struct cli_output {
  int exit_code = -1;      // 128 + signal when killed
  bool timed_out = false;
  std::string out;         // stdout, up to the byte limit
  std::string err;         // the stderr tail child_process keeps
};

// Errors: `spawn_failed` (the program cannot be started at all, e.g. it does not exist).
result<cli_output> run_cli(const process_spec& spec, std::chrono::milliseconds timeout,
                           std::size_t max_out_bytes = 16u << 20);

// Whether `path` is a regular file this process may execute (a CLI that is installed).
bool executable(const std::string& path);

// The first "1.2.3"-like token of a version banner ("2.1.330 (Claude Code)", "codex-cli 0.169.0").
std::string version_token(const std::string& text);

}  // namespace platform::worker
