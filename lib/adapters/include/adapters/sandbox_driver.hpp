#pragma once
// The sandbox driver: applies a jail (platform/sandbox_jail.hpp) to one process. The rules are
// the core's; a driver only turns them into a way of starting the process. Today's driver is
// bubblewrap behind setpriv (docs/security.md "Why bubblewrap"); the same contract can be met by
// a pod per app on Kubernetes (docs/security.md "Scaling out").
#include <memory>
#include <string>

#include "adapters/child_process.hpp"
#include "platform/error.hpp"
#include "platform/sandbox_jail.hpp"

namespace platform {

class sandbox_driver {
 public:
  virtual ~sandbox_driver() = default;
  // The process spec that runs `inner` (program, args, fd 3 input) inside `jail`: the jail's
  // environment and cwd replace the inner spec's.
  [[nodiscard]] virtual result<process_spec> wrap(const process_spec& inner, const sandbox_jail& jail) const = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
};

// The programs the bubblewrap driver starts, by absolute path: bwrap, run as root, makes the
// namespaces and mounts; setpriv, the jail's first command, takes the jail's uid and drops every
// capability; platform-sandbox-relay listens on the doors' ports and runs the command.
struct bubblewrap_tools {
  std::string setpriv;
  std::string bwrap;
  std::string relay;
};

// setpriv and bwrap from PATH-like `search_path`; `relay` as given. sandbox_unavailable with a
// sentence saying what is missing and which Debian package has it.
result<bubblewrap_tools> find_bubblewrap_tools(const std::string& search_path, const std::string& relay);

std::unique_ptr<sandbox_driver> make_bubblewrap_driver(bubblewrap_tools tools);

// Makes a minimal jail of `identity` in `scratch_dir` (its directories given to that identity),
// starts `id -u` in it and checks it printed that uid: whether the driver works on this host
// (the chown, the namespaces, the mounts, the uid switch). sandbox_unavailable with the
// driver's own words when not. The caller removes `scratch_dir`.
result<void> probe_sandbox(const sandbox_driver& driver, const sandbox_identity& identity, const std::string& scratch_dir);

}  // namespace platform
