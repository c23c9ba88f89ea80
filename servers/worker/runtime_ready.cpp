#include "runtime_ready.hpp"

#include <unistd.h>

#include <filesystem>
#include <map>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "claude_credential.hpp"
#include "cli_probe.hpp"
#include "opencode_cli.hpp"
#include "provider_keys.hpp"
#include "runtime_c.hpp"
#include "worker_registry.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

std::string codex_key_now(const config& cfg) {
  if (!cfg.codex_key.empty()) return cfg.codex_key;
  auto entered = cfg.keys->env({"CODEX_API_KEY"});
  return entered.empty() ? std::string() : entered.front().substr(entered.front().find('=') + 1);
}

runtime_readiness runtime_ready(const config& cfg, const std::string& runtime_id, const std::string& model) {
  runtime_readiness_facts f;
  f.runtime_id = runtime_id;
  f.model = model;
  if (runtime_id == "runtime-a") {
    f.usable = executable(cfg.claude_path);
    f.credentials = claude_credential_now(cfg) != claude_credential_source::none;
  } else if (runtime_id == "runtime-b") {
    f.usable = executable(cfg.codex_path);
    // A custom provider (PLATFORM_CODEX_BASE_URL) is the operator's: it may need no key.
    std::error_code ec;
    bool login = !cfg.codex_login_home.empty() && fs::exists(fs::path(cfg.codex_login_home) / "auth.json", ec);
    f.credentials = !codex_key_now(cfg).empty() || !cfg.codex_base_url.empty() || (login && !cfg.sandbox->enabled());
    f.login_only = login;
  } else if (runtime_id == "runtime-c") {
    f.usable = opencode_check(cfg).usable;
    if (f.usable && !model.empty()) {
      auto p = runtime_c_provider(cfg, model);
      f.provider_routed = p.routed;
      f.credentials = p.credentials;
    } else {
      f.credentials = f.usable;
    }
  }
  return decide_runtime_readiness(f);
}

namespace {

json readiness_json(const runtime_readiness& r) {
  json j = {{"ready", r.ready()}};
  if (!r.ready()) j["reason"] = r.reason;
  return j;
}

}  // namespace

void handle_runtime_readiness(const config& cfg, worker_registry& registry, httplib::Response& res) {
  json runtimes = json::object();
  runtimes["runtime-a"] = readiness_json(runtime_ready(cfg, "runtime-a", ""));
  runtimes["runtime-b"] = readiness_json(runtime_ready(cfg, "runtime-b", ""));
  // runtime-c's models as last discovered, never waiting for a discovery (seconds): before
  // the first one its readiness is not known, and the answer says nothing about it.
  auto snapshot = registry.snapshot();
  const runtime_info* listed = snapshot->find("runtime-c");
  json c = readiness_json(runtime_ready(cfg, "runtime-c", ""));
  if (c["ready"].get<bool>() && (!listed || listed->models.empty())) {
    c = json::object();
  } else if (c["ready"].get<bool>()) {
    // The facts are the provider's (asked once each); the sentence is the model's. The
    // runtime is ready when any of its models is (the chosen one carries its own mark).
    json models = json::object();
    std::map<std::string, runtime_c_provider_state> providers;
    for (const auto& m : listed->models) {
      std::string provider = m.id.substr(0, m.id.find('/'));
      auto known = providers.find(provider);
      if (known == providers.end()) known = providers.emplace(provider, runtime_c_provider(cfg, m.id)).first;
      runtime_readiness_facts f;
      f.runtime_id = "runtime-c";
      f.model = m.id;
      f.provider_routed = known->second.routed;
      f.credentials = known->second.credentials;
      if (auto r = decide_runtime_readiness(f); !r.ready()) models[m.id] = r.reason;
    }
    if (models.size() == listed->models.size()) c = readiness_json(no_model_ready("runtime-c"));
    c["models"] = std::move(models);
  }
  runtimes["runtime-c"] = std::move(c);
  res.set_content(json({{"runtimes", std::move(runtimes)}}).dump(), "application/json");
}

}  // namespace platform::worker
