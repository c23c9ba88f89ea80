#pragma once
// An app's own npm packages (docs/app-runtime.md "npm packages"): the builder's add_packages
// tool, and the workspace's node_modules, which always follows its package.json and
// package-lock.json.
//
// An app with only the template's packages links the template's one installed tree (cheap, and
// never written to). An app with packages of its own gets a tree of its own: a copy of the
// template's tree (or of its previous own tree) in a staging folder beside the workspaces,
// brought to the app's lock by npm (exact pins, registry only, no install scripts, the shared
// npm cache, offline when PLATFORM_NPM_OFFLINE=1, a time limit, a minimal environment), checked
// against the lock, and only then swapped in with the new package.json and lock. A failure
// leaves the workspace exactly as it was.
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/app_packages.hpp"
#include "platform/error.hpp"
#include "worker_config.hpp"

namespace platform::worker {

struct npm_limits {
  std::chrono::seconds timeout{180};
  std::size_t output_tail_bytes = 4 * 1024;
};

// Why packages could not be installed. Codes: `app_packages_invalid` (package.json or the lock
// breaks the rules: `problems`), `npm_unavailable`, `npm_failed` (npm's scrubbed error tail in
// `npm_output`), `template_unavailable`, `workspace_unavailable`.
struct packages_error {
  api_error code;
  std::string message;
  violations problems;
  std::string npm_output;
  int exit_code = -1;
  bool timed_out = false;
};

// The error as one message: the problems and npm's tail included (done_building's report).
error as_error(const packages_error& e);

// Makes `workspace_dir`/node_modules what its package.json and lock say (see above): the
// template's tree when the app has no packages of its own, else its own tree, installed from its
// lock when there is none yet or when package.json or the lock changed since (a workspace
// restored on this worker, or files edited by hand).
tl::expected<void, packages_error> ensure_node_modules(const config& cfg, const std::string& workspace_dir,
                                                       const npm_limits& limits = {});

// The packages the template pins (the platform's: react, vite, typescript, ...), by name.
std::set<std::string, std::less<>> platform_package_names(const config& cfg);

// add_packages on a workspace (the caller holds its workspace_guard): the `packages` argument
// checked (platform/app_packages.hpp), then installed. The tool's JSON answer, and whether it
// is an error for the model.
struct packages_outcome {
  nlohmann::ordered_json payload;
  bool is_error = false;
};
packages_outcome add_packages(const config& cfg, const std::string& workspace_dir, const nlohmann::json& packages,
                              const npm_limits& limits = {});

}  // namespace platform::worker
