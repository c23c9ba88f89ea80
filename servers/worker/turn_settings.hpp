#pragma once
// Runtime settings of a worker request, normalized again here from their three persisted
// fields (runtimeId, runtimeModel, runtimeParams), so no request can put arbitrary flags on a
// runtime's argv. Body shape: {"settings": {"settings": {...}}} as the web server sends it.
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/runtime_registry.hpp"
#include "platform/runtime_settings.hpp"
#include "worker_http.hpp"

namespace platform::worker {

inline result<normalized_settings> settings_from_body(const runtime_registry& registry, const nlohmann::json& body) {
  const nlohmann::json none = nlohmann::json::object();
  auto outer = body.find("settings");
  const nlohmann::json& s = outer != body.end() && outer->is_object() ? *outer : none;
  auto inner = s.find("settings");
  const nlohmann::json& settings = inner != s.end() && inner->is_object() ? *inner : none;
  std::map<std::string, std::string> params;
  if (auto it = settings.find("runtimeParams"); it != settings.end() && it->is_object()) {
    for (auto p = it->begin(); p != it->end(); ++p) {
      if (p->is_string()) params[p.key()] = p->get<std::string>();
    }
  }
  std::string runtime = string_field(settings, "runtimeId");
  std::optional<std::string> model;
  if (auto m = string_field(settings, "runtimeModel"); !m.empty()) model = m;
  return normalize_runtime_settings(registry, runtime.empty() ? "runtime-a" : runtime, model, params);
}

}  // namespace platform::worker
