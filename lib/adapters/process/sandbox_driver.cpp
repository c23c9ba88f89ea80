#include "adapters/sandbox_driver.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "platform/api_error.hpp"

namespace platform {

namespace {

namespace fs = std::filesystem;

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

std::string find_in(const std::string& search_path, const std::string& name) {
  std::stringstream dirs(search_path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty() || dir.front() != '/') continue;
    std::string candidate = dir + "/" + name;
    if (executable(candidate)) return candidate;
  }
  return {};
}

class bubblewrap_driver final : public sandbox_driver {
 public:
  explicit bubblewrap_driver(bubblewrap_tools t) : tools_(std::move(t)) {}

  [[nodiscard]] result<process_spec> wrap(const process_spec& inner, const sandbox_jail& jail) const override {
    if (inner.program.empty() || inner.program.front() != '/') {
      return fail(api_error::sandbox_invalid, "a sandboxed program is named by its absolute path");
    }
    process_spec out;
    out.program = tools_.bwrap;
    out.env = jail.env;
    out.cwd = "/";
    out.stderr_tail_bytes = inner.stderr_tail_bytes;
    out.fd3_input = inner.fd3_input;
    auto& a = out.args;
    // bwrap sets the jail up as root (no user namespace: one would map the jail's uid onto the
    // worker's own, so root stays root outside), then setpriv, the jail's first command, takes
    // the app's host uid and drops every capability before anything of the app's runs.
    a = {"--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session",
         "--hostname", "sandbox"};
    if (!jail.open.processes) a.push_back("--unshare-pid");
    if (!jail.open.network) a.push_back("--unshare-net");
    // bwrap run as root makes the directories leading to a mount 0700, which the jail's uid
    // could not pass: they are made first, 0755, unless an earlier mount already holds them.
    std::vector<std::string> mounted, made;
    // (Under a bind the directories are the source's own; under a tmpfs nothing is there yet.)
    auto lead_to = [&](const std::string& target, bool binds) {
      for (std::size_t at = target.find('/', 1); at != std::string::npos; at = target.find('/', at + 1)) {
        std::string dir = target.substr(0, at);
        bool held = std::any_of(mounted.begin(), mounted.end(),
                                [&](const std::string& t) { return sandbox_path_within(dir, t); });
        if (held || std::find(made.begin(), made.end(), dir) != made.end()) continue;
        a.insert(a.end(), {"--perms", "0755", "--dir", dir});
        made.push_back(dir);
      }
      if (binds) mounted.push_back(target);
    };
    for (const auto& m : jail.mounts) {
      lead_to(m.target, m.kind == sandbox_mount_kind::ro_bind || m.kind == sandbox_mount_kind::ro_bind_if_exists ||
                            m.kind == sandbox_mount_kind::bind);
      // A tmpfs the jail's uid may write, as /tmp is on the host.
      if (m.kind == sandbox_mount_kind::tmpfs) a.insert(a.end(), {"--perms", "1777"});
      switch (m.kind) {
        case sandbox_mount_kind::ro_bind: a.insert(a.end(), {"--ro-bind", m.source, m.target}); break;
        case sandbox_mount_kind::ro_bind_if_exists: a.insert(a.end(), {"--ro-bind-try", m.source, m.target}); break;
        case sandbox_mount_kind::bind: a.insert(a.end(), {"--bind", m.source, m.target}); break;
        case sandbox_mount_kind::tmpfs: a.insert(a.end(), {"--tmpfs", m.target}); break;
        case sandbox_mount_kind::dev: a.insert(a.end(), {"--dev", m.target}); break;
        case sandbox_mount_kind::proc: a.insert(a.end(), {"--proc", m.target}); break;
      }
    }
    lead_to(tools_.relay, true);
    a.insert(a.end(), {"--ro-bind", tools_.setpriv, tools_.setpriv, "--ro-bind", tools_.relay, tools_.relay, "--chdir",
                       jail.cwd, "--", tools_.setpriv});
    if (jail.open.identity) {
      a.push_back("--no-new-privs");  // the worker's own uid, with all it may do
    } else {
      a.insert(a.end(), {"--reuid=" + std::to_string(jail.identity.uid), "--regid=" + std::to_string(jail.identity.gid),
                         "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all"});
    }
    a.insert(a.end(), {"--", tools_.relay});
    // The relay binds the doors' ports before the command starts, then runs it.
    for (const auto& d : jail.doors) a.push_back(std::to_string(d.port) + "=" + d.socket);
    a.push_back("--");
    a.push_back(inner.program);
    a.insert(a.end(), inner.args.begin(), inner.args.end());
    return out;
  }

