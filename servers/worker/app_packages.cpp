#include "app_packages.hpp"

#include "agent_sandbox.hpp"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../common/json_fields.hpp"
#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "app_workspace.hpp"
#include "build_runner.hpp"
#include "builder_checks.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;
using ojson = nlohmann::ordered_json;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr std::uintmax_t max_manifest_bytes = 1u << 20;
constexpr std::uintmax_t max_lock_bytes = 16u << 20;
constexpr std::size_t max_installed_packages = 50000;
constexpr const char* stamp_name = ".platform-app-packages";  // in an app's own node_modules
constexpr const char* staging_dir_name = ".app-packages";     // beside the workspaces: no app id starts with '.'
constexpr const char* default_registry_host = "registry.npmjs.org";

npm_platform this_platform() {
  npm_platform p;
#if defined(__aarch64__)
  p.cpu = "arm64";
#elif defined(__x86_64__)
  p.cpu = "x64";
#endif
#if defined(__GLIBC__)
  p.libc = "glibc";
#else
  p.libc = "musl";
#endif
  return p;
}

tl::unexpected<packages_error> failure(api_error code, std::string message, violations problems = {}) {
  return tl::unexpected(packages_error{code, std::move(message), std::move(problems), {}, -1, false});
}

// A failure of a step below (writing, copying, linking), as it came.
tl::unexpected<packages_error> failure(const error& e) {
  return tl::unexpected(packages_error{e.code, e.message, {}, {}, -1, false});
}

struct file_text {
  bool exists = false;
  std::string text;
};

// A regular file of the workspace (or the template), never through a link.
tl::expected<file_text, packages_error> read_file(const fs::path& p, std::uintmax_t max_bytes) {
  std::error_code ec;
  auto st = fs::symlink_status(p, ec);
  if (!fs::exists(st)) return file_text{};
  if (!fs::is_regular_file(st)) {
    return failure(api_error::app_packages_invalid, p.filename().string() + " must be a regular file, not a link or a directory");
  }
  if (fs::file_size(p, ec) > max_bytes) return failure(api_error::app_packages_invalid, p.filename().string() + " is too large");
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return failure(api_error::workspace_unavailable, "cannot read " + p.filename().string());
  return file_text{true, ss.str()};
}

// What an app's own tree was installed from: its package.json and lock, byte for byte (kept in
// the tree, so a changed file or a tree copied from elsewhere shows).
std::string stamp_text(std::string_view manifest, std::string_view lock) {
  std::string out(manifest);
  out.push_back('\0');
  out.append(lock);
  return out;
}

// The names under dependencies and devDependencies of a package.json, whatever their values
// (what decides whether an app has packages of its own; the rules are checked on install).
std::set<std::string, std::less<>> dependency_names(const std::string& package_json) {
  std::set<std::string, std::less<>> out;
  json doc = servers::parse_json_within(package_json, json_limits{});
  if (!doc.is_object()) return out;
  for (const char* field : {"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"}) {
    if (!doc.contains(field) || !doc[field].is_object()) continue;
    for (const auto& [name, v] : doc[field].items()) out.insert(name);
  }
  return out;
}

std::set<std::string, std::less<>> own_names(const std::string& app_json, const std::set<std::string, std::less<>>& platform) {
  std::set<std::string, std::less<>> out;
  for (const auto& n : dependency_names(app_json)) {
    if (!platform.contains(n)) out.insert(n);
  }
  return out;
}

std::set<std::string, std::less<>> registry_hosts(const config& cfg) {
  std::set<std::string, std::less<>> hosts{default_registry_host};
  std::string r = cfg.npm_registry;
  if (auto scheme = r.find("://"); scheme != std::string::npos) r.erase(0, scheme + 3);
  r = r.substr(0, r.find('/'));
  if (auto at = r.rfind('@'); at != std::string::npos) r.erase(0, at + 1);
  if (!r.empty()) hosts.insert(ascii_lower(r));
  return hosts;
}

