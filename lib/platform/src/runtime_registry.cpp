// Runtime registry: the built-in data, settings normalization, the registry's JSON form and
// the parser of `opencode models --verbose`. Why the data is what it is: docs/runtimes.md.
#include "platform/runtime_registry.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "bounded_json.hpp"
#include "platform/compact_json.hpp"

namespace platform {
namespace {

using ojson = nlohmann::ordered_json;
using strings = std::vector<std::string>;

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
      {std::string(param_sandbox_mode), "Sandbox mode",
       "What commands may touch (thread/start sandbox).",
       {"read-only", "workspace-write", "danger-full-access"}, "workspace-write"},
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

// ---------------------------------------------------------------- helpers

bool contains(const strings& list, std::string_view v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

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

strings model_names(const runtime_info& rt) {
  strings names;
  for (const auto& m : rt.models) {
    std::string n = m.id;
    if (!m.aliases.empty()) n += " (" + join(m.aliases) + ")";
    names.push_back(std::move(n));
  }
  return names;
}

strings param_names(const runtime_info& rt) {
  strings names;
  for (const auto& p : rt.params) names.push_back(p.name);
  return names;
}

const strings& allowed_values(const runtime_param& p, const runtime_model& m) {
  auto it = m.values.find(p.name);
  return it == m.values.end() ? p.values : it->second;
}

const std::string* fallback_of(const runtime_info& rt, std::string_view param, std::string_view value) {
  for (const auto& f : rt.fallbacks) {
    if (f.param == param && f.value == value) return &f.fallback;
  }
  return nullptr;
}

// Follows the fallback chain from `value` to a value the model supports. `skipped` receives
// each unavailable value passed over.
result<std::string> resolve_value(const runtime_info& rt, const runtime_param& p, const runtime_model& m,
                                  std::string value, strings& skipped) {
  const strings& allowed = allowed_values(p, m);
  while (!contains(allowed, value)) {
    const std::string* next = fallback_of(rt, p.name, value);
    if (next == nullptr || contains(skipped, value)) {
      return fail("unsupported_param_value", p.name + " '" + value + "' is not available on " + m.id +
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

std::string downgrade_reason(const std::string& param, const strings& skipped, const runtime_model& m,
                             const strings& allowed) {
  std::string what = param + " " + skipped.front();
  for (std::size_t i = 1; i < skipped.size(); ++i) what += (i + 1 == skipped.size() ? " and " : ", ") + skipped[i];
  return what + (skipped.size() > 1 ? " are" : " is") + " not available on " + m.id + " (available: " +
         join(allowed) + ")";
}

// ---------------------------------------------------------------- argv per runtime

// runtime-a: the SDK's stream-json launch (research runtime-a §2). Thinking `enabled` has no
// `--thinking=` value of its own: the SDK sends a fixed budget as --max-thinking-tokens, and
// 31999 is the budget the CLI itself uses when it enables thinking.
strings runtime_a_args(const normalized_settings& s) {
  const std::string& thinking = s.runtime_params.at(std::string(param_thinking));
  strings args = {"--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                  "--include-partial-messages", "--model=" + s.runtime_model,
                  "--effort=" + s.runtime_params.at(std::string(param_effort))};
  args.push_back(thinking == "enabled" ? "--max-thinking-tokens=31999" : "--thinking=" + thinking);
  args.emplace_back("--thinking-display=summarized");
  return args;
}

// runtime-b: settings travel in thread/start and turn/start; `summary: detailed` makes codex
// stream reasoning summaries, as --thinking-display does for runtime-a.
std::string runtime_b_protocol_params(const normalized_settings& s) {
  ojson thread = {{"model", s.runtime_model},
                  {"sandbox", s.runtime_params.at(std::string(param_sandbox_mode))}};
  ojson turn = {{"model", s.runtime_model},
                {"effort", s.runtime_params.at(std::string(param_reasoning_effort))},
                {"summary", "detailed"}};
  return ojson{{"thread", std::move(thread)}, {"turn", std::move(turn)}}.dump();
}

// runtime-c: `--thinking` only makes opencode print reasoning parts (they are dropped from
// JSON output without it); the variant flag is left out for `auto`.
strings runtime_c_args(const normalized_settings& s) {
  strings args = {"run", "--format", "json", "--thinking", "--model", s.runtime_model};
  const std::string& variant = s.runtime_params.at(std::string(param_variant));
  if (variant != variant_auto) {
    args.emplace_back("--variant");
    args.push_back(variant);
  }
  return args;
}

void add_launch(normalized_settings& s) {
  if (s.runtime_id == "runtime-a") {
    s.args = runtime_a_args(s);
  } else if (s.runtime_id == "runtime-b") {
    s.args = {"app-server"};
    s.protocol_params_json = runtime_b_protocol_params(s);
  } else if (s.runtime_id == "runtime-c") {
    s.args = runtime_c_args(s);
  }
}

// ---------------------------------------------------------------- normalization steps

result<const runtime_model*> pick_model(const runtime_info& rt, const std::optional<std::string>& model) {
  if (!model && rt.default_model.empty()) {
    return fail("unknown_model", rt.id + " has no models" +
                                     (rt.dynamic_models ? std::string(": feed the output of `opencode models --verbose`") : ""));
  }
  const std::string& wanted = model ? *model : rt.default_model;
  if (const runtime_model* m = rt.find_model(wanted)) return m;
  std::string message = "unknown model '" + wanted + "' for " + rt.id + "; models: " + join(model_names(rt));
  if (rt.dynamic_models && rt.models.empty()) message += " (feed the output of `opencode models --verbose`)";
  return fail("unknown_model", std::move(message));
}

result<void> check_params(const runtime_info& rt, const runtime_model& m,
                          const std::map<std::string, std::string>& params) {
  for (const auto& [name, value] : params) {
    const runtime_param* p = rt.find_param(name);
    if (p == nullptr) {
      return fail("unknown_param", "unknown param '" + name + "' for " + rt.id + "; params: " + join(param_names(rt)));
    }
    if (!contains(p->values, value) && !contains(allowed_values(*p, m), value)) {
      return fail("invalid_param_value", "invalid value '" + value + "' for " + name + "; allowed on " + m.id +
                                             ": " + join(allowed_values(*p, m)));
    }
  }
  return {};
}

result<void> fill_param(const runtime_info& rt, const runtime_param& p, const runtime_model& m,
                        const std::map<std::string, std::string>& params, normalized_settings& out) {
  auto given = params.find(p.name);
  if (given == params.end()) {
    auto v = effective_default(rt, p, m);
    if (!v) return tl::unexpected(v.error());
    out.runtime_params[p.name] = *v;
    return {};
  }
  strings skipped;
  auto v = resolve_value(rt, p, m, given->second, skipped);
  if (!v) return tl::unexpected(v.error());
  if (!skipped.empty()) {
    out.downgrades.push_back({p.name, given->second, *v, downgrade_reason(p.name, skipped, m, allowed_values(p, m))});
  }
  out.runtime_params[p.name] = *v;
  return {};
}

// ---------------------------------------------------------------- JSON

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

// ---------------------------------------------------------------- opencode catalog

constexpr std::size_t max_block_bytes = 1u << 20;
constexpr std::size_t max_id_bytes = 512;
constexpr std::size_t max_variant_bytes = 64;

bool is_id_line(std::string_view l) {
  if (l.empty() || l.size() > max_id_bytes || l.front() == '-' || l.front() == '/' || l.back() == '/') return false;
  if (l.find('/') == std::string_view::npos) return false;
  // Printable ASCII only: ids go to argv and into JSON unchanged.
  return std::all_of(l.begin(), l.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f;
  });
}

// A variant name becomes an argv item after --variant: keep it a plain token.
bool is_variant_name(std::string_view v) {
  if (v.empty() || v.size() > max_variant_bytes || v.front() == '-' || v == variant_auto) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

const ojson* member(const ojson& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

bool bool_at(const ojson& o, const char* key) {
  const ojson* v = member(o, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

std::string string_at(const ojson& o, const char* key) {
  const ojson* v = member(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// A price must be a finite, non-negative number; anything else means "unknown".
std::optional<double> price_at(const ojson* o, const char* key) {
  const ojson* v = o ? member(*o, key) : nullptr;
  if (v == nullptr || !v->is_number()) return std::nullopt;
  double d = v->get<double>();
  if (!std::isfinite(d) || d < 0) return std::nullopt;
  return d;
}

std::optional<model_pricing> cost_of_entry(const ojson& entry) {
  const ojson* cost = member(entry, "cost");
  auto in = price_at(cost, "input");
  auto out = price_at(cost, "output");
  if (!in || !out) return std::nullopt;
  const ojson* cache = cost ? member(*cost, "cache") : nullptr;
  model_pricing p;
  p.input = *in;
  p.output = *out;
  p.cache_read = price_at(cache, "read").value_or(0);
  p.cache_write = price_at(cache, "write").value_or(0);
  return p;
}

std::optional<opencode_model> model_of_entry(const std::string& id, const ojson& entry) {
  if (!entry.is_object()) return std::nullopt;
  opencode_model m;
  m.id = id;
  m.name = string_at(entry, "name");
  m.provider_id = string_at(entry, "providerID");
  m.status = string_at(entry, "status");
  if (const ojson* caps = member(entry, "capabilities")) {
    m.toolcall = bool_at(*caps, "toolcall");
    m.reasoning = bool_at(*caps, "reasoning");
  }
  if (const ojson* variants = member(entry, "variants"); variants && variants->is_object()) {
    for (const auto& [key, value] : variants->items()) {
      if (is_variant_name(key)) m.variants.push_back(key);
    }
  }
  m.cost = cost_of_entry(entry);
  if (const ojson* limit = member(entry, "limit")) {
    if (const ojson* ctx = member(*limit, "context"); ctx && ctx->is_number_integer()) {
      m.context_limit = std::max<std::int64_t>(0, ctx->get<std::int64_t>());
    }
  }
  return m;
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
    return fail("unknown_runtime", "unknown runtime '" + std::string(runtime_id) + "'; runtimes: " + join(runtime_ids(*this)));
  }
  runtime_info updated = *it;
  updated.models = std::move(models);
  if (default_model) {
    if (updated.find_model(*default_model) == nullptr) {
      return fail("unknown_model", "default model '" + *default_model + "' is not among the models given");
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

result<normalized_settings> normalize_runtime_settings(const runtime_registry& registry, std::string_view runtime_id,
                                                       std::optional<std::string> model,
                                                       const std::map<std::string, std::string>& params) {
  const runtime_info* rt = registry.find(runtime_id);
  if (rt == nullptr) {
    return fail("unknown_runtime",
                "unknown runtime '" + std::string(runtime_id) + "'; runtimes: " + join(runtime_ids(registry)));
  }
  auto m = pick_model(*rt, model);
  if (!m) return tl::unexpected(m.error());
  if (auto ok = check_params(*rt, **m, params); !ok) return tl::unexpected(ok.error());
  normalized_settings out;
  out.runtime_id = rt->id;
  out.runtime_model = (*m)->id;
  for (const auto& p : rt->params) {
    if (auto ok = fill_param(*rt, p, **m, params, out); !ok) return tl::unexpected(ok.error());
  }
  add_launch(out);
  return out;
}

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
  ojson j = {{"error", {{"code", e.code}, {"message", e.message}}}};
  return compact_json(j);
}

std::string runtime_registry_to_json(const runtime_registry& registry) {
  ojson list = ojson::array();
  for (const auto& rt : registry.runtimes()) list.push_back(runtime_json(rt));
  return compact_json(ojson{{"runtimes", std::move(list)}});
}

// ---------------------------------------------------------------- opencode parser

void opencode_models_parser::feed(std::string_view text) {
  std::size_t start = 0;
  while (true) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    std::string_view piece = text.substr(start, nl - start);
    if (partial_.empty()) {
      line(piece);
    } else {
      partial_.append(piece);
      line(partial_);
      partial_.clear();
    }
    start = nl + 1;
  }
  // An endless line is cut short instead of growing memory (line() cuts every line at the
  // same length, so the split of the input never changes the result).
  std::string_view rest = text.substr(start);
  if (partial_.size() < max_block_bytes) partial_.append(rest.substr(0, max_block_bytes - partial_.size()));
}

void opencode_models_parser::line(std::string_view l) {
  l = l.substr(0, max_block_bytes);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (in_block_) {
    if (block_.size() + l.size() + 1 > max_block_bytes) {
      block_too_big_ = true;
    } else if (!block_too_big_) {
      block_.append(l).push_back('\n');
    }
    if (l == "}") {
      in_block_ = false;
      end_entry();
    }
    return;
  }
  if (l == "{") {
    in_block_ = true;
    block_ = "{\n";
    return;
  }
  if (is_id_line(l)) {
    end_entry();
    pending_id_.assign(l);
    return;
  }
  if (l.rfind("Error:", 0) == 0 && out_.error.empty()) {
    std::string_view msg = l.substr(6);
    while (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
    out_.error.assign(msg.substr(0, max_id_bytes));
  }
}

void opencode_models_parser::end_entry() {
  std::string id = std::move(pending_id_);
  std::string block = std::move(block_);
  bool too_big = block_too_big_;
  pending_id_.clear();
  block_.clear();
  block_too_big_ = false;
  if (id.empty()) return;
  auto listed = [&](const std::string& x) {
    return contains(out_.skipped, x) ||
           std::any_of(out_.models.begin(), out_.models.end(), [&](const opencode_model& m) { return m.id == x; });
  };
  if (listed(id)) return;
  std::optional<opencode_model> m;
  if (!block.empty() && !too_big) {
    ojson entry = parse_json_within<ojson>(block, stored_json_limits);
    if (!entry.is_discarded()) m = model_of_entry(id, entry);
  }
  if (m && m->toolcall) {
    out_.models.push_back(std::move(*m));
  } else {
    out_.skipped.push_back(std::move(id));
  }
}

opencode_catalog opencode_models_parser::finish() {
  if (!partial_.empty()) {
    std::string last = std::move(partial_);
    partial_.clear();
    line(last);
  }
  if (in_block_) {  // an unterminated block: its model has no usable details
    in_block_ = false;
    block_.clear();
    block_too_big_ = true;
  }
  end_entry();
  opencode_catalog out = std::move(out_);
  *this = opencode_models_parser();
  return out;
}

result<opencode_catalog> parse_opencode_models(std::string_view text) {
  opencode_models_parser p;
  p.feed(text);
  opencode_catalog c = p.finish();
  if (!c.error.empty() && c.models.empty()) return fail("opencode_models_error", c.error);
  return c;
}

std::vector<runtime_model> runtime_c_models(const opencode_catalog& catalog) {
  std::vector<runtime_model> models;
  for (const auto& om : catalog.models) {
    runtime_model m;
    m.id = om.id;
    m.display_name = om.name.empty() ? om.id : om.name;
    m.description = om.reasoning ? "tool calls, reasoning" : "tool calls";
    strings variants = om.variants;
    variants.emplace_back(variant_auto);
    m.values.emplace(param_variant, std::move(variants));
    m.pricing = om.cost;
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace platform
