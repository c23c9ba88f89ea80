#pragma once
// A builder's app workspace (spec "What the service does" 1): a Vite + React + TypeScript
// project with Tailwind and starter components, made from templates/app-workspace.
#include <string>

#include "platform/error.hpp"
#include "worker_config.hpp"

namespace platform::worker {

// Where the app's builder workspace lives: $PLATFORM_WORKSPACES_DIR/<appId>, absolute.
std::string app_workspace_dir(const config& cfg, const std::string& app_id);

// Makes `workspace_dir` a buildable app workspace. A directory without package.json gets the
// template's files (files already there, e.g. a restored agents.json, are kept). Its
// node_modules follows its package.json (app_packages.hpp): a symlink to the template's
// installed node_modules, which every workspace with only the platform's packages shares
// (installed once by scripts/setup-template.sh, never per app), or the app's own tree, installed
// from its lock when missing or stale. Returns whether the template's files were copied. Call it
// holding the workspace's workspace_guard. Errors: `template_unavailable`,
// `workspace_unavailable`, and app_packages.hpp's install errors.
result<bool> ensure_app_workspace(const config& cfg, const std::string& workspace_dir);

// One writer of a workspace's build output and node_modules at a time (done_building,
// add_packages, the node_modules a turn starts with): whoever holds the guard of a directory.
class workspace_guard {
 public:
  explicit workspace_guard(std::string dir);
  ~workspace_guard();
  workspace_guard(const workspace_guard&) = delete;
  workspace_guard& operator=(const workspace_guard&) = delete;
  explicit operator bool() const { return owned_; }

 private:
  std::string dir_;
  bool owned_ = false;
};

}  // namespace platform::worker
