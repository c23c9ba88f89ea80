// The runtime registry's JSON form and that of normalized settings (runtime_registry_json.hpp).
#include "platform/runtime_registry_json.hpp"

#include <nlohmann/json.hpp>

#include "platform/compact_json.hpp"
#include "runtime_rules.hpp"

namespace platform {
namespace {

using ojson = nlohmann::ordered_json;
using runtime_rules::allowed_values;
using runtime_rules::effective_default;
using runtime_rules::strings;

ojson strings_json(const strings& list) {
  ojson a = ojson::array();
  for (const auto& s : list) a.push_back(s);
  return a;
}

ojson pricing_json(const model_pricing& p) {
  return {{"inputPerMTok", p.input}, {"outputPerMTok", p.output}, {"cacheReadPerMTok", p.cache_read},
          {"cacheWritePerMTok", p.cache_write}};
}

ojson model_json(const runtime_info& rt, const runtime_model& m) {
  ojson params = ojson::object();
  for (const auto& p : rt.params) {
    auto d = effective_default(rt, p, m);
    params[p.name] = {{"values", strings_json(allowed_values(p, m))}, {"default", d ? *d : std::string()}};
  }
  ojson j = {{"id", m.id}, {"displayName", m.display_name}, {"description", m.description},
             {"aliases", strings_json(m.aliases)}, {"params", std::move(params)}};
  if (m.pricing) j["pricing"] = pricing_json(*m.pricing);
  return j;
}

ojson runtime_json(const runtime_info& rt) {
  ojson params = ojson::array();
  for (const auto& p : rt.params) {
    params.push_back({{"name", p.name}, {"displayName", p.display_name}, {"description", p.description},
                      {"values", strings_json(p.values)}, {"default", p.default_value}});
  }
  ojson fallbacks = ojson::array();
  for (const auto& f : rt.fallbacks) {
    fallbacks.push_back({{"param", f.param}, {"value", f.value}, {"fallback", f.fallback}});
  }
  ojson models = ojson::array();
  for (const auto& m : rt.models) models.push_back(model_json(rt, m));
  return {{"id", rt.id}, {"displayName", rt.display_name}, {"defaultModel", rt.default_model},
          {"dynamicModels", rt.dynamic_models}, {"params", std::move(params)},
          {"fallbacks", std::move(fallbacks)}, {"models", std::move(models)}};
}

}  // namespace

std::string normalized_settings_to_json(const normalized_settings& s) {
  ojson params = ojson::object();
  for (const auto& [k, v] : s.runtime_params) params[k] = v;
  ojson downgrades = ojson::array();
  for (const auto& d : s.downgrades) {
    downgrades.push_back({{"param", d.param}, {"from", d.from}, {"to", d.to}, {"reason", d.reason}});
  }
  ojson protocol = ojson::parse(s.protocol_params_json, nullptr, false);
  if (protocol.is_discarded()) protocol = ojson::object();
  ojson j = {{"settings", {{"runtimeId", s.runtime_id}, {"runtimeModel", s.runtime_model}, {"runtimeParams", params}}},
             {"downgrades", std::move(downgrades)},
             {"args", strings_json(s.args)},
             {"protocolParams", std::move(protocol)}};
  return compact_json(j);
}

std::string error_to_json(const error& e) {
  ojson j = {{"error", {{"code", std::string(code_name(e))}, {"message", e.message}}}};
  return compact_json(j);
}

std::string runtime_registry_to_json(const runtime_registry& registry) {
  ojson list = ojson::array();
  for (const auto& rt : registry.runtimes()) list.push_back(runtime_json(rt));
  return compact_json(ojson{{"runtimes", std::move(list)}});
}

}  // namespace platform
