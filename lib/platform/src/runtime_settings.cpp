// Runtime settings normalization: the requested settings checked against the registry,
// completed with defaults, downgraded along the fallback chains, and the runtime's launch
// (argv, or runtime-b's protocol params) derived from them.
#include "platform/runtime_settings.hpp"

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "runtime_rules.hpp"

namespace platform {
namespace {

using ojson = nlohmann::ordered_json;
using runtime_rules::allowed_values;
using runtime_rules::contains;
using runtime_rules::effective_default;
using runtime_rules::join;
using runtime_rules::resolve_value;
using runtime_rules::runtime_ids;
using runtime_rules::strings;

// ---------------------------------------------------------------- error messages

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
    return fail(api_error::unknown_model, rt.id + " has no models" +
                                     (rt.dynamic_models ? std::string(": feed the output of `opencode models --verbose`") : ""));
  }
  const std::string& wanted = model ? *model : rt.default_model;
  if (const runtime_model* m = rt.find_model(wanted)) return m;
  std::string message = "unknown model '" + wanted + "' for " + rt.id + "; models: " + join(model_names(rt));
  if (rt.dynamic_models && rt.models.empty()) message += " (feed the output of `opencode models --verbose`)";
  return fail(api_error::unknown_model, std::move(message));
}

result<void> check_params(const runtime_info& rt, const runtime_model& m,
                          const std::map<std::string, std::string>& params) {
  for (const auto& [name, value] : params) {
    const runtime_param* p = rt.find_param(name);
    if (p == nullptr) {
      return fail(api_error::unknown_param, "unknown param '" + name + "' for " + rt.id + "; params: " + join(param_names(rt)));
    }
    if (!contains(p->values, value) && !contains(allowed_values(*p, m), value)) {
      return fail(api_error::invalid_param_value, "invalid value '" + value + "' for " + name + "; allowed on " + m.id +
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

}  // namespace

result<normalized_settings> normalize_runtime_settings(const runtime_registry& registry, std::string_view runtime_id,
                                                       std::optional<std::string> model,
                                                       const std::map<std::string, std::string>& params) {
  const runtime_info* rt = registry.find(runtime_id);
  if (rt == nullptr) {
    return fail(api_error::unknown_runtime,
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

}  // namespace platform
