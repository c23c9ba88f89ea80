#include "codex_home.hpp"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "adapters/child_process.hpp"
#include "file_text.hpp"
#include "platform/api_error.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* catalog_file = "platform-models.json";

// A TOML basic string: the values here are paths, URLs and names, but none is trusted to be
// free of quotes or control characters.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool safe_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

bool write_private(const fs::path& path, std::string_view content) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, ec);
  return out.good() && !ec;
}

// No key and no custom provider: codex runs on the operator's own login (spec
// "Authentication" 7), copied in because the temp home is the only one it may see.
bool uses_operator_login(const config& cfg) {
  return cfg.codex_base_url.empty() && cfg.codex_key.empty() && !cfg.codex_login_home.empty();
}

// Builder turns never ask for sandbox escalation (codex declines it by itself), but MCP tool
// calls do ask: approval_policy "never" would fail every broker tool that is not read-only,
// and the worker's elicitation answer is what limits them to the granted tools. The granular
// form needs experimentalApi over JSON-RPC but not in config.toml.
std::string top_level_keys(const config& cfg, const codex_home_options& o, const std::string& home) {
  std::string t =
      "check_for_update_on_startup = false\n"
      "approval_policy = { granular = { sandbox_approval = false, rules = false, mcp_elicitations = true, "
      "skill_approval = false, request_permissions = false } }\n";
  if (!cfg.codex_base_url.empty()) {
    t += "model_provider = \"platform\"\n";
  } else {
    // A key logged in over JSON-RPC stays in codex's memory; an operator login is a file.
    t += std::string("cli_auth_credentials_store = ") + (cfg.codex_key.empty() ? "\"file\"" : "\"ephemeral\"") + "\n";
  }
  if (o.app_agent) {
    t += "model_catalog_json = " + toml_string(home + "/" + catalog_file) + "\n";
    if (!o.web_search) t += "web_search = \"disabled\"\n";
  }
  return t;
}

std::string provider_table(const config& cfg) {
  if (cfg.codex_base_url.empty()) return {};
  std::string t = "\n[model_providers.platform]\nname = \"Platform provider\"\nbase_url = " +
                  toml_string(cfg.codex_base_url) + "\nwire_api = \"responses\"\n";
  if (!cfg.codex_key.empty()) t += "env_key = " + toml_string(cfg.codex_key_var) + "\n";
  return t;
}

// Plugin and app sync would call github.com and chatgpt.com (research runtime-b §11.9).
// Sub-agents are off: their threads report on the same connection but are not this turn's.
// Unbounded connection retries would keep a turn silently waiting on an unreachable provider.
std::string features_table(const codex_home_options& o) {
  std::string t =
      "\n[features]\nplugins = false\napps = false\nremote_plugin = false\nplugin_sharing = false\n"
      "tool_suggest = false\nmulti_agent = false\nunbounded_connection_retries = false\n";
  if (o.app_agent) t += "shell_tool = false\nunified_exec = false\nview_image = false\ngoals = false\nimage_generation = false\n";
  return t + "\n[analytics]\nenabled = false\n";
}

// The agent's shell never sees the broker token or a provider key.
std::string shell_policy_table() {
  return std::string("\n[shell_environment_policy]\nexclude = [") + toml_string(codex_broker_token_var) +
         ", \"CODEX_API_KEY\", \"OPENAI_API_KEY\"]\n";
}

std::string mcp_tables(const broker_access& broker) {
  std::string t;
  for (const auto& name : broker.servers) {
    if (!safe_name(name)) continue;
    t += "\n[mcp_servers." + name + "]\nurl = " + toml_string(broker.base_url + "/mcp/" + name) +
         "\nbearer_token_env_var = " + toml_string(codex_broker_token_var) + "\n";
  }
  return t;
}

std::string config_toml(const config& cfg, const codex_home_options& o, const std::string& home) {
  std::string t = top_level_keys(cfg, o, home) + provider_table(cfg) + features_table(o) + shell_policy_table();
  if (o.broker) t += mcp_tables(*o.broker);
  return t;
}

std::optional<fs::path> find_rollout(const std::string& home, const std::string& thread_id) {
  std::error_code ec;
  std::string suffix = "-" + thread_id + ".jsonl";
  for (fs::recursive_directory_iterator it(fs::path(home) / "sessions", ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return it->path();
    }
  }
  return std::nullopt;
}

