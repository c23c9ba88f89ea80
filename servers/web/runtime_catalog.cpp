#include "runtime_catalog.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "platform/opencode_catalog.hpp"

namespace platform::web {

namespace {

constexpr auto refresh_after = std::chrono::minutes(1);
constexpr std::string_view default_runtime = "runtime-a";

bool knows(const runtime_registry& r, std::string_view runtime_id, std::string_view model) {
  const runtime_info* info = r.find(runtime_id);
  return info && !info->models.empty() && (model.empty() || info->find_model(model));
}

std::map<std::string, std::string> persisted_params(const app_record& app) {
  std::map<std::string, std::string> params;
  auto p = servers::parse_json_within(app.runtime_params_json);
  if (!p.is_object()) return params;
  for (const auto& [k, v] : p.items()) params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return params;
}

}  // namespace

runtime_catalog::runtime_catalog(const worker_pool& workers, runtime_registry builtin)
    : workers_(workers), builtin_(std::move(builtin)), current_(std::make_shared<runtime_registry>(builtin_)) {}

runtime_catalog::~runtime_catalog() {
  std::future<void> pending;
  {
    std::lock_guard lock(mu_);
    pending = std::move(background_);
  }
  if (pending.valid()) pending.wait();
}

void runtime_catalog::refresh_soon() {
  std::lock_guard lock(mu_);
  if (background_.valid() && background_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  background_ = std::async(std::launch::async, [this] {
    std::lock_guard refreshing(refresh_mu_);
    refresh();
  });
}

std::shared_ptr<const runtime_registry> runtime_catalog::current() const {
  std::lock_guard lock(mu_);
  return current_;
}

std::shared_ptr<const runtime_registry> runtime_catalog::get(std::string_view runtime_id, std::string_view model) {
  const runtime_info* builtin = runtime_id.empty() ? nullptr : builtin_.find(runtime_id);
  if (!runtime_id.empty() && (!builtin || !builtin->dynamic_models)) return current();
  // One refresh at a time; the others wait for it and then use what it found.
  std::lock_guard refreshing(refresh_mu_);
  auto now = std::chrono::steady_clock::now();
  // Without an answer yet (the worker was starting, or down), asked again a few seconds apart.
  bool stale = !refreshed_once_ || now - refreshed_ > (have_catalog_ ? refresh_after : std::chrono::seconds(5));
  // A model nobody offers must not make every request ask the worker: a few seconds apart.
  bool retry_unknown = !runtime_id.empty() && !knows(*current(), runtime_id, model) &&
                       now - refreshed_ > std::chrono::seconds(5);
  if (!stale && !retry_unknown) return current();
  if (stale && !retry_unknown && have_catalog_) {
    // The last answer serves while the worker is asked again.
    refreshed_ = now;
    refresh_soon();
    return current();
  }
  refresh();
  return current();
}

bool runtime_catalog::refresh() {
  refreshed_ = std::chrono::steady_clock::now();
  refreshed_once_ = true;
  auto text = workers_.any().opencode_models();
  if (!text) return false;  // runtime-c is not usable on the worker (or it is down): no models
  auto reply = opencode_catalog_from_json(*text);
  if (!reply) {
    std::fprintf(stderr, "web: the worker's runtime-c catalog is unreadable: %s\n", reply.error().message.c_str());
    return false;
  }
  auto next = std::make_shared<runtime_registry>(builtin_);
  for (const auto& info : builtin_.runtimes()) {
    if (info.dynamic_models) (void)next->set_models(info.id, runtime_c_models(reply->catalog), reply->default_model);
  }
  have_catalog_ = true;
  std::lock_guard lock(mu_);
  current_ = std::move(next);
  return true;
}

result<normalized_settings> app_runtime_settings(runtime_catalog& catalog, const app_record& app,
                                                 const settings_request& change) {
  bool same_runtime = !change.runtime_id || *change.runtime_id == app.runtime_id ||
                      (app.runtime_id.empty() && *change.runtime_id == default_runtime);
  std::string runtime_id = change.runtime_id.value_or(app.runtime_id.empty() ? std::string(default_runtime) : app.runtime_id);
  std::optional<std::string> model = change.runtime_model;
  if (!model && same_runtime && !app.runtime_model.empty()) model = app.runtime_model;
  std::map<std::string, std::string> params =
      change.runtime_params ? *change.runtime_params : (same_runtime ? persisted_params(app) : std::map<std::string, std::string>{});
  auto registry = catalog.get(runtime_id, model.value_or(""));
  return normalize_runtime_settings(*registry, runtime_id, model, params);
}

void persist_settings(app_record& app, const normalized_settings& s) {
  app.runtime_id = s.runtime_id;
  app.runtime_model = s.runtime_model;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : s.runtime_params) params[k] = v;
  app.runtime_params_json = compact_json(params);
}

}  // namespace platform::web
