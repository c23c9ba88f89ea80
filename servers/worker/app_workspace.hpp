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
// template's files (files already there, e.g. a restored agents.json, are kept); a workspace
// without node_modules gets a symlink to the template's installed node_modules, which every
// workspace shares (installed once by scripts/setup-template.sh, never per app). Returns
// whether the template's files were copied. Errors: `template_unavailable`,
// `workspace_unavailable`.
result<bool> ensure_app_workspace(const config& cfg, const std::string& workspace_dir);

}  // namespace platform::worker
