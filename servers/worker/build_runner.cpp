#include "build_runner.hpp"

#include "agent_sandbox.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>

#include "adapters/child_process.hpp"
#include "builder_checks.hpp"
#include "platform/api_error.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr const char* tsc_script = "node_modules/typescript/bin/tsc";
constexpr const char* vite_script = "node_modules/vite/bin/vite.js";

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

temp_home::temp_home() {
  std::string tmpl = (fs::temp_directory_path() / "platform-build-XXXXXX").string();
  if (mkdtemp(tmpl.data())) path = tmpl;
}

temp_home::~temp_home() {
  std::error_code ec;
  if (!path.empty()) fs::remove_all(path, ec);
}

namespace {

std::vector<std::string> build_env(const std::string& node, const std::string& home) {
  std::string node_dir = fs::path(node).parent_path().string();
  return {"PATH=" + node_dir + ":/usr/local/bin:/usr/bin:/bin",
          "HOME=" + home,
          "TMPDIR=" + home,
          "LANG=C.UTF-8",
          // Plain text for the model, and no interactive progress output.
          "NO_COLOR=1",
          "FORCE_COLOR=0",
          "CI=1"};
}

// Kills the process group when the time limit passes before `finish()`. The flag is only
// read under the mutex, so the kill can never hit a process the reader already reaped.
class watchdog {
 public:
  watchdog(child_process& proc, std::chrono::seconds limit)
      : thread_([this, &proc, limit] {
          std::unique_lock lock(mu_);
          if (!cv_.wait_for(lock, limit, [this] { return finished_; })) {
            fired_ = true;
            proc.kill_group();
          }
        }) {}
  ~watchdog() { finish(); }
  void finish() {
    {
      std::lock_guard lock(mu_);
      finished_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] bool fired() const { return fired_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool finished_ = false;
  bool fired_ = false;
  std::thread thread_;
};

}  // namespace

check_result run_bounded(const std::vector<std::string>& argv, const std::string& cwd, const std::vector<std::string>& env,
                         std::chrono::seconds limit, std::size_t tail_bytes, const turn_jail* jail) {
  check_result r;
  auto started = clock_type::now();
  // One stream for both: compilers and bundlers split errors between stdout and stderr, and
  // the order they came in is part of the message.
  process_spec spec{"/bin/sh", {"-c", "exec \"$0\" \"$@\" 2>&1"}, env, cwd, 4096};
  spec.args.insert(spec.args.end(), argv.begin(), argv.end());
  if (jail) {
    auto jailed = jail->wrap(std::move(spec));
    if (!jailed) {
      r.output = "could not start the command: " + jailed.error().message;
      return r;
    }
    spec = std::move(*jailed);
  }
  auto proc = child_process::spawn(spec);
  if (!proc) {
    r.output = "could not start the command: " + proc.error().message;
    return r;
  }
  (*proc)->close_stdin();
  output_tail tail(tail_bytes);
  {
    watchdog dog(**proc, limit);
    std::string line;
    while ((*proc)->read_line(line, 64 * 1024)) tail.append_line(line);
    dog.finish();
    r.timed_out = dog.fired();
  }
  r.exit_code = (*proc)->wait();
  if (r.timed_out) tail.append_line("[stopped: no result within " + std::to_string(limit.count()) + " s]");
  r.ok = !r.timed_out && r.exit_code == 0;
  r.output = tail.text();
  r.truncated = tail.truncated();
  r.output_bytes = tail.total_bytes();
  r.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - started).count();
  return r;
}

namespace {

// A solution-style tsconfig (project references) checks nothing under `-p .`.
std::vector<std::string> typecheck_args(const fs::path& workspace) {
  std::ifstream in(workspace / "tsconfig.json", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().find("\"references\"") != std::string::npos) return {tsc_script, "-b"};
  return {tsc_script, "--noEmit", "-p", "."};
}

}  // namespace

std::string find_node() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (!dir.empty() && dir.front() == '/' && executable(fs::path(dir) / "node")) return (fs::path(dir) / "node").string();
    }
  }
  for (const char* p : {"/usr/local/bin/node", "/usr/bin/node"}) {
    if (executable(p)) return p;
  }
  return {};
}

result<build_checks> run_build_checks(const std::string& workspace_dir, const build_limits& limits, const turn_jail* jail) {
  std::string node = find_node();
  if (node.empty()) return fail(api_error::node_unavailable, "no node executable was found on this worker");
  fs::path ws(workspace_dir);
  std::error_code ec;
  for (const char* tool : {tsc_script, vite_script}) {
    if (!fs::is_regular_file(ws / tool, ec)) {
      return fail(api_error::workspace_incomplete, std::string("the workspace has no ") + tool +
                                              ": its node_modules is missing (the platform installs it with "
                                              "scripts/setup-template.sh)");
    }
  }
  temp_home home;
  if (home.path.empty()) return fail(api_error::spawn_failed, "cannot create a temporary home for the build");
  auto env = build_env(node, home.path);
  std::vector<std::string> tsc = typecheck_args(ws);
  tsc.insert(tsc.begin(), node);
  // The runner config loader reads vite.config.ts in memory; the default bundles it into
  // node_modules/.vite-temp, which is the platform's shared template tree.
  std::vector<std::string> vite = {node, vite_script, "build", "--configLoader", "runner"};
  auto typecheck = std::async(std::launch::async, run_bounded, tsc, workspace_dir, env, limits.typecheck,
                              limits.output_tail_bytes, jail);
  check_result build = run_bounded(vite, workspace_dir, env, limits.build, limits.output_tail_bytes, jail);
  return build_checks{typecheck.get(), std::move(build)};
}

}  // namespace platform::worker
