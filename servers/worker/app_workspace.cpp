#include "app_workspace.hpp"

#include <filesystem>

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
  if (ec) return fail("workspace_unavailable", "cannot copy the app template into the workspace: " + ec.message());
  return {};
}

result<void> link_node_modules(const fs::path& tmpl, const fs::path& ws) {
  std::error_code ec;
  fs::path link = ws / "node_modules";
  if (fs::exists(fs::symlink_status(link, ec))) return {};
  fs::path target = fs::canonical(tmpl / "node_modules", ec);
  if (ec) {
    return fail("template_unavailable", "the app template's node_modules is not installed: run "
                                        "scripts/setup-template.sh");
  }
  fs::create_directory_symlink(target, link, ec);
  if (ec) return fail("workspace_unavailable", "cannot link node_modules into the workspace: " + ec.message());
  return {};
}

}  // namespace

std::string app_workspace_dir(const config& cfg, const std::string& app_id) {
  return (std::filesystem::absolute(cfg.workspaces_dir) / app_id).string();
}

result<bool> ensure_app_workspace(const config& cfg, const std::string& workspace_dir) {
  std::error_code ec;
  fs::path ws = fs::absolute(workspace_dir, ec);
  fs::create_directories(ws, ec);
  if (ec) return fail("workspace_unavailable", "cannot create the app workspace: " + ec.message());
  if (cfg.app_template_dir.empty() || !fs::is_regular_file(fs::path(cfg.app_template_dir) / "package.json", ec)) {
    return fail("template_unavailable", "no app workspace template was found (set PLATFORM_APP_TEMPLATE_DIR)");
  }
  fs::path tmpl(cfg.app_template_dir);
  bool copied = false;
  if (!fs::exists(ws / "package.json", ec)) {
    if (auto r = copy_template(tmpl, ws); !r) return tl::unexpected(r.error());
    copied = true;
  }
  if (auto r = link_node_modules(tmpl, ws); !r) return tl::unexpected(r.error());
  return copied;
}

}  // namespace platform::worker