  [[nodiscard]] std::string describe() const override { return "bubblewrap (" + tools_.bwrap + ")"; }

 private:
  bubblewrap_tools tools_;
};

}  // namespace

result<bubblewrap_tools> find_bubblewrap_tools(const std::string& search_path, const std::string& relay) {
  bubblewrap_tools t;
  t.bwrap = find_in(search_path, "bwrap");
  if (t.bwrap.empty()) {
    return fail(api_error::sandbox_unavailable, "bwrap is not installed (Debian package bubblewrap: apt-get install bubblewrap)");
  }
  t.setpriv = find_in(search_path, "setpriv");
  if (t.setpriv.empty()) {
    return fail(api_error::sandbox_unavailable, "setpriv is not installed (Debian package util-linux)");
  }
  if (!executable(relay)) {
    return fail(api_error::sandbox_unavailable,
                "platform-sandbox-relay was not found next to platform-worker (" + relay + "); build or install it");
  }
  // Mounted and started at the same path inside, so it must name the file itself.
  std::error_code ec;
  t.relay = fs::canonical(relay, ec).string();
  if (ec) return fail(api_error::sandbox_unavailable, "platform-sandbox-relay's path cannot be resolved: " + relay);
  return t;
}

std::unique_ptr<sandbox_driver> make_bubblewrap_driver(bubblewrap_tools tools) {
  return std::make_unique<bubblewrap_driver>(std::move(tools));
}

result<void> probe_sandbox(const sandbox_driver& driver, const sandbox_identity& identity, const std::string& scratch_dir) {
  // The probe's directories belong to its identity, as a jail's do: a host where they cannot be
  // given away (a filesystem without chown) cannot run jails either.
  for (const char* sub : {"", "/ws", "/home", "/tmp", "/doors"}) {
    std::error_code ec;
    std::string dir = scratch_dir + sub;
    fs::create_directories(dir, ec);
    if (ec) return fail(api_error::sandbox_unavailable, "cannot create the sandbox probe's directories in " + scratch_dir);
    if (::chown(dir.c_str(), identity.uid, identity.gid) != 0) {
      return fail(api_error::sandbox_unavailable, "the sandbox's dirs cannot be given their own uid (chown: " +
                                                      std::string(std::strerror(errno)) +
                                                      "); the sandbox dir must be on a filesystem where root may chown");
    }
  }
  sandbox_request r;
  r.identity = identity;
  r.workspace = scratch_dir + "/ws";
  r.home = scratch_dir + "/home";
  r.tmp = scratch_dir + "/tmp";
  r.doors_dir = scratch_dir + "/doors";
  r.cwd = r.workspace;
  r.env = {"PATH=/usr/bin:/bin"};
  auto jail = jail_for(r);
  if (!jail) return tl::unexpected(jail.error());
  // The probe's first words are its host uid as the jail sees it: proof the switch happened.
  auto spec = driver.wrap(process_spec{"/bin/sh", {"-c", "id -u"}, {}, {}}, *jail);
  if (!spec) return tl::unexpected(spec.error());
  auto proc = child_process::spawn(*spec);
  if (!proc) return fail(api_error::sandbox_unavailable, "the sandbox could not start: " + proc.error().message);
  (*proc)->close_stdin();
  std::string line, first;
  while ((*proc)->read_line(line, 4096)) {
    if (first.empty()) first = line;
  }
  int code = (*proc)->wait();
  if (code != 0 || first != std::to_string(identity.uid)) {
    std::string why = (*proc)->stderr_tail();
    if (why.size() > 400) why.resize(400);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return fail(api_error::sandbox_unavailable,
                "the sandbox does not work on this host (exit " + std::to_string(code) + "): " +
                    (why.empty() ? "no message" : why) +
                    ". The worker runs its sandboxes as root (bubblewrap sets up their namespaces, then each "
                    "takes an unprivileged uid of its own): run platform-worker as root");
  }
  return {};
}

}  // namespace platform
