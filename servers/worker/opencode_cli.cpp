#include "opencode_cli.hpp"

#include "agent_sandbox.hpp"

#include "cli_probe.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr auto opencode_probe_timeout = std::chrono::seconds(20);

result<void> write_file_0600(const fs::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  std::error_code ec;
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, ec);
  if (!out || ec) return fail(api_error::spawn_failed, "cannot write the runtime's private files");
  return {};
}

// opencode's grep and glob tools need ripgrep; without one on PATH they download it from
// github.com into the (per-run, so every run) cache dir. Codex ships one next to its binary.
std::string rg_path_prefix(const config& cfg) {
  if (executable("/usr/local/bin/rg") || executable("/usr/bin/rg") || executable("/bin/rg")) return {};
  fs::path codex_rg = fs::path(cfg.codex_path).parent_path().parent_path() / "codex-path";
  if (executable((codex_rg / "rg").string())) return codex_rg.string() + ":";
  return {};
}

// A binary is re-checked when it is replaced (an upgrade), not on every run.
std::string binary_key(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path;
  return path + "\n" + std::to_string(st.st_size) + "\n" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// `--format` documented with `json` among its values, on one line of `run --help`.
bool offers_json_format(const std::string& help) {
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    if (line.find("--format") != std::string::npos && line.find("json") != std::string::npos) return true;
  }
  return false;
}

// `settled`: the answer is the binary's own (kept until it is replaced), not a failure of the
// moment such as a timeout on a busy host.
opencode_support probe(const config& cfg, bool& settled) {
  settled = false;
  opencode_support s;
  if (!executable(cfg.opencode_path)) {
    s.reason = "opencode is not installed (PLATFORM_OPENCODE_PATH)";
    return s;
  }
  s.installed = true;
  auto tree = opencode_tree::create("0.0.0");
  if (!tree) {
    s.reason = tree.error().message;
    return s;
  }
  auto version = run_opencode(cfg, **tree, {"--version"}, opencode_probe_timeout);
  if (!version || version->exit_code != 0) {
    s.reason = "`opencode --version` failed";
    return s;
  }
  s.version = version_token(version->out);
  auto help = run_opencode(cfg, **tree, {"run", "--help"}, opencode_probe_timeout);
  if (!help || help->timed_out) {
    s.reason = "`opencode run --help` did not answer";
    return s;
  }
  settled = true;
  if (!offers_json_format(help->out + "\n" + help->err)) {
    s.reason = "opencode " + (s.version.empty() ? std::string("(unknown version)") : s.version) +
               " has no `run --format json`; runtime-c needs opencode-ai 1.x (pinned: 1.18.33)";
    return s;
  }
  s.usable = true;
  return s;
}

struct support_cache {
  std::mutex mu;
  std::map<std::string, opencode_support> by_binary;
};

support_cache& cache() {
  static support_cache c;
  return c;
}

}  // namespace