std::string find_npm(const std::string& node) {
  std::error_code ec;
  auto beside = fs::path(node).parent_path() / "npm";
  if (fs::is_regular_file(beside, ec)) return beside.string();
  for (const char* p : {"/usr/local/bin/npm", "/usr/bin/npm"}) {
    if (fs::is_regular_file(p, ec)) return p;
  }
  return {};
}

// ---- the installed tree ----

// Every package folder under `root`/node_modules, nested ones included: lock-style key ->
// version (empty when its package.json is unreadable; "(link)" for anything not a folder).
bool read_installed(const fs::path& root, const std::string& rel, std::map<std::string, std::string>& out) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(root / rel, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.starts_with('.')) continue;
    if (!name.starts_with('@')) {
      names.push_back(name);
      continue;
    }
    if (!fs::is_directory(it->symlink_status(ec))) {
      names.push_back(name);
      continue;
    }
    for (fs::directory_iterator sc(it->path(), ec), e2; !ec && sc != e2; sc.increment(ec)) {
      names.push_back(name + "/" + sc->path().filename().string());
    }
  }
  for (const auto& name : names) {
    if (out.size() >= max_installed_packages) return false;
    std::string key = rel + "/" + name;
    if (!fs::is_directory(fs::symlink_status(root / key, ec))) {
      out[key] = "(link)";
      continue;
    }
    std::string version;
    auto file = read_file(root / key / "package.json", max_manifest_bytes);
    json manifest = file && file->exists ? servers::parse_json_within(file->text, json_limits{}) : json();
    if (manifest.is_object() && manifest.contains("version") && manifest["version"].is_string()) {
      version = manifest["version"].get<std::string>();
    }
    out[key] = version;
    if (!read_installed(root, key + "/node_modules", out)) return false;
  }
  return true;
}

// ---- npm ----

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// npm's output for the model: the worker's paths and the registry's address replaced by
// names, npm's pointer to its debug log dropped, and bounded again.
std::string scrub_npm_output(const std::string& output, const std::vector<std::pair<std::string, std::string>>& names,
                             std::size_t limit) {
  output_tail tail(limit);
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("complete log of this run") != std::string::npos || line.find("npm notice") != std::string::npos) continue;
    for (const auto& [from, to] : names) line = replace_all(line, from, to);
    tail.append_line(line);
  }
  return tail.text();
}

struct npm_run {
  const config& cfg;
  const npm_limits& limits;
  fs::path staging;
  std::string app_id;  // whose jail npm runs in
};

// An offline worker installs from its shared package cache, which npm cannot read read-only (on
// a hit it writes the packument back) and no app may write. So each install gets a private
// cache: the shared index copied, the content linked (the links stay the worker's, read-only to
// the jail: the sandbox never gives away a file linked elsewhere). Online, the private cache
// starts empty and npm fills it through the internet door.
void seed_private_cache(const fs::path& shared, const fs::path& mine) {
  std::error_code ec;
  fs::create_directories(mine / "_cacache", ec);
  fs::copy(shared / "_cacache" / "index-v5", mine / "_cacache" / "index-v5", fs::copy_options::recursive, ec);
  fs::path content = shared / "_cacache" / "content-v2";
  for (fs::recursive_directory_iterator it(content, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec)) {
    auto st = it->symlink_status(ec);
    fs::path to = mine / "_cacache" / "content-v2" / fs::relative(it->path(), content, ec);
    if (fs::is_directory(st)) {
      fs::create_directories(to, ec);
    } else if (fs::is_regular_file(st)) {
      std::error_code link_ec;
      fs::create_hard_link(it->path(), to, link_ec);
      if (link_ec) fs::copy_file(it->path(), to, link_ec);  // another file system
    }
  }
}

