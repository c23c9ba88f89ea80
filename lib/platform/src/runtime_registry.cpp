// Runtime registry: the built-in data of runtime-a, runtime-b and runtime-c, lookups, the
// discovered models of runtime-c, and the rules for a parameter value on a model
// (runtime_rules.hpp). Why the data is what it is: docs/runtimes.md.
#include "platform/runtime_registry.hpp"

#include <algorithm>

#include "platform/api_error.hpp"
#include "runtime_rules.hpp"

namespace platform {

namespace runtime_rules {

std::string join(const strings& list) {
  std::string out;
  for (const auto& s : list) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out.empty() ? "(none)" : out;
}

strings runtime_ids(const runtime_registry& r) {
  strings ids;
  for (const auto& rt : r.runtimes()) ids.push_back(rt.id);
  return ids;
}

const strings& allowed_values(const runtime_param& p, const runtime_model& m) {
  auto it = m.values.find(p.name);
  return it == m.values.end() ? p.values : it->second;
}

namespace {

const std::string* fallback_of(const runtime_info& rt, std::string_view param, std::string_view value) {
  for (const auto& f : rt.fallbacks) {
    if (f.param == param && f.value == value) return &f.fallback;
  }
  return nullptr;
}

}  // namespace

result<std::string> resolve_value(const runtime_info& rt, const runtime_param& p, const runtime_model& m,
                                  std::string value, strings& skipped) {
  const strings& allowed = allowed_values(p, m);
  while (!contains(allowed, value)) {
    const std::string* next = fallback_of(rt, p.name, value);
    if (next == nullptr || contains(skipped, value)) {
      return fail(api_error::unsupported_param_value, p.name + " '" + value + "' is not available on " + m.id +
                                                 "; allowed: " + join(allowed));
    }
    skipped.push_back(value);
    value = *next;
  }
  return value;
}

result<std::string> effective_default(const runtime_info& rt, const runtime_param& p, const runtime_model& m) {
  auto own = m.defaults.find(p.name);
  std::string start = own == m.defaults.end() ? p.default_value : own->second;
  strings skipped;
  return resolve_value(rt, p, m, std::move(start), skipped);
}

}  // namespace runtime_rules

namespace {

using runtime_rules::contains;
using runtime_rules::join;
using runtime_rules::runtime_ids;
using runtime_rules::strings;

// ---------------------------------------------------------------- built-in data

// runtime-a starts from the CLI's own `initialize` answer (models[]: value, resolvedModel,
// displayName, description with list prices, supportedEffortLevels) and applies the spec's
// capability table on top of it: xhigh only on the newest largest model (claude-opus-5-5);
// max and adaptive thinking on the two largest newest (opus-5-5, fable-5-2) and one mid-size
// model (sonnet-5-5); enabled thinking on fable-5-2 and sonnet-5-5 but not on opus-5-5.
runtime_info runtime_a_data() {
  const strings efforts_newest = {"low", "medium", "high", "xhigh", "max"};
  const strings efforts_max = {"low", "medium", "high", "max"};
  const strings efforts_basic = {"low", "medium", "high"};
  runtime_info rt;
  rt.id = "runtime-a";
  rt.display_name = "Claude Code";
  rt.default_model = "claude-opus-5-5";
  rt.params = {
      {std::string(param_effort), "Effort", "How much effort the model spends (--effort).",
       efforts_newest, "xhigh"},
      {std::string(param_thinking), "Thinking",
       "Extended thinking: adaptive (the model decides), enabled (fixed budget) or disabled.",
       {"adaptive", "enabled", "disabled"}, "adaptive"},
  };
  rt.fallbacks = {
      {std::string(param_effort), "xhigh", "high"},
      {std::string(param_effort), "max", "high"},
      {std::string(param_thinking), "enabled", "adaptive"},
      {std::string(param_thinking), "adaptive", "disabled"},
  };
  auto model = [](std::string id, std::string name, std::string description, strings aliases,
                  strings efforts, strings thinking, model_pricing price) {
    runtime_model m;
    m.id = std::move(id);
    m.display_name = std::move(name);
    m.description = std::move(description);
    m.aliases = std::move(aliases);
    m.values.emplace(param_effort, std::move(efforts));
    m.values.emplace(param_thinking, std::move(thinking));
    m.pricing = price;
    return m;
  };
  // Cache rates: sonnet-4-5's reproduce the CLI's reported cost (fixture text-thinking-partial,
  // 0.007005); opus-5-5's reproduce fixture text-default-model (0.00874). The other 5.x models
  // take opus-5-5's cache ratios (read 5 %, write 125 % of input).
  rt.models = {
      model("claude-opus-5-5", "Opus 5.5", "Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok",
            {"default", "opus"}, efforts_newest, {"adaptive", "disabled"}, {4, 20, 0.20, 5}),
      model("claude-fable-5-2", "Fable 5.2",
            "Fable 5.2 · Most capable for your hardest and longest-running tasks · $8/$40 per Mtok",
            {"fable"}, efforts_max, {"adaptive", "enabled", "disabled"}, {8, 40, 0.40, 10}),
      model("claude-sonnet-5-5", "Sonnet 5.5", "Sonnet 5.5 · Efficient for routine tasks · $2/$10 per Mtok",
            {"sonnet"}, efforts_max, {"adaptive", "enabled", "disabled"}, {2, 10, 0.10, 2.5}),
      model("claude-haiku-5-5", "Haiku 5.5", "Haiku 5.5 · Fastest for quick answers · $0.10/$0.50 per Mtok",
            {"haiku"}, efforts_basic, {"disabled"}, {0.10, 0.50, 0.005, 0.125}),
      model("claude-sonnet-4-5-20250929", "Sonnet 4.5", "Sonnet 4.5 (older) · $3/$15 per Mtok",
            {"claude-sonnet-4-5"}, efforts_basic, {"disabled"}, {3, 15, 0.30, 3.75}),
  };
  return rt;
}

// runtime-b: codex app-server. Efforts per model as its model catalog advertises them
// (gpt-5.5: low|medium|high|xhigh, default medium); rates from OpenAI's published API prices.
runtime_info runtime_b_data() {
  runtime_info rt;
  rt.id = "runtime-b";
  rt.display_name = "Codex";
  rt.default_model = "gpt-5.5";
  rt.params = {
      {std::string(param_reasoning_effort), "Reasoning effort",
       "Reasoning effort of the model (turn/start effort).",
       {"low", "medium", "high", "xhigh", "max", "ultra"}, "medium"},
      // codex's own sandbox is an inner layer; the platform's jail is the boundary, and
      // danger-full-access (no inner layer at all) is not an app creator's to choose.
      {std::string(param_sandbox_mode), "Sandbox mode",
       "What commands may touch (thread/start sandbox).",
       {"read-only", "workspace-write"}, "workspace-write"},
  };
  // Mirrors codex's own clamping (ultra was clamped to xhigh on gpt-5.5).
  rt.fallbacks = {
      {std::string(param_reasoning_effort), "ultra", "max"},
      {std::string(param_reasoning_effort), "max", "xhigh"},
      {std::string(param_reasoning_effort), "xhigh", "high"},
  };
  auto model = [](std::string id, std::string name, std::string description, strings efforts,
                  model_pricing price) {
    runtime_model m;
    m.id = std::move(id);
    m.display_name = std::move(name);
    m.description = std::move(description);
    m.values.emplace(param_reasoning_effort, std::move(efforts));
    m.pricing = price;
    return m;
  };
  rt.models = {
      model("gpt-5.5", "GPT-5.5", "Flagship model · $5/$30 per Mtok (cached input $0.50)",
            {"low", "medium", "high", "xhigh"}, {5, 30, 0.50, 5}),
      model("gpt-5.4", "GPT-5.4", "Previous flagship · $2.50/$15 per Mtok (cached input $0.25)",
            {"low", "medium", "high", "xhigh"}, {2.5, 15, 0.25, 2.5}),
      model("gpt-5.4-mini", "GPT-5.4 mini", "Small and fast · $0.75/$4.50 per Mtok (cached input $0.075)",
            {"low", "medium", "high"}, {0.75, 4.5, 0.075, 0.75}),
  };
  return rt;
}

// runtime-c: opencode. Models are discovered from the installed catalog.
runtime_info runtime_c_data() {
  runtime_info rt;
  rt.id = "runtime-c";
  rt.display_name = "opencode";
  rt.dynamic_models = true;
  rt.params = {
      {std::string(param_variant), "Variant",
       "Model variant passed as --variant; auto omits the flag.", {std::string(variant_auto)},
       std::string(variant_auto)},
  };
  return rt;
}

}  // namespace

// ---------------------------------------------------------------- registry

const runtime_param* runtime_info::find_param(std::string_view name) const {
  for (const auto& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const runtime_model* runtime_info::find_model(std::string_view id_or_alias) const {
  for (const auto& m : models) {
    if (m.id == id_or_alias) return &m;
  }
  for (const auto& m : models) {
    if (contains(m.aliases, id_or_alias)) return &m;
  }
  return nullptr;
}

const runtime_info* runtime_registry::find(std::string_view runtime_id) const {
  for (const auto& rt : runtimes_) {
    if (rt.id == runtime_id) return &rt;
  }
  return nullptr;
}

result<void> runtime_registry::set_models(std::string_view runtime_id, std::vector<runtime_model> models,
                                          std::optional<std::string> default_model) {
  auto it = std::find_if(runtimes_.begin(), runtimes_.end(), [&](const runtime_info& rt) { return rt.id == runtime_id; });
  if (it == runtimes_.end()) {
    return fail(api_error::unknown_runtime, "unknown runtime '" + std::string(runtime_id) + "'; runtimes: " + join(runtime_ids(*this)));
  }
  runtime_info updated = *it;
  updated.models = std::move(models);
  if (default_model) {
    if (updated.find_model(*default_model) == nullptr) {
      return fail(api_error::unknown_model, "default model '" + *default_model + "' is not among the models given");
    }
    updated.default_model = updated.find_model(*default_model)->id;
  } else {
    updated.default_model = updated.models.empty() ? std::string() : updated.models.front().id;
  }
  for (auto& p : updated.params) {
    for (const auto& m : updated.models) {
      auto v = m.values.find(p.name);
      if (v == m.values.end()) continue;
      for (const auto& value : v->second) {
        if (!contains(p.values, value)) p.values.push_back(value);
      }
    }
  }
  *it = std::move(updated);
  return {};
}

pricing_table runtime_registry::pricing() const {
  pricing_table table;
  for (const auto& rt : runtimes_) {
    for (const auto& m : rt.models) {
      if (!m.pricing) continue;
      table.emplace(m.id, *m.pricing);
      for (const auto& a : m.aliases) table.emplace(a, *m.pricing);
    }
  }
  return table;
}

runtime_registry builtin_runtime_registry() {
  return runtime_registry({runtime_a_data(), runtime_b_data(), runtime_c_data()});
}

}  // namespace platform