result<std::unique_ptr<opencode_tree>> opencode_tree::create(const std::string& plugin_version, const std::string& root_dir,
                                                              const turn_jail* jail) {
  std::string tmpl = root_dir;
  if (tmpl.empty()) {
    tmpl = (fs::temp_directory_path() / "platform-opencode-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return fail(api_error::spawn_failed, "cannot create a temp tree for opencode");
  }
  std::unique_ptr<opencode_tree> tree(new opencode_tree(tmpl, root_dir.empty(), jail));
  fs::path root(tmpl), config_dir = root / "config/opencode";
  std::error_code ec;
  for (const char* dir : {"home", "config/opencode/node_modules", "data", "cache", "state"}) {
    fs::create_directories(root / dir, ec);
    if (ec) return fail(api_error::spawn_failed, "cannot create a temp tree for opencode");
  }
  // opencode installs @opencode-ai/plugin into every config dir lacking it, detached and over
  // the network; a dir that already lists it is left alone.
  json deps = {{"@opencode-ai/plugin", plugin_version}};
  json lock = {{"lockfileVersion", 3}, {"packages", {{"", {{"dependencies", deps}}}}}};
  auto pkg = write_file_0600(config_dir / "package.json", json({{"dependencies", deps}}).dump());
  if (!pkg) return tl::unexpected(pkg.error());
  auto lck = write_file_0600(config_dir / "package-lock.json", lock.dump());
  if (!lck) return tl::unexpected(lck.error());
  return tree;
}

opencode_tree::~opencode_tree() {
  std::error_code ec;
  if (owned_) fs::remove_all(root_, ec);
}

result<process_spec> opencode_tree::wrap(process_spec spec) const {
  if (!jail_) return spec;
  // The jail sets HOME to its own, which is this tree's root.
  return jail_->wrap(std::move(spec));
}

result<std::string> opencode_tree::write_private(const std::string& name, std::string_view content) const {
  fs::path path = fs::path(root_) / name;
  auto w = write_file_0600(path, content);
  if (!w) return tl::unexpected(w.error());
  return path.string();
}

result<void> opencode_tree::write_config(const json& config) const {
  auto w = write_private("config/opencode/opencode.json", compact_json(config));
  if (!w) return tl::unexpected(w.error());
  return {};
}

std::vector<std::string> opencode_tree::env(const config& cfg) const {
  std::vector<std::string> e = {
      "PATH=" + rg_path_prefix(cfg) + "/usr/local/bin:/usr/bin:/bin",
      "HOME=" + root_ + "/home",
      "XDG_CONFIG_HOME=" + root_ + "/config",
      "XDG_DATA_HOME=" + root_ + "/data",
      "XDG_CACHE_HOME=" + root_ + "/cache",
      "XDG_STATE_HOME=" + root_ + "/state",
      "LANG=C.UTF-8",
      // The bundled models catalog instead of models.dev; no update check, no sharing, no
      // LSP downloads.
      "OPENCODE_DISABLE_MODELS_FETCH=1",
      "OPENCODE_DISABLE_AUTOUPDATE=1",
      "OPENCODE_DISABLE_SHARE=1",
      "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
      // The workspace is app source: an opencode.json or .opencode/ in it must not widen the
      // run's permissions, add MCP servers or replace its agent.
      "OPENCODE_DISABLE_PROJECT_CONFIG=1",
      "OPENCODE_DISABLE_CLAUDE_CODE=1",
      "OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
  };
  if (!jail_ || !jail_->jailed() || cfg.sandbox_test_open.credentials) {
    e.insert(e.end(), cfg.provider_env.begin(), cfg.provider_env.end());
  }
  return e;
}

result<json> operator_opencode_config(const config& cfg) {
  json reduced = json::object();
  if (cfg.opencode_config.empty()) return reduced;
  std::ifstream in(cfg.opencode_config, std::ios::binary);
  if (!in) return fail(api_error::invalid_config, "PLATFORM_OPENCODE_CONFIG cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  json full = json::parse(text.str(), nullptr, false, /*ignore_comments=*/true);
  if (full.is_discarded() || !full.is_object()) {
    return fail(api_error::invalid_config, "PLATFORM_OPENCODE_CONFIG is not a JSON object");
  }
  for (const char* key : {"provider", "model", "small_model", "enabled_providers", "disabled_providers"}) {
    if (auto it = full.find(key); it != full.end()) reduced[key] = *it;
  }
  if (reduced.contains("provider") && !reduced["provider"].is_object()) {
    return fail(api_error::invalid_config, "PLATFORM_OPENCODE_CONFIG: `provider` must be an object");
  }
  return reduced;
}

result<json> base_opencode_config(const config& cfg) {
  auto c = operator_opencode_config(cfg);
  if (!c) return c;
  (*c)["$schema"] = "https://opencode.ai/config.json";
  (*c)["autoupdate"] = false;
  (*c)["share"] = "disabled";
  // Undo snapshots are git copies of the workspace in the data dir: nothing a run needs.
  (*c)["snapshot"] = false;
  return c;
}

opencode_support opencode_check(const config& cfg) {
  std::string key = binary_key(cfg.opencode_path);
  auto& c = cache();
  // One probe at a time: a burst of first requests should not start a dozen CLIs.
  std::lock_guard lock(c.mu);
  if (auto it = c.by_binary.find(key); it != c.by_binary.end()) return it->second;
  bool settled = false;
  opencode_support s = probe(cfg, settled);
  if (settled) c.by_binary[key] = s;
  return s;
}

void opencode_mark_unusable(const config& cfg, const std::string& reason) {
  std::string key = binary_key(cfg.opencode_path);
  auto& c = cache();
  std::lock_guard lock(c.mu);
  opencode_support& s = c.by_binary[key];
  s.installed = true;
  s.usable = false;
  s.reason = reason;
}

// opencode (a bun binary) exits without draining what it still has to write to a pipe: a
// `models --verbose` or `export` larger than the pipe buffer arrives cut (measured: 56-74 KB of
// 107 KB). Its stdout therefore goes to a file; the pipe stays open on fd 3 only so that its
// end still marks the process' end for the timeout.
result<cli_output> run_opencode(const config& cfg, const opencode_tree& tree, std::vector<std::string> args,
                                std::chrono::milliseconds timeout, const std::string& cwd) {
  static std::atomic<std::uint64_t> seq{0};
  fs::path out_file = fs::path(tree.root()) / ("stdout-" + std::to_string(seq.fetch_add(1)) + ".txt");
  std::vector<std::string> sh_args = {"-c", "out=$1; shift; exec \"$@\" 3>&1 >\"$out\"", "sh", out_file.string(),
                                      cfg.opencode_path};
  sh_args.insert(sh_args.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  auto spec = tree.wrap(process_spec{"/bin/sh", std::move(sh_args), tree.env(cfg), cwd.empty() ? tree.root() : cwd});
  if (!spec) return tl::unexpected(spec.error());
  auto r = run_cli(*spec, timeout);
  if (r) {
    // Cut beyond the limit: every caller parses the whole output, so a cut one is refused.
    constexpr std::size_t max_out = 32u << 20;
    std::ifstream in(out_file, std::ios::binary);
    r->out.resize(max_out);
    in.read(r->out.data(), static_cast<std::streamsize>(max_out));
    r->out.resize(static_cast<std::size_t>(in.gcount()));
  }
  std::error_code ec;
  fs::remove(out_file, ec);
  return r;
}

}  // namespace platform::worker
