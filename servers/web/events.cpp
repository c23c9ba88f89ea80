#include "events.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace platform::web {

std::string workspace_channel(std::string_view workspace_id) { return "workspace:" + std::string(workspace_id); }

std::string run_event(std::string_view type, const run_key& key, std::string_view kind, std::string_view status,
                      std::string_view run_reason) {
  nlohmann::json e = {{"type", type},     {"workspaceId", key.workspace_id}, {"appId", key.app_id},
                      {"runId", key.run_id}, {"kind", kind},                   {"status", status}};
  if (!run_reason.empty()) e["runReason"] = run_reason;
  return e.dump();
}

std::string app_event(std::string_view type, std::string_view workspace_id, std::string_view app_id) {
  return nlohmann::json({{"type", type}, {"workspaceId", workspace_id}, {"appId", app_id}}).dump();
}

void publish_app_event(cache_store& cache, std::string_view type, std::string_view workspace_id, std::string_view app_id) {
  auto r = cache.publish(workspace_channel(workspace_id), app_event(type, workspace_id, app_id));
  if (!r) std::fprintf(stderr, "web: publish %.*s failed: %s\n", static_cast<int>(type.size()), type.data(), code_c_str(r.error()));
}

void publish_builder_event(cache_store& cache, std::string_view type, const run_key& key, run_status status,
                           std::string_view run_reason) {
  auto r = cache.publish(workspace_channel(key.workspace_id),
                         run_event(type, key, "builder", to_string(status), run_reason));
  if (!r) std::fprintf(stderr, "web: publish %.*s failed: %s\n", static_cast<int>(type.size()), type.data(),
                       code_c_str(r.error()));
}

}  // namespace platform::web
