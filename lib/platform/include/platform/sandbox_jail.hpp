#pragma once
// The agent sandbox's rules (docs/security.md): what one sandboxed process tree sees and
// reaches, as data. Every process the worker starts for an app (runtime CLIs, builds, package
// installs, and all they start) runs in a jail built here; the worker's driver
// (adapters/sandbox_driver.hpp, bubblewrap today, a pod per app later) only applies it. No path
// is probed here: the worker says what it found, and jail_for refuses rules that would open a
// wall before any process starts.
//
// The walls, by construction of every jail:
// - files: the system directories and the named read-only trees are read-only; the app's
//   workspace, the turn's private HOME and TMPDIR are the only writable places; nothing else of
//   the host exists inside (no other workspace, no data dir, no credentials);
// - processes: new pid, ipc, uts and cgroup namespaces, a fresh /proc, its own session; the
//   jail dies with its parent and everything in it dies with its first process. No user
//   namespace: one would map the jail's uid onto the worker's own;
// - identity: a host uid and gid that are not the worker's (never 0), no capabilities,
//   no_new_privs;
// - network: a new network namespace with loopback only; the only ways out are the doors, each
//   a loopback port inside relayed to a socket the worker listens on;
// - environment: given whole; no credential, token or platform setting unless it is the
//   sandbox's placeholder.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

enum class sandbox_mount_kind {
  ro_bind,            // source read-only at target
  ro_bind_if_exists,  // the same, skipped when the source does not exist (system dirs)
  bind,               // source writable at target
  tmpfs,              // an empty private tmpfs at target
  dev,                // a minimal /dev
  proc,               // a procfs of the jail's own pid namespace
};

struct sandbox_mount {
  sandbox_mount_kind kind = sandbox_mount_kind::ro_bind;
  std::string source;  // empty for tmpfs, dev, proc
  std::string target;
};

// Where a jailed process may connect: the model provider (through the worker's credential
// proxy), the worker's MCP broker (its own listener, /mcp/* only) and the public internet
// (through the address guard). Each is a fixed loopback port inside the jail.
enum class sandbox_egress { provider, broker, internet };

struct sandbox_door {
  sandbox_egress egress = sandbox_egress::provider;
  std::uint16_t port = 0;  // 127.0.0.1:<port> inside the jail
  std::string socket;      // the worker's socket as the jail sees it
};

struct sandbox_identity {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

// Walls a test may open, one at a time, to show that its check fails without that wall
// (PLATFORM_SANDBOX_TEST_OPEN, refused in production). Never set otherwise.
struct sandbox_openings {
  bool files = false;        // the directory above the workspaces (every app's, the data dir), writable
  bool processes = false;    // the host's pid namespace and /proc
  bool identity = false;     // the jail keeps the worker's uid
  bool network = false;      // the host's network namespace
  bool credentials = false;  // the real credential inside instead of the placeholder
  [[nodiscard]] bool any() const { return files || processes || identity || network || credentials; }
};

// "files,network": the named walls open; error invalid_config for an unknown name.
result<sandbox_openings> parse_sandbox_openings(std::string_view text);

// Inside every jail the doors' sockets are mounted here (read-only: connecting needs no write).
inline constexpr std::string_view sandbox_doors_path = "/run/platform-egress";

std::string_view to_string(sandbox_egress e);
std::uint16_t sandbox_door_port(sandbox_egress e);
// http://127.0.0.1:<port>: the base URL a jailed runtime is given for that door.
std::string sandbox_door_url(sandbox_egress e);

// What the worker asks for. Paths are absolute and normalized (no "." or ".." segments, no
// trailing or doubled '/').
struct sandbox_request {
  sandbox_identity identity;
  std::string workspace;               // the app's workspace (or the app-agent run's own)
  std::string home;                    // the turn's private HOME; never under `tmp`
  std::string tmp;                     // the turn's private TMPDIR
  std::string doors_dir;               // the host directory holding the turn's door sockets
  std::vector<std::string> read_only;  // runtime installs, the template tree (beside /usr, /etc...)
  // Mounted read-only over <workspace>/node_modules, so the jail can neither write the tree
  // builds run from nor point the workspace at another: the template's tree or the app's own.
  std::string node_modules;
  std::vector<sandbox_egress> egress;  // the doors this process gets
  std::vector<std::string> env;        // NAME=value, the whole environment
  std::string placeholder;             // the only value a credential variable may hold
  // The variable the turn's own broker token rides in, if any: readable inside its own jail
  // only, and worth nothing once the turn ends.
  std::string broker_token_var;
  std::string cwd;                     // the workspace, the home, or under one of them
  sandbox_openings open;               // tests only
};

struct sandbox_jail {
  sandbox_identity identity;
  std::vector<sandbox_mount> mounts;  // in the order they are made
  std::vector<sandbox_door> doors;
  std::vector<std::string> env;
  std::string cwd;
  sandbox_openings open;  // tests only: the driver leaves these walls out
};

// `inner` is `outer` or a path below it ("/a/b" is within "/a", "/ab" is not).
bool sandbox_path_within(std::string_view inner, std::string_view outer);

// The system directories every jail sees read-only (when they exist).
std::span<const std::string_view> sandbox_system_dirs();

// The jail for a request, or sandbox_invalid naming the rule it breaks (never a value of the
// environment).
result<sandbox_jail> jail_for(const sandbox_request& r);

// Whether a variable may enter a jail with this value: not a provider key, token, secret,
// password, database or cache address, or platform setting, unless it is exactly the
// placeholder.
bool sandbox_env_allowed(std::string_view entry, std::string_view placeholder);

// The host identity of an app's jails: uid and gid base + a stable hash of the app id, modulo
// `count` (so two apps may share one, and the namespaces still keep them apart; see
// docs/security.md "Identity").
sandbox_identity sandbox_identity_for(std::string_view app_id, std::uint32_t base, std::uint32_t count);

}  // namespace platform
