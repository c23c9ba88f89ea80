#pragma once
// The runtime registry (spec "Runtime settings"): for each runtime its ids, display names,
// models, parameters with their allowed values and defaults, and the capability rules that
// downgrade a selection a model does not support. Everything is data: the built-in tables for
// runtime-a and runtime-b, and for runtime-c the models discovered from the installed
// catalog (opencode_catalog.hpp). Settings are normalized against it in runtime_settings.hpp;
// its JSON form is runtime_registry_json.hpp. The reasoning behind the data: docs/runtimes.md.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/usage.hpp"

namespace platform {

// Parameter names in runtimeParams.
inline constexpr std::string_view param_effort = "effort";                     // runtime-a
inline constexpr std::string_view param_thinking = "thinking";                 // runtime-a
inline constexpr std::string_view param_reasoning_effort = "reasoningEffort";  // runtime-b
inline constexpr std::string_view param_sandbox_mode = "sandboxMode";          // runtime-b
inline constexpr std::string_view param_variant = "variant";                   // runtime-c
inline constexpr std::string_view variant_auto = "auto";  // runtime-c: no --variant flag

struct runtime_param {
  std::string name;
  std::string display_name;
  std::string description;
  std::vector<std::string> values;  // every value the runtime knows, over all its models
  std::string default_value;        // before the model's own rules apply
};

// When `value` is not available on the chosen model, `fallback` is tried instead (chains are
// followed: thinking enabled → adaptive → disabled).
struct param_fallback {
  std::string param;
  std::string value;
  std::string fallback;
};

struct runtime_model {
  std::string id;  // runtime-native; runtime-c keeps the discovered `provider/model`
  std::string display_name;
  std::string description;
  std::vector<std::string> aliases;  // other names that select this model (runtime-a `opus`)
  // Values available on this model per parameter. A parameter not listed here accepts every
  // value the runtime knows.
  std::map<std::string, std::vector<std::string>, std::less<>> values;
  // The model's own default for a parameter, when it differs from the runtime's.
  std::map<std::string, std::string, std::less<>> defaults;
  std::optional<model_pricing> pricing;  // USD per MTok, when known
};

struct runtime_info {
  std::string id;
  std::string display_name;
  std::string default_model;  // empty: no model known (runtime-c before discovery)
  bool dynamic_models = false;  // models come from the installed runtime's catalog
  std::vector<runtime_param> params;
  std::vector<param_fallback> fallbacks;
  std::vector<runtime_model> models;

  [[nodiscard]] const runtime_param* find_param(std::string_view name) const;
  // By id or alias.
  [[nodiscard]] const runtime_model* find_model(std::string_view id_or_alias) const;
};

class runtime_registry {
 public:
  runtime_registry() = default;
  explicit runtime_registry(std::vector<runtime_info> runtimes) : runtimes_(std::move(runtimes)) {}

  [[nodiscard]] const std::vector<runtime_info>& runtimes() const { return runtimes_; }
  [[nodiscard]] const runtime_info* find(std::string_view runtime_id) const;

  // Replaces a runtime's model list (runtime-c after discovery). The default model becomes
  // `default_model` when given and listed, else the first model. The runtime-wide values of a
  // parameter are widened by every value a model lists, so a variant a catalog adds is known.
  // Error `unknown_runtime`, or `unknown_model` when `default_model` is not in the list.
  result<void> set_models(std::string_view runtime_id, std::vector<runtime_model> models,
                          std::optional<std::string> default_model = std::nullopt);

  // Rates of every model with known pricing, under its id and each alias.
  [[nodiscard]] pricing_table pricing() const;

 private:
  std::vector<runtime_info> runtimes_;
};

// runtime-a and runtime-b with their built-in models; runtime-c with no models until
// `set_models` gets the discovered catalog.
runtime_registry builtin_runtime_registry();

}  // namespace platform