tl::expected<void, packages_error> run_npm(const npm_run& run, const std::vector<package_pin>& pins) {
  std::string node = find_node();
  std::string npm = node.empty() ? std::string() : find_npm(node);
  if (npm.empty()) return failure(api_error::npm_unavailable, "no npm executable was found on this worker");
  if (!run.cfg.sandbox) return failure(api_error::npm_unavailable, "the worker has no sandbox to run npm in");
  // npm in the app's jail: the staging dir its only writable place of the app's, the registry
  // through the internet door (none when offline).
  std::error_code ec;
  jail_plan plan;
  plan.app_id = run.app_id;
  plan.workspace = run.staging.string();
  plan.own_node_modules = true;
  plan.internet = !run.cfg.npm_offline;
  plan.read_only = {fs::canonical(node, ec).parent_path().string(), fs::canonical(npm, ec).parent_path().parent_path().string()};
  auto jail = run.cfg.sandbox->open(plan);
  if (!jail) return failure(jail.error());
  const std::string home = (*jail)->home();
  const std::string cache = home + "/npm-cache";
  if (run.cfg.npm_offline) seed_private_cache(run.cfg.npm_cache, cache);
  std::vector<std::string> argv = {npm, "install"};
  for (const auto& p : pins) argv.push_back(p.text());
  for (const char* flag : {"--save-exact", "--ignore-scripts", "--no-audit", "--no-fund", "--update-notifier=false",
                           "--loglevel=error", "--no-progress", "--color=false", "--include=dev", "--include=optional",
                           "--include=peer", "--allow-git=none", "--allow-remote=none", "--allow-file=none",
                           "--allow-directory=none"}) {
    argv.emplace_back(flag);
  }
  argv.push_back(run.cfg.npm_offline ? "--offline" : "--prefer-offline");
  std::vector<std::string> env = {"PATH=" + fs::path(node).parent_path().string() + ":/usr/local/bin:/usr/bin:/bin",
                                  "LANG=C.UTF-8",
                                  "NO_COLOR=1",
                                  "CI=1",
                                  "npm_config_cache=" + cache,
                                  "npm_config_userconfig=" + home + "/.npmrc"};
  if (!run.cfg.npm_registry.empty()) env.push_back("npm_config_registry=" + run.cfg.npm_registry);
  auto r = run_bounded(argv, run.staging.string(), env, run.limits.timeout, run.limits.output_tail_bytes * 4, jail->get());
  if (r.ok) return {};
  std::vector<std::pair<std::string, std::string>> names = {{run.staging.string(), "<workspace>"},
                                                            {cache, "<npm cache>"},
                                                            {run.cfg.npm_cache, "<npm cache>"},
                                                            {home, "<home>"}};
  if (!run.cfg.npm_registry.empty()) names.emplace_back(run.cfg.npm_registry, "<registry>");
  packages_error e;
  e.code = api_error::npm_failed;
  e.exit_code = r.exit_code;
  e.timed_out = r.timed_out;
  e.npm_output = scrub_npm_output(r.output, names, run.limits.output_tail_bytes);
  if (r.timed_out) {
    e.message = "npm did not finish within " + std::to_string(run.limits.timeout.count()) + " s";
  } else if (e.npm_output.find("ENOTCACHED") != std::string::npos) {
    e.message = "npm failed: this worker installs offline, from its package cache, which does not hold what was asked for";
  } else if (e.npm_output.find("ETARGET") != std::string::npos || e.npm_output.find("E404") != std::string::npos) {
    e.message = "npm failed: the registry has no such package or version";
  } else {
    e.message = "npm failed (exit code " + std::to_string(r.exit_code) + ")";
  }
  return tl::unexpected(std::move(e));
}

// ---- staging ----