// codex's bundled catalog: what the binary itself knows, without any network refresh.
result<json> bundled_catalog(const config& cfg) {
  std::string tmp = (fs::temp_directory_path() / "platform-codex-XXXXXX").string();
  if (!mkdtemp(tmp.data())) return fail(api_error::spawn_failed, "cannot create a temp CODEX_HOME");
  process_spec spec{cfg.codex_path, {"debug", "models", "--bundled"}, codex_env(cfg, tmp, ""), tmp};
  std::string text, line;
  int code = -1;
  if (auto proc = child_process::spawn(spec)) {
    while ((*proc)->read_line(line)) text += line + "\n";
    code = (*proc)->wait();
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  json catalog = servers::parse_json_within(text);
  if (code != 0 || !catalog.is_object() || !catalog.contains("models") || !catalog["models"].is_array() ||
      catalog["models"].empty()) {
    return fail(api_error::runtime_not_available, "codex did not print its model catalog");
  }
  return catalog;
}

// The model's entry, or for a model the catalog does not list the default model's under its
// name, so the tool restriction holds for every model the registry offers.
json restricted_entry(const json& catalog, const std::string& model) {
  const json* base = &catalog["models"].front();
  for (const auto& m : catalog["models"]) {
    if (m.value("slug", "") == model) {
      base = &m;
      break;
    }
    if (m.value("slug", "") == "gpt-5.5") base = &m;
  }
  json entry = *base;
  entry["slug"] = model;
  entry["apply_patch_tool_type"] = nullptr;
  entry["shell_type"] = "disabled";
  entry["experimental_supported_tools"] = json::array();
  return entry;
}

}  // namespace

result<std::string> make_codex_home(const config& cfg, const codex_home_options& o) {
  std::string home = o.home;
  if (home.empty()) {
    home = (fs::temp_directory_path() / "platform-codex-XXXXXX").string();
    if (!mkdtemp(home.data())) return fail(api_error::spawn_failed, "cannot create a temp CODEX_HOME for the runtime");
  }
  bool ok = write_private(fs::path(home) / "config.toml", config_toml(cfg, o, home));
  if (ok && o.app_agent) ok = write_private(fs::path(home) / catalog_file, o.model_catalog_json);
  fs::path login = fs::path(cfg.codex_login_home) / "auth.json";
  std::error_code ec;
  if (ok && uses_operator_login(cfg) && fs::exists(login, ec)) ok = write_private(fs::path(home) / "auth.json", read_whole_file(login));
  if (!ok) {
    fs::remove_all(home, ec);
    return fail(api_error::spawn_failed, "cannot write the runtime's configuration");
  }
  return home;
}

std::vector<std::string> codex_env(const config& cfg, const std::string& home, const std::string& broker_token) {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "CODEX_HOME=" + home,
                                  "LANG=C.UTF-8"};
  if (!cfg.codex_base_url.empty() && !cfg.codex_key.empty()) env.push_back(cfg.codex_key_var + "=" + cfg.codex_key);
  if (!broker_token.empty()) env.push_back(std::string(codex_broker_token_var) + "=" + broker_token);
  return env;
}

bool codex_needs_key_login(const config& cfg) { return cfg.codex_base_url.empty() && !cfg.codex_key.empty(); }

std::string mcp_thread_config(const broker_access& broker) {
  json servers = json::object();
  for (const auto& name : broker.servers) {
    if (!safe_name(name)) continue;
    servers[name] = {{"url", broker.base_url + "/mcp/" + name},
                     {"http_headers", {{"Authorization", "Bearer " + broker.token}}}};
  }
  return json({{"mcp_servers", servers}}).dump();
}

result<std::string> restricted_model_catalog(const config& cfg, const std::string& model) {
  static std::mutex mu;
  static std::optional<json> catalog;
  static std::map<std::string, std::string> by_model;
  std::lock_guard lock(mu);
  if (auto it = by_model.find(model); it != by_model.end()) return it->second;
  if (!catalog) {
    auto c = bundled_catalog(cfg);
    if (!c) return tl::unexpected(c.error());
    catalog = std::move(*c);
  }
  std::string doc = json({{"models", json::array({restricted_entry(*catalog, model)})}}).dump();
  by_model.emplace(model, doc);
  return doc;
}

bool safe_thread_id(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
  }
  return true;
}

// Any sessions/YYYY/MM/DD directory works: codex finds a rollout by the thread id that ends
// its file name (verified with 0.169.0).
bool restore_rollout(const std::string& home, const provider_session_state& s) {
  if (!safe_thread_id(s.session_id) || s.data.empty()) return false;
  if (find_rollout(home, s.session_id)) return true;
  fs::path file = fs::path(home) / "sessions/1970/01/01" / ("rollout-1970-01-01T00-00-00-" + s.session_id + ".jsonl");
  return write_private(file, s.data);
}

std::optional<std::string> read_rollout(const std::string& home, const std::string& thread_id) {
  if (!safe_thread_id(thread_id)) return std::nullopt;
  auto file = find_rollout(home, thread_id);
  if (!file) return std::nullopt;
  return read_whole_file(*file);
}

void save_refreshed_login(const config& cfg, const std::string& home) {
  if (!uses_operator_login(cfg)) return;
  std::error_code ec;
  fs::path mine = fs::path(home) / "auth.json";
  fs::path theirs = fs::path(cfg.codex_login_home) / "auth.json";
  if (!fs::exists(mine, ec)) return;
  std::string now = read_whole_file(mine);
  if (now.empty() || now == read_whole_file(theirs)) return;
  fs::path tmp = theirs;
  tmp += ".platform-tmp";
  if (write_private(tmp, now)) fs::rename(tmp, theirs, ec);
}

}  // namespace platform::worker
