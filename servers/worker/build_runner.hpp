#pragma once
// done_building's two checks (spec "What the service does" 9): the type check and the
// production build of an app workspace, run in parallel as child processes with an explicit
// minimal environment (PATH with node, a throwaway HOME, nothing of the worker's: no tokens,
// no provider keys), a time limit each (the process group is killed when it runs out) and a
// bounded tail of their combined stdout and stderr.
#include <chrono>
#include <string>
#include <vector>

#include "platform/error.hpp"

namespace platform::worker {

class turn_jail;

struct check_result {
  bool ok = false;
  int exit_code = -1;
  bool timed_out = false;
  std::string output;  // the tail, verbatim (marked when truncated)
  bool truncated = false;
  std::size_t output_bytes = 0;
  long long duration_ms = 0;
};

struct build_limits {
  std::chrono::seconds typecheck{120};
  std::chrono::seconds build{180};
  std::size_t output_tail_bytes = 8 * 1024;
};

struct build_checks {
  check_result typecheck;
  check_result build;
};

// Runs `tsc` (`--noEmit -p .`, or `-b` for a tsconfig with project references) and
// `vite build` in `workspace_dir`, both from its node_modules, at the same time. Errors:
// `node_unavailable` (no node executable), `workspace_incomplete` (no node_modules tools),
// `spawn_failed`.
// `jail`: the app's jail both checks run in (its HOME and TMPDIR); none: unjailed, with a temp
// home (the worker's own tests).
result<build_checks> run_build_checks(const std::string& workspace_dir, const build_limits& limits = {},
                                      const turn_jail* jail = nullptr);

// The node executable: the worker's PATH first, then the usual places; empty when none.
std::string find_node();

// A throwaway HOME (and TMPDIR) for one tool run: tools may write caches there, and nothing of
// the worker's own home is visible to them. Removed with everything in it on destruction;
// `path` is empty when it could not be made.
struct temp_home {
  std::string path;
  temp_home();
  ~temp_home();
  temp_home(const temp_home&) = delete;
  temp_home& operator=(const temp_home&) = delete;
};

// Runs `argv` in `cwd` with exactly `env`, stdout and stderr as one stream of which the last
// `tail_bytes` are kept; the process group is killed when `limit` passes (timed_out).
check_result run_bounded(const std::vector<std::string>& argv, const std::string& cwd, const std::vector<std::string>& env,
                         std::chrono::seconds limit, std::size_t tail_bytes, const turn_jail* jail = nullptr);

}  // namespace platform::worker