// A folder beside the workspaces, removed with what is left in it. One the app left behind (a
// worker stopped mid-install) goes first: the caller holds the workspace's guard.
struct staging_dir {
  fs::path path;
  explicit staging_dir(const fs::path& ws) {
    std::error_code ec;
    fs::path parent = ws.parent_path() / staging_dir_name;
    fs::create_directories(parent, ec);
    std::string prefix = ws.filename().string() + ".";
    std::vector<fs::path> left;
    for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.starts_with(prefix) && name.size() == prefix.size() + 6) left.push_back(it->path());
    }
    for (const auto& p : left) fs::remove_all(p, ec);
    ec.clear();
    std::string tmpl = (parent / (prefix + "XXXXXX")).string();
    if (!ec && mkdtemp(tmpl.data())) path = tmpl;
  }
  ~staging_dir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  staging_dir(const staging_dir&) = delete;
  staging_dir& operator=(const staging_dir&) = delete;
};

result<void> write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return fail(api_error::workspace_unavailable, "cannot write " + p.filename().string());
  return {};
}

// The tree npm starts from: the app's own one when it has it, else the template's. Copied, so
// neither is ever written; the stamps of the copied tree are dropped.
result<void> copy_base_tree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) return fail(api_error::workspace_unavailable, "cannot copy the installed packages: " + ec.message());
  for (const char* stamp : {".platform-pinned-install", stamp_name}) fs::remove(to / stamp, ec);
  return {};
}

