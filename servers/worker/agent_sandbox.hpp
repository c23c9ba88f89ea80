#pragma once
// The worker's agent sandbox (docs/security.md): every process it starts for an app runs in a
// jail built by the core's rules (platform/sandbox_jail.hpp) and applied by the driver
// (adapters/sandbox_driver.hpp). This is the glue: a private HOME and TMPDIR per jailed
// process, owned by the app's sandbox uid; and the jail's doors, sockets the worker listens on:
// the provider door (the real credential swapped in on the way out, platform/egress_head.hpp),
// the broker door (the broker's own listener, /mcp/* only) and the internet door (CONNECT to
// public addresses only, platform/internet_door.hpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/child_process.hpp"
#include "platform/error.hpp"
#include "platform/sandbox_jail.hpp"

namespace platform::worker {

struct config;

// Where the provider door sends a runtime's model requests, and the credential it puts in.
struct provider_door_plan {
  std::string upstream;  // the base URL the runtime would have called (http or https)
  std::string secret;    // the API key or access token; empty: none is swapped in
};

struct jail_plan {
  std::string app_id;     // whose identity the jail takes
  std::string workspace;  // the only writable place of the app's
  // The tree mounted read-only over <workspace>/node_modules (the template's or the app's own);
  // empty: none.
  std::string node_modules;
  std::vector<std::string> read_only;  // beyond the system dirs, the runtime installs and the relay
  std::optional<provider_door_plan> provider;
  bool broker = false;
  // The workspace's node_modules is the jail's too (a staging dir npm installs into), rather
  // than a tree only mounted read-only.
  bool own_node_modules = false;
  bool internet = false;  // the internet door (platform/internet_door.hpp): WebFetch, npm, a page
  std::string broker_token_var;  // where the turn's broker token rides, when in the environment
};

class agent_sandbox;

// Whether `workspace`/node_modules is the link to the template's tree, the only link it may be
// (a link anywhere else would run that tree's tools in the app's builds).
bool links_to_template_tree(const config& cfg, const std::string& workspace);

// What a workspace's jail mounts read-only over its node_modules: the template's tree when the
// workspace links to it, the app's own installed tree, or nothing.
std::string jail_node_modules(const config& cfg, const std::string& workspace);

// One jailed process's private state. Destroying it closes its doors and removes its HOME and
// TMPDIR (what it left in them is gone with it).
class turn_jail {
 public:
  ~turn_jail();
  turn_jail(const turn_jail&) = delete;
  turn_jail& operator=(const turn_jail&) = delete;

  [[nodiscard]] const std::string& home() const { return home_; }
  [[nodiscard]] const std::string& tmp() const { return tmp_; }
  [[nodiscard]] bool jailed() const { return jailed_; }
  // What the runtime is told: the door and the placeholder in a jail; the real URL and
  // credential with the sandbox off.
  [[nodiscard]] std::string provider_url() const;
  [[nodiscard]] std::string provider_credential() const;
  [[nodiscard]] std::string broker_url() const;
  // `inner` (its environment given whole, without HOME or TMPDIR, which the jail sets) as it
  // runs in this jail; unchanged but for HOME and TMPDIR with the sandbox off.
  [[nodiscard]] result<process_spec> wrap(process_spec inner) const;
  // What the worker writes into the jail's HOME after its process started (a restored session)
  // becomes the jail's own.
  void own(const std::string& path) const;

 private:
  friend class agent_sandbox;
  struct doors;
  turn_jail() = default;
  const agent_sandbox* owner_ = nullptr;
  bool jailed_ = false;
  std::string root_, home_, tmp_, doors_dir_, workspace_, node_modules_;
  std::vector<std::string> read_only_;
  std::optional<provider_door_plan> provider_;
  bool broker_ = false;
  bool internet_ = false;
  std::string broker_token_var_;
  sandbox_identity identity_;
  std::string placeholder_;
  std::unique_ptr<doors> doors_;
};

class agent_sandbox {
 public:
  // PLATFORM_SANDBOX: `bwrap` (the default) or `off`, a development switch refused in
  // production. A worker whose sandbox does not work refuses to start, with a sentence saying
  // what is missing.
  static result<std::shared_ptr<agent_sandbox>> create(const config& cfg, const std::string& relay_path);
  ~agent_sandbox();

  [[nodiscard]] bool enabled() const;
  [[nodiscard]] std::string describe() const;
  // The broker's own listener (127.0.0.1:<port>, /mcp/* only): where broker doors lead.
  void set_broker_port(int port) { broker_port_ = port; }
  [[nodiscard]] int broker_port() const { return broker_port_; }

  result<std::unique_ptr<turn_jail>> open(const jail_plan& plan) const;

 private:
  friend class turn_jail;
  struct impl;
  agent_sandbox() = default;
  result<std::unique_ptr<turn_jail>> open_jail(const jail_plan& plan) const;
  std::unique_ptr<impl> impl_;
  int broker_port_ = 0;
};

}  // namespace platform::worker
