#include "platform/sandbox_jail.hpp"

#include <algorithm>
#include <array>

#include "platform/api_error.hpp"
#include "platform/internet_door.hpp"
#include "platform/ascii.hpp"

namespace platform {

namespace {

constexpr std::array<std::string_view, 6> system_dirs = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"};

bool normalized_absolute(std::string_view p) {
  if (p.empty() || p.front() != '/' || p.size() > 4096) return false;
  if (p.size() > 1 && p.back() == '/') return false;
  std::size_t i = 1;
  while (i <= p.size()) {
    std::size_t end = p.find('/', i);
    if (end == std::string_view::npos) end = p.size();
    std::string_view seg = p.substr(i, end - i);
    if (p.size() > 1 && (seg.empty() || seg == "." || seg == "..")) return false;
    i = end + 1;
  }
  for (char c : p) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

constexpr auto within = &sandbox_path_within;

tl::unexpected<error> invalid(std::string message) { return fail(api_error::sandbox_invalid, std::move(message)); }

}  // namespace

std::string_view to_string(sandbox_egress e) {
  switch (e) {
    case sandbox_egress::provider: return "provider";
    case sandbox_egress::broker: return "broker";
    case sandbox_egress::internet: return "internet";
  }
  return "provider";
}

std::uint16_t sandbox_door_port(sandbox_egress e) {
  switch (e) {
    case sandbox_egress::provider: return 47801;
    case sandbox_egress::broker: return 47802;
    case sandbox_egress::internet: return 47803;
  }
  return 47801;
}

std::string sandbox_door_url(sandbox_egress e) { return "http://127.0.0.1:" + std::to_string(sandbox_door_port(e)); }

std::span<const std::string_view> sandbox_system_dirs() { return system_dirs; }

bool sandbox_path_within(std::string_view inner, std::string_view outer) {
  if (outer == "/") return true;
  return inner == outer || (inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '/');
}

bool sandbox_env_allowed(std::string_view entry, std::string_view placeholder) {
  std::size_t eq = entry.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  std::string name = upper(entry.substr(0, eq));
  std::string_view value = entry.substr(eq + 1);
  for (char c : name) {
    if (!((c >= 'A' && c <= 'Z') || is_ascii_digit(c) || c == '_')) return false;
  }
  // Settings of the platform's own and the addresses of its stores name where the secrets are.
  bool platform_setting = name.starts_with("PLATFORM_") || name == "INTERNAL_API_TOKEN" || contains(name, "DATABASE") ||
                          contains(name, "REDIS") || name.starts_with("PG") || name.starts_with("AWS_") ||
                          name.starts_with("GOOGLE_APPLICATION");
  bool credential = contains(name, "KEY") || contains(name, "TOKEN") || contains(name, "SECRET") ||
                    contains(name, "PASSWORD") || contains(name, "PASSWD") || contains(name, "CREDENTIAL") ||
                    contains(name, "AUTH") || contains(name, "COOKIE") || contains(name, "SESSION");
  if (platform_setting) return false;
  // Where a CLI reads its credential from (CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR=3) is not one.
  bool descriptor = name.ends_with("_FILE_DESCRIPTOR") && !value.empty() && value.size() <= 3 &&
                    std::all_of(value.begin(), value.end(), is_ascii_digit);
  if (credential) return descriptor || (!placeholder.empty() && value == placeholder);
  return true;
}

result<sandbox_openings> parse_sandbox_openings(std::string_view text) {
  sandbox_openings o;
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    if (name == "files") o.files = true;
    else if (name == "processes") o.processes = true;
    else if (name == "identity") o.identity = true;
    else if (name == "network") o.network = true;
    else if (name == "credentials") o.credentials = true;
    else if (!name.empty()) {
      return fail(api_error::invalid_config,
                  "PLATFORM_SANDBOX_TEST_OPEN names walls: files, processes, identity, network, credentials");
    }
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return o;
}

sandbox_identity sandbox_identity_for(std::string_view app_id, std::uint32_t base, std::uint32_t count) {
  // FNV-1a: stable across builds and hosts, so every worker gives an app the same identity.
  std::uint32_t h = 2166136261u;
  for (char c : app_id) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  std::uint32_t id = base + (count == 0 ? 0 : h % count);
  return {id, id};
}

result<sandbox_jail> jail_for(const sandbox_request& r) {
  if (r.identity.uid == 0 || r.identity.gid == 0) return invalid("a sandbox never runs as uid or gid 0");
  struct named {
    std::string_view what;
    const std::string& path;
  };
  for (const named& n : {named{"workspace", r.workspace}, named{"home", r.home}, named{"tmp", r.tmp},
                         named{"doors directory", r.doors_dir}, named{"cwd", r.cwd}}) {
    if (!normalized_absolute(n.path) || n.path == "/") {
      return invalid("the sandbox's " + std::string(n.what) + " is not a normalized absolute path");
    }
  }
  if (!r.node_modules.empty() && !normalized_absolute(r.node_modules)) {
    return invalid("the sandbox's node_modules tree is not a normalized absolute path");
  }
  // codex refuses to create its sandbox helper under the temporary dir; and a HOME inside TMPDIR
  // would make one the other.
  if (within(r.home, r.tmp) || within(r.tmp, r.home)) return invalid("the sandbox's home and tmp overlap");
  for (const auto& w : {r.home, r.tmp}) {
    if (within(w, r.workspace) || within(r.workspace, w)) return invalid("the sandbox's home or tmp overlaps the workspace");
  }
  if (!within(r.cwd, r.workspace) && !within(r.cwd, r.home)) return invalid("the sandbox's cwd is outside its workspace and home");
  std::vector<std::string_view> walls = {r.workspace, r.home, r.tmp, r.doors_dir};
  for (const auto& ro : r.read_only) {
    if (!normalized_absolute(ro) || ro == "/") return invalid("a read-only path of the sandbox is not a normalized absolute path");
    // A read-only tree holding the workspace, a home or the doors would show its neighbours:
    // every other app's workspace, every other turn's home and broker token.
    for (auto w : walls) {
      if (within(w, ro)) return invalid("a read-only path of the sandbox holds its workspace, home, tmp or doors");
    }
  }
  if (!r.broker_token_var.empty() && !r.broker_token_var.ends_with("_BROKER_TOKEN")) {
    return invalid("the sandbox's broker token variable must be named *_BROKER_TOKEN");
  }
  for (const auto& e : r.env) {
    bool broker_token = !r.broker_token_var.empty() && e.starts_with(r.broker_token_var + "=");
    if (!broker_token && !r.open.credentials && !sandbox_env_allowed(e, r.placeholder)) {
      std::string name = e.substr(0, e.find('='));
      if (name.size() > 64) name.resize(64);
      return invalid("the variable " + name + " may not enter a sandbox");
    }
  }

  sandbox_jail j;
  j.open = r.open;
  j.identity = r.identity;
  j.cwd = r.cwd;
  j.env = r.env;
  for (auto dir : system_dirs) j.mounts.push_back({sandbox_mount_kind::ro_bind_if_exists, std::string(dir), std::string(dir)});
  j.mounts.push_back({sandbox_mount_kind::dev, "", "/dev"});
  if (r.open.processes) j.mounts.push_back({sandbox_mount_kind::bind, "/proc", "/proc"});
  else j.mounts.push_back({sandbox_mount_kind::proc, "", "/proc"});
  j.mounts.push_back({sandbox_mount_kind::tmpfs, "", "/tmp"});
  j.mounts.push_back({sandbox_mount_kind::tmpfs, "", "/run"});
  // An open files wall shows what the workspace's neighbours are in: every app's workspace and
  // the data dir beside them, writable.
  if (r.open.files) {
    std::string data = r.workspace.substr(0, r.workspace.rfind('/'));
    data = data.substr(0, data.rfind('/'));
    if (!data.empty()) j.mounts.push_back({sandbox_mount_kind::bind, data, data});
  }
  for (const auto& ro : r.read_only) j.mounts.push_back({sandbox_mount_kind::ro_bind, ro, ro});
  j.mounts.push_back({sandbox_mount_kind::bind, r.home, r.home});
  j.mounts.push_back({sandbox_mount_kind::bind, r.tmp, r.tmp});
  j.mounts.push_back({sandbox_mount_kind::bind, r.workspace, r.workspace});
  if (!r.node_modules.empty()) j.mounts.push_back({sandbox_mount_kind::ro_bind, r.node_modules, r.workspace + "/node_modules"});
  if (!r.egress.empty()) {
    j.mounts.push_back({sandbox_mount_kind::ro_bind, r.doors_dir, std::string(sandbox_doors_path)});
    for (auto e : r.egress) {
      if (std::any_of(j.doors.begin(), j.doors.end(), [e](const sandbox_door& d) { return d.egress == e; })) continue;
      j.doors.push_back({e, sandbox_door_port(e), std::string(sandbox_doors_path) + "/" + std::string(to_string(e)) + ".sock"});
      if (e == sandbox_egress::internet) {
        // The door replaces whatever proxy the worker's own environment named.
        for (auto& v : internet_door_env(sandbox_door_url(e))) {
          std::string name = v.substr(0, v.find('=') + 1);
          std::erase_if(j.env, [&](const std::string& have) { return have.starts_with(name); });
          j.env.push_back(std::move(v));
        }
      }
    }
  }
  return j;
}

}  // namespace platform