// Replaces the workspace's node_modules (a link or a folder) by `tree`, and then its
// package.json and lock by `files` (name -> staged path). Anything that fails puts back what
// was there.
result<void> swap_in(const fs::path& ws, const fs::path& staging, const fs::path& tree,
                     const std::vector<std::pair<std::string, fs::path>>& files) {
  std::error_code ec;
  fs::path nm = ws / "node_modules";
  fs::path previous = staging / "previous-node_modules";
  auto st = fs::symlink_status(nm, ec);
  fs::path link_target;
  if (fs::is_symlink(st)) {
    link_target = fs::read_symlink(nm, ec);
    fs::remove(nm, ec);
  } else if (fs::exists(st)) {
    fs::rename(nm, previous, ec);
  }
  if (ec) return fail(api_error::workspace_unavailable, "cannot move the workspace's node_modules aside: " + ec.message());
  auto put_back = [&] {
    std::error_code ignored;
    fs::remove_all(nm, ignored);
    if (!link_target.empty()) fs::create_directory_symlink(link_target, nm, ignored);
    else if (fs::exists(previous, ignored)) fs::rename(previous, nm, ignored);
  };
  fs::rename(tree, nm, ec);
  if (ec) {
    put_back();
    return fail(api_error::workspace_unavailable, "cannot move the new node_modules into the workspace: " + ec.message());
  }
  std::vector<std::pair<fs::path, fs::path>> saved;  // workspace file -> its old copy in staging
  for (const auto& [name, staged] : files) {
    fs::path target = ws / name, old = staging / ("previous-" + name);
    bool had = fs::exists(fs::symlink_status(target, ec));
    if (had) fs::copy_file(target, old, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(staged, target, ec);
    if (ec) {
      for (const auto& [t, o] : saved) fs::rename(o, t, ec);
      put_back();
      return fail(api_error::workspace_unavailable, "cannot write " + name + " into the workspace");
    }
    if (had) saved.emplace_back(target, old);
  }
  return {};
}

struct install_result {
  std::string manifest;  // the package.json and lock now in the workspace
  std::string lock;
  long long duration_ms = 0;
};

// Installs the app's packages in staging and swaps them in. `pins` empty: the app's own lock as
// it is (a restore); else add them (package.json gets the template's pins first).
tl::expected<install_result, packages_error> install(const config& cfg, const fs::path& ws, const std::vector<package_pin>& pins,
                                                     const npm_limits& limits) {
  auto started = clock_type::now();
  const bool adding = !pins.empty();
  fs::path tmpl(cfg.app_template_dir);
  auto tmpl_manifest = read_file(tmpl / "package.json", max_manifest_bytes);
  if (!tmpl_manifest || !tmpl_manifest->exists) return failure(api_error::template_unavailable, "the app template has no package.json");
  auto app_manifest = read_file(ws / "package.json", max_manifest_bytes);
  if (!app_manifest) return tl::unexpected(app_manifest.error());
  if (!app_manifest->exists) return failure(api_error::app_packages_invalid, "the workspace has no package.json");
  auto app_lock = read_file(ws / "package-lock.json", max_lock_bytes);
  if (!app_lock) return tl::unexpected(app_lock.error());
  if (!adding && !app_lock->exists) {
    return failure(api_error::app_packages_invalid, "the workspace has no package-lock.json to install its packages from");
  }

  std::string manifest_text = app_manifest->text;
  if (adding) {
    auto rebased = manifest_with_platform_pins(app_manifest->text, tmpl_manifest->text);
    if (!rebased) return failure(api_error::app_packages_invalid, "package.json is not a JSON object");
    manifest_text = *rebased;
  }
  auto manifest = read_app_manifest(manifest_text);
  if (!manifest.manifest) return failure(api_error::app_packages_invalid, "package.json breaks the rules for app packages", manifest.problems);
  auto hosts = registry_hosts(cfg);
  if (app_lock->exists) {
    auto problems = check_app_lock(app_lock->text, adding ? nullptr : &*manifest.manifest, hosts);
    if (!problems.empty()) return failure(api_error::app_packages_invalid, "package-lock.json breaks the rules for app packages", problems);
  }

  staging_dir staging(ws);
  if (staging.path.empty()) return failure(api_error::workspace_unavailable, "cannot create a staging folder for npm");
  if (auto w = write_text(staging.path / "package.json", manifest_text); !w) return failure(w.error());
  if (app_lock->exists) {
    if (auto w = write_text(staging.path / "package-lock.json", app_lock->text); !w) return failure(w.error());
  }
  std::error_code ec;
  fs::path nm = ws / "node_modules";
  auto nm_status = fs::symlink_status(nm, ec);
  fs::path base = fs::is_directory(nm_status) && !fs::is_symlink(nm_status) ? nm : tmpl / "node_modules";
  base = fs::canonical(base, ec);
  if (ec) return failure(api_error::template_unavailable, "the app template's node_modules is not installed: run scripts/setup-template.sh");
  if (auto c = copy_base_tree(base, staging.path / "node_modules"); !c) return failure(c.error());

  if (auto r = run_npm(npm_run{cfg, limits, staging.path, ws.filename().string()}, pins); !r) return tl::unexpected(r.error());

  // What npm left: in a restore the app's own lock stays (npm may add other platforms' optional
  // packages to its copy); an add keeps npm's package.json and lock, checked like any other.
  install_result out;
  out.manifest = manifest_text;
  out.lock = app_lock->text;
  if (adding) {
    auto m = read_file(staging.path / "package.json", max_manifest_bytes);
    auto l = read_file(staging.path / "package-lock.json", max_lock_bytes);
    if (!m || !l || !m->exists || !l->exists) return failure(api_error::npm_failed, "npm left no package.json or package-lock.json");
    out.manifest = m->text;
    out.lock = l->text;
    auto after = read_app_manifest(out.manifest);
    if (!after.manifest) return failure(api_error::app_packages_invalid, "npm wrote a package.json that breaks the rules", after.problems);
    auto problems = check_app_lock(out.lock, &*after.manifest, hosts);
    if (!problems.empty()) return failure(api_error::app_packages_invalid, "npm wrote a lock that breaks the rules", problems);
    for (const auto& p : pins) {
      auto& deps = after.manifest->dependencies;
      auto& dev = after.manifest->dev_dependencies;
      std::string saved = deps.contains(p.name) ? deps[p.name] : dev.contains(p.name) ? dev[p.name] : std::string();
      if (saved != p.version) {
        return failure(api_error::npm_failed, "npm did not pin " + p.text() + " in package.json (it has " +
                                         (saved.empty() ? std::string("nothing") : saved) + ")");
      }
    }
  }
  std::map<std::string, std::string> installed;
  if (!read_installed(staging.path, "node_modules", installed)) {
    return failure(api_error::app_packages_invalid, "the installed tree has more than 50000 packages");
  }
  auto problems = compare_installed_tree(out.lock, installed, this_platform());
  if (!problems.empty()) {
    return failure(api_error::npm_failed, "the packages npm installed are not the ones the lock pins, so nothing was changed",
                   problems);
  }
  if (auto w = write_text(staging.path / "node_modules" / stamp_name, stamp_text(out.manifest, out.lock)); !w) {
    return failure(w.error());
  }
  std::vector<std::pair<std::string, fs::path>> files;
  if (adding) {
    files = {{"package-lock.json", staging.path / "package-lock.json"}, {"package.json", staging.path / "package.json"}};
  }
  if (auto s = swap_in(ws, staging.path, staging.path / "node_modules", files); !s) return failure(s.error());
  out.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - started).count();
  return out;
}

