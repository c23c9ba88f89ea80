#include "worker_registry.hpp"

#include <nlohmann/json.hpp>

namespace platform::worker {

using nlohmann::json;

namespace {

constexpr auto catalog_max_age = std::chrono::minutes(1);

// settings.settings.<key> of a request body, as settings_from_body reads it.
std::string settings_field(const json& body, const char* key) {
  auto outer = body.find("settings");
  if (outer == body.end() || !outer->is_object()) return {};
  auto inner = outer->find("settings");
  if (inner == outer->end() || !inner->is_object()) return {};
  auto v = inner->find(key);
  return v != inner->end() && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace

worker_registry::worker_registry(const config& cfg, runtime_registry builtin)
    : cfg_(cfg), current_(std::make_shared<const runtime_registry>(std::move(builtin))) {}

std::shared_ptr<const runtime_registry> worker_registry::snapshot() const {
  std::lock_guard lock(mu_);
  return current_;
}

result<opencode_discovery> worker_registry::discover() {
  auto d = discover_opencode_models(cfg_);
  if (!d) return d;
  runtime_registry next = *snapshot();
  auto set = next.set_models("runtime-c", runtime_c_models(d->catalog), d->default_model);
  if (!set) return tl::unexpected(set.error());
  {
    std::lock_guard lock(mu_);
    current_ = std::make_shared<const runtime_registry>(std::move(next));
  }
  discovered_ = *d;
  discovered_at_ = std::chrono::steady_clock::now();
  return d;
}

result<opencode_discovery> worker_registry::opencode_models() {
  std::lock_guard lock(discovery_mu_);
  if (discovered_ && std::chrono::steady_clock::now() - discovered_at_ < catalog_max_age) return *discovered_;
  return discover();
}

result<std::shared_ptr<const runtime_registry>> worker_registry::for_body(const json& body) {
  if (settings_field(body, "runtimeId") != "runtime-c") return snapshot();
  std::lock_guard lock(discovery_mu_);
  std::string model = settings_field(body, "runtimeModel");
  bool known = false;
  if (discovered_) {
    const runtime_info* rt = snapshot()->find("runtime-c");
    known = model.empty() || (rt && rt->find_model(model));
  }
  bool stale = std::chrono::steady_clock::now() - discovered_at_ >= catalog_max_age;
  if (!discovered_ || (!known && stale)) {
    auto d = discover();
    // A later failure keeps the models found before: normalization then names the problem.
    if (!d && !discovered_) return tl::unexpected(d.error());
  }
  return snapshot();
}

}  // namespace platform::worker
