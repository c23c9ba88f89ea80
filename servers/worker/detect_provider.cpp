#include "detect_provider.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <mutex>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "claude_credential.hpp"
#include "cli_probe.hpp"
#include "opencode_cli.hpp"
#include "provider_keys.hpp"
#include "worker_http.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr auto detect_timeout = std::chrono::seconds(15);
constexpr auto reply_max_age = std::chrono::seconds(30);
constexpr auto fresh_reply_max_age = std::chrono::seconds(2);
constexpr const char* auth_variables[] = {"ANTHROPIC_API_KEY", "CODEX_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY",
                                          "GEMINI_API_KEY"};

// A scratch HOME for one probe, removed afterwards: a CLI's first start writes state there.
class scratch_home {
 public:
  scratch_home() {
    std::string tmpl = (fs::temp_directory_path() / "platform-detect-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~scratch_home() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  scratch_home(const scratch_home&) = delete;
  scratch_home& operator=(const scratch_home&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

json runtime_json(bool installed, bool usable, const std::string& version, const std::string& reason) {
  json r = {{"installed", installed}, {"usable", usable}, {"version", version.empty() ? json(nullptr) : json(version)}};
  if (!usable && !reason.empty()) r["reason"] = reason;
  return r;
}

result<cli_output> probe(const std::string& program, std::vector<std::string> args, std::vector<std::string> env,
                         const std::string& cwd) {
  return run_cli(process_spec{program, std::move(args), std::move(env), cwd}, detect_timeout, 64 * 1024);
}

json detect_claude(const config& cfg) {
  if (!executable(cfg.claude_path)) return runtime_json(false, false, "", "Claude Code is not installed (PLATFORM_CLAUDE_PATH)");
  scratch_home home;
  auto r = probe(cfg.claude_path, {"--version"},
                 {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home.path(), "LANG=C.UTF-8",
                  "CLAUDE_CONFIG_DIR=" + home.path() + "/.claude", "DISABLE_AUTOUPDATER=1",
                  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"},
                 home.path());
  if (!r || r->exit_code != 0) return runtime_json(true, false, "", "`claude --version` failed");
  json out = runtime_json(true, true, version_token(r->out), "");
  // Booleans only: whether the operator's CLI login is there, and whether turns would run on
  // the demo provider (neither a key nor a login).
  out["loggedIn"] = claude_login_present(cfg);
  out["demo"] = claude_credential_now(cfg) == claude_credential_source::demo_provider;
  return out;
}

// runtime-b also reports whether codex has a login of its own (`codex login status`: exit
// code 0; it writes to stderr only, so both streams are read and nothing of them is shown).
json detect_codex(const config& cfg) {
  if (!executable(cfg.codex_path)) {
    json r = runtime_json(false, false, "", "Codex is not installed (PLATFORM_CODEX_PATH)");
    r["loggedIn"] = false;
    return r;
  }
  scratch_home home;
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home.path(), "LANG=C.UTF-8",
                                  "CODEX_HOME=" + home.path()};
  auto version = probe(cfg.codex_path, {"--version"}, env, home.path());
  json r = version && version->exit_code == 0 ? runtime_json(true, true, version_token(version->out + version->err), "")
                                              : runtime_json(true, false, "", "`codex --version` failed");
  bool logged_in = false;
  if (!cfg.codex_login_home.empty()) {
    env.back() = "CODEX_HOME=" + cfg.codex_login_home;
    auto status = probe(cfg.codex_path, {"login", "status"}, env, home.path());
    logged_in = status && !status->timed_out && status->exit_code == 0;
  }
  r["loggedIn"] = logged_in;
  return r;
}

json detect_opencode(const config& cfg) {
  opencode_support s = opencode_check(cfg);
  return runtime_json(s.installed, s.usable, s.version, s.reason);
}

json auth_hints(const config& cfg) {
  json auth = json::object();
  for (const char* name : auth_variables) {
    const char* v = std::getenv(name);
    auth[name] = (v != nullptr && *v != '\0') || cfg.keys->has(name);  // presence only, never the value
  }
  return auth;
}

std::string detect(const config& cfg) {
  // The CLIs start slowly (a second or two each): probe them side by side.
  auto a = std::async(std::launch::async, detect_claude, std::cref(cfg));
  auto b = std::async(std::launch::async, detect_codex, std::cref(cfg));
  json c = detect_opencode(cfg);
  json reply = {{"runtimes", {{"runtime-a", a.get()}, {"runtime-b", b.get()}, {"runtime-c", std::move(c)}}},
                {"auth", auth_hints(cfg)}};
  return reply.dump();
}

}  // namespace

namespace {
std::mutex detect_mu;
std::string detected;
std::chrono::steady_clock::time_point detected_at;
}  // namespace

void forget_detected_provider() {
  std::lock_guard lock(detect_mu);
  detected.clear();
}

void handle_put_provider_key(const config& cfg, const std::string& name, const json& b, httplib::Response& res) {
  if (!b.contains("value") || !b["value"].is_string()) {
    return send(res, api_error::invalid_body, "the body is {\"value\": \"<the key>\"}");
  }
  auto set = cfg.keys->set(name, b["value"].get<std::string>());
  if (!set) return send(res, set.error());
  forget_detected_provider();
  res.set_content(json({{"name", name}, {"configured", true}}).dump(), "application/json");
}

void handle_detect_provider(const config& cfg, bool fresh, httplib::Response& res) {
  std::lock_guard lock(detect_mu);  // concurrent callers share one probe
  auto now = std::chrono::steady_clock::now();
  // `fresh` (a person who just logged in with a CLI asks again) probes at once, but at most
  // every two seconds: each probe starts the three CLIs.
  auto max_age = fresh ? fresh_reply_max_age : reply_max_age;
  if (detected.empty() || now - detected_at >= max_age) {
    detected = detect(cfg);
    detected_at = now;
  }
  res.set_content(detected, "application/json");
}

}  // namespace platform::worker