result<void> link_template_tree(const fs::path& tmpl, const fs::path& ws) {
  std::error_code ec;
  fs::path target = fs::canonical(tmpl / "node_modules", ec);
  if (ec) {
    return fail(api_error::template_unavailable, "the app template's node_modules is not installed: run "
                                        "scripts/setup-template.sh");
  }
  fs::create_directory_symlink(target, ws / "node_modules", ec);
  if (ec) return fail(api_error::workspace_unavailable, "cannot link node_modules into the workspace: " + ec.message());
  return {};
}

std::string stamp_of(const fs::path& nm) {
  auto f = read_file(nm / stamp_name, max_manifest_bytes + max_lock_bytes + 1);
  return f && f->exists ? f->text : std::string();
}

ojson package_problems_json(const violations& problems) {
  ojson list = ojson::array();
  for (const auto& p : problems) list.push_back({{"path", p.path}, {"code", p.code}, {"message", p.message}});
  return list;
}

}  // namespace

error as_error(const packages_error& e) {
  std::string message = e.message;
  for (std::size_t i = 0; i < e.problems.size() && i < 20; ++i) {
    message += (i == 0 ? ": " : "; ") + (e.problems[i].path.empty() ? "" : e.problems[i].path + ": ") + e.problems[i].message;
  }
  if (!e.npm_output.empty()) message += "\nnpm said:\n" + e.npm_output;
  return error{e.code, message};
}

std::set<std::string, std::less<>> platform_package_names(const config& cfg) {
  auto f = read_file(fs::path(cfg.app_template_dir) / "package.json", max_manifest_bytes);
  return f && f->exists ? dependency_names(f->text) : std::set<std::string, std::less<>>{};
}

tl::expected<void, packages_error> ensure_node_modules(const config& cfg, const std::string& workspace_dir,
                                                       const npm_limits& limits) {
  fs::path ws(workspace_dir), tmpl(cfg.app_template_dir);
  fs::path nm = ws / "node_modules";
  std::error_code ec;
  auto st = fs::symlink_status(nm, ec);
  auto manifest = read_file(ws / "package.json", max_manifest_bytes);
  auto own = manifest && manifest->exists ? own_names(manifest->text, platform_package_names(cfg))
                                          : std::set<std::string, std::less<>>{};
  if (fs::is_symlink(st) && !links_to_template_tree(cfg, workspace_dir)) {
    // A link anywhere else (another app's tree, one of its own making) would run that tree's
    // vite in the next build: the only link there may be is the template's.
    fs::remove(nm, ec);
    st = fs::symlink_status(nm, ec);
  }
  if (own.empty()) {
    if (fs::is_symlink(st)) return {};
    if (fs::exists(st)) {
      // Packages removed since: back to the template's tree.
      fs::remove_all(nm, ec);
      if (ec) return failure(api_error::workspace_unavailable, "cannot remove the app's own node_modules: " + ec.message());
    }
    if (auto r = link_template_tree(tmpl, ws); !r) return failure(r.error());
    return {};
  }
  if (fs::is_directory(st) && !fs::is_symlink(st)) {
    auto lock = read_file(ws / "package-lock.json", max_lock_bytes);
    if (lock && stamp_of(nm) == stamp_text(manifest->text, lock->text)) return {};
  }
  auto r = install(cfg, ws, {}, limits);
  if (!r) {
    // Without its own tree the app still has the template's: the builder can read and fix.
    if (!fs::exists(fs::symlink_status(nm, ec))) (void)link_template_tree(tmpl, ws);
    return tl::unexpected(r.error());
  }
  return {};
}

