#pragma once
// What every opencode (runtime-c) process of the worker shares: a private tree per process
// (HOME and the four XDG dirs, removed afterwards) pre-seeded so opencode makes no network
// call at start-up, an explicit environment, the operator's provider definitions reduced to
// what a run may see, and the check that the installed CLI has `run --format json`.
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cli_probe.hpp"
#include "worker_config.hpp"

namespace platform::worker {

class turn_jail;

// <root>/{home, config/opencode, data, cache, state}, mode 0700 from mkdtemp, so everything in
// it is readable by the worker's user only.
class opencode_tree {
 public:
  // `plugin_version`: the @opencode-ai/plugin version the config dir claims to have, so
  // opencode starts no `npm install` there (the CLI's own version). Error `spawn_failed`.
  // `root`: the directory to make the tree in (a jail's HOME, whose jail then runs every
  // opencode process of the tree); empty: a fresh temp directory, unjailed.
  static result<std::unique_ptr<opencode_tree>> create(const std::string& plugin_version, const std::string& root = {},
                                                       const turn_jail* jail = nullptr);
  ~opencode_tree();
  opencode_tree(const opencode_tree&) = delete;
  opencode_tree& operator=(const opencode_tree&) = delete;

  [[nodiscard]] const std::string& root() const { return root_; }
  // Writes `content` to <root>/<name> with mode 0600; returns the path.
  result<std::string> write_private(const std::string& name, std::string_view content) const;
  // The tree's global opencode.json.
  result<void> write_config(const nlohmann::json& config) const;
  // The whole environment of an opencode process in this tree: PATH (with an `rg`),
  // HOME/XDG_*, LANG, the offline switches and the worker's provider credential variables.
  // In a jail no provider credential variable: the run's provider is the provider door.
  [[nodiscard]] std::vector<std::string> env(const config& cfg) const;
  // `spec` as it runs for this tree: in its jail when it has one.
  [[nodiscard]] result<process_spec> wrap(process_spec spec) const;

 private:
  opencode_tree(std::string root, bool owned, const turn_jail* jail) : root_(std::move(root)), owned_(owned), jail_(jail) {}
  std::string root_;
  bool owned_ = true;              // removed with the tree (a jail's HOME goes with its jail)
  const turn_jail* jail_ = nullptr;
};

// The operator's opencode config (PLATFORM_OPENCODE_CONFIG, JSON or JSONC) reduced to the
// keys a run may see: provider, model, small_model, enabled_providers, disabled_providers.
// An empty object without a file. Error `invalid_config` (the message never quotes it).
result<nlohmann::json> operator_opencode_config(const config& cfg);

// The parts of a per-process opencode.json every process gets: the operator's providers and
// the switches that keep opencode offline and quiet (no autoupdate, no share, no snapshots).
result<nlohmann::json> base_opencode_config(const config& cfg);

struct opencode_support {
  bool installed = false;
  bool usable = false;
  std::string version;
  std::string reason;  // when not usable; never secrets or paths of the operator's config
};

// `opencode --version` and `opencode run --help` (which must offer `--format` with `json`;
// 0.x CLIs print their usage instead of JSON events). Both stdout and stderr are read: 0.x
// prints help on stdout, 1.x on stderr. Cached per binary (path, size, mtime).
opencode_support opencode_check(const config& cfg);
// A binary that printed a non-JSON line during a run is not usable, whatever its help said.
void opencode_mark_unusable(const config& cfg, const std::string& reason);

// Runs `opencode <args>` in `tree` with stdin closed; `cwd` defaults to the tree's root.
result<cli_output> run_opencode(const config& cfg, const opencode_tree& tree, std::vector<std::string> args,
                                std::chrono::milliseconds timeout, const std::string& cwd = {});

}  // namespace platform::worker
