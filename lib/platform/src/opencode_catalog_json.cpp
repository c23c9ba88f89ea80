// runtime-c's catalog as JSON (opencode_catalog.hpp): what the worker answers on
// GET /opencode/models and what the web server builds its runtime-c models from.
#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"
#include "platform/opencode_catalog.hpp"

namespace platform {

using nlohmann::json;

std::string opencode_catalog_to_json(const opencode_catalog& catalog, const std::optional<std::string>& default_model) {
  json models = json::array();
  for (const auto& m : catalog.models) {
    json cost = nullptr;
    if (m.cost) {
      cost = {{"input", m.cost->input}, {"output", m.cost->output}, {"cacheRead", m.cost->cache_read},
              {"cacheWrite", m.cost->cache_write}};
    }
    models.push_back({{"id", m.id},
                      {"name", m.name},
                      {"provider", m.provider_id},
                      {"toolcall", m.toolcall},
                      {"reasoning", m.reasoning},
                      {"variants", m.variants},
                      {"contextLimit", m.context_limit},
                      {"costPerMTok", std::move(cost)},
                      {"status", m.status}});
  }
  json reply = {{"models", std::move(models)}, {"defaultModel", default_model ? json(*default_model) : json(nullptr)}};
  return compact_json(reply);
}

result<opencode_catalog_reply> opencode_catalog_from_json(std::string_view text) {
  if (nests_deeper_than(text, 16)) return fail(api_error::invalid_catalog, "the model catalog nests too deep");
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("models") || !j["models"].is_array()) {
    return fail(api_error::invalid_catalog, "the model catalog is not {\"models\": [...]}");
  }
  auto str = [](const json& o, const char* k) {
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  // A flag of any other type than a boolean is off (json::value would throw on it).
  auto flag = [](const json& o, const char* k) {
    auto it = o.find(k);
    return it != o.end() && it->is_boolean() && it->get<bool>();
  };
  auto num = [](const json& o, const char* k) {
    auto it = o.find(k);
    return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  opencode_catalog_reply out;
  for (const auto& m : j["models"]) {
    if (!m.is_object() || str(m, "id").empty() || !flag(m, "toolcall")) continue;
    opencode_model om;
    om.id = str(m, "id");
    om.name = str(m, "name");
    om.provider_id = str(m, "provider");
    om.toolcall = true;
    om.reasoning = flag(m, "reasoning");
    if (auto v = m.find("variants"); v != m.end() && v->is_array()) {
      for (const auto& x : *v) {
        if (x.is_string()) om.variants.push_back(x.get<std::string>());
      }
    }
    if (auto c = m.find("costPerMTok"); c != m.end() && c->is_object()) {
      om.cost = model_pricing{num(*c, "input"), num(*c, "output"), num(*c, "cacheRead"), num(*c, "cacheWrite")};
    }
    if (auto l = m.find("contextLimit"); l != m.end() && l->is_number_integer()) om.context_limit = l->get<std::int64_t>();
    om.status = str(m, "status");
    out.catalog.models.push_back(std::move(om));
  }
  if (auto d = j.find("defaultModel"); d != j.end() && d->is_string()) out.default_model = d->get<std::string>();
  return out;
}

}  // namespace platform