packages_outcome add_packages(const config& cfg, const std::string& workspace_dir, const json& packages,
                              const npm_limits& limits) {
  if (!packages.is_array() || std::any_of(packages.begin(), packages.end(), [](const json& p) { return !p.is_string(); })) {
    return {{{"status", "invalid_packages"},
             {"problems", ojson::array({{{"path", "packages"}, {"code", "invalid_spec"},
                                         {"message", "\"packages\" must be an array of strings like \"clsx@2.1.1\"."}}})},
             {"message", "Nothing was installed."}},
            true};
  }
  std::vector<std::string> specs;
  for (const auto& p : packages) specs.push_back(p.get<std::string>());
  auto request = check_package_request(specs, platform_package_names(cfg));
  if (!request.problems.empty()) {
    return {{{"status", "invalid_packages"}, {"problems", package_problems_json(request.problems)},
             {"message", "Nothing was installed. Give each package as name@x.y.z: one exact version from the npm "
                         "registry, not one of the platform's own packages. Fix the entries above and call "
                         "add_packages again."}},
            true};
  }
  if (auto ws = ensure_app_workspace(cfg, workspace_dir); !ws) {
    return {{{"status", "install_failed"}, {"code", std::string(code_name(ws.error()))}, {"error", ws.error().message},
             {"message", "The workspace is not ready. This is a platform problem, not an error in the app: report it."}},
            true};
  }
  auto r = install(cfg, fs::path(workspace_dir), request.pins, limits);
  if (!r) {
    const auto& e = r.error();
    ojson p = {{"status", "install_failed"}, {"code", std::string(code_of(e.code))}, {"error", e.message}};
    if (!e.problems.empty()) p["problems"] = package_problems_json(e.problems);
    if (e.code == api_error::npm_failed && (e.exit_code >= 0 || e.timed_out)) {
      p["npm"] = {{"exitCode", e.exit_code}, {"timedOut", e.timed_out}, {"output", e.npm_output}};
    }
    p["message"] = "Nothing was changed in the workspace (package.json, package-lock.json and node_modules are as "
                   "they were). Check the name and the exact version, or do without the package.";
    return {p, true};
  }
  auto after = read_app_manifest(r->manifest);
  ojson own = ojson::object();
  auto platform = platform_package_names(cfg);
  if (after.manifest) {
    for (const auto& deps : {after.manifest->dependencies, after.manifest->dev_dependencies}) {
      for (const auto& [name, version] : deps) {
        if (!platform.contains(name)) own[name] = version;
      }
    }
  }
  ojson added = ojson::array();
  for (const auto& p : request.pins) added.push_back(p.text());
  return {{{"status", "ok"}, {"card", "packages"}, {"added", added}, {"appPackages", own}, {"durationMs", r->duration_ms},
           {"message", "Installed and pinned in package.json and package-lock.json. Import them from src/ as usual, "
                       "then call done_building."}},
          false};
}

}  // namespace platform::worker
