#include "app_workspace.hpp"

#include <filesystem>
#include <mutex>
#include <set>

#include "app_packages.hpp"
#include "platform/api_error.hpp"

namespace platform::worker {

namespace fs = std::filesystem;

namespace {

// Installed or generated parts of the template that are not app source.
bool template_only(const fs::path& rel) {
  auto first = *rel.begin();
  return first == "node_modules" || first == "dist" || first == ".vite-cache";
}

result<void> copy_template(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    fs::path rel = fs::relative(it->path(), from, ec);
    if (ec) break;
    if (template_only(rel)) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    fs::path target = to / rel;
    if (it->is_directory(ec)) {
      fs::create_directories(target, ec);
    } else if (it->is_regular_file(ec) && !fs::exists(fs::symlink_status(target, ec))) {
      fs::copy_file(it->path(), target, ec);
    }
    if (ec) break;
  }
  if (ec) return fail(api_error::workspace_unavailable, "cannot copy the app template into the workspace: " + ec.message());
  return {};
}

// One writer of a workspace's build output and packages at a time.
std::mutex busy_mu;
std::set<std::string>& busy_dirs() {
  static std::set<std::string> dirs;
  return dirs;
}

}  // namespace

workspace_guard::workspace_guard(std::string dir) : dir_(std::move(dir)) {
  std::lock_guard lock(busy_mu);
  owned_ = busy_dirs().insert(dir_).second;
}

workspace_guard::~workspace_guard() {
  if (!owned_) return;
  std::lock_guard lock(busy_mu);
  busy_dirs().erase(dir_);
}

std::string app_workspace_dir(const config& cfg, const std::string& app_id) {
  return (std::filesystem::absolute(cfg.workspaces_dir) / app_id).string();
}

result<bool> ensure_app_workspace(const config& cfg, const std::string& workspace_dir) {
  std::error_code ec;
  fs::path ws = fs::absolute(workspace_dir, ec);
  fs::create_directories(ws, ec);
  if (ec) return fail(api_error::workspace_unavailable, "cannot create the app workspace: " + ec.message());
  if (cfg.app_template_dir.empty() || !fs::is_regular_file(fs::path(cfg.app_template_dir) / "package.json", ec)) {
    return fail(api_error::template_unavailable, "no app workspace template was found (set PLATFORM_APP_TEMPLATE_DIR)");
  }
  fs::path tmpl(cfg.app_template_dir);
  bool copied = false;
  if (!fs::exists(ws / "package.json", ec)) {
    if (auto r = copy_template(tmpl, ws); !r) return tl::unexpected(r.error());
    copied = true;
  }
  if (auto r = ensure_node_modules(cfg, ws.string()); !r) return tl::unexpected(as_error(r.error()));
  return copied;
}

}  // namespace platform::worker
