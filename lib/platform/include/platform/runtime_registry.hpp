#pragma once
// The runtime registry (spec "Runtime settings"): for each runtime its ids, display names,
// models, parameters with their allowed values and defaults, and the capability rules that
// downgrade a selection a model does not support. Everything is data: the built-in tables for
// runtime-a and runtime-b, and for runtime-c the models discovered from the installed
// catalog (`opencode models --verbose`). The reasoning behind the data: docs/runtimes.md.
#include <cstdint>
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

// One automatic change to the requested settings.
struct settings_downgrade {
  std::string param;
  std::string from;
  std::string to;
  std::string reason;
};

struct normalized_settings {
  std::string runtime_id;
  std::string runtime_model;                        // resolved id (aliases replaced)
  std::map<std::string, std::string> runtime_params;  // complete: defaults filled
  std::vector<settings_downgrade> downgrades;
  // What these settings put on the runtime's command line. The worker adds the rest
  // (session, resume, permission and MCP flags, the prompt).
  std::vector<std::string> args;
  // Settings that travel in the runtime's protocol rather than on argv, as compact JSON.
  // runtime-b: {"thread":{model,sandbox},"turn":{model,effort,summary}} for thread/start
  // (and thread/resume) and turn/start; `{}` for the others.
  std::string protocol_params_json = "{}";
};

// Validates and completes runtime settings. `model` nullopt = the runtime's default model.
// Errors (message lists the allowed names or values): `unknown_runtime`, `unknown_model`,
// `unknown_param`, `invalid_param_value` (a value the runtime does not know),
// `unsupported_param_value` (known, but not available on this model and no fallback is).
result<normalized_settings> normalize_runtime_settings(const runtime_registry& registry,
                                                       std::string_view runtime_id,
                                                       std::optional<std::string> model,
                                                       const std::map<std::string, std::string>& params);

// {"settings":{"runtimeId","runtimeModel","runtimeParams"},"downgrades":[{param,from,to,reason}],
//  "args":[...],"protocolParams":{...}}
std::string normalized_settings_to_json(const normalized_settings& s);

// {"error":{"code","message"}}
std::string error_to_json(const error& e);

// {"runtimes":[{id, displayName, defaultModel, dynamicModels, params:[...], fallbacks:[...],
//  models:[{id, displayName, description, aliases, params:{name:{values, default}}, pricing?}]}]}
// Each model lists the values available on it and its effective default.
std::string runtime_registry_to_json(const runtime_registry& registry);

// ---- runtime-c model discovery: the output of `opencode models [provider] --verbose` ----

struct opencode_model {
  std::string id;  // `provider/model`, exactly as listed
  std::string name;
  std::string provider_id;
  bool toolcall = false;
  bool reasoning = false;
  std::vector<std::string> variants;  // keys of `variants`, in catalog order
  std::optional<model_pricing> cost;
  std::int64_t context_limit = 0;
  std::string status;
};

struct opencode_catalog {
  std::vector<opencode_model> models;   // tool-call capable: the ones offered
  std::vector<std::string> skipped;     // listed but not offered (no toolcall, no details, bad entry)
  std::string error;                    // `Error: ...` line of the CLI (e.g. unknown provider)
};

// Incremental, sans-I/O: feed the text in any split, then finish(). The format is one id
// line (`provider/model`, no spaces) followed, with --verbose, by a pretty-printed JSON object
// whose closing `}` is at column 0. Plain `opencode models` output (ids only) gives no
// capabilities, so its models are skipped: only tool-call capable models may be offered.
class opencode_models_parser {
 public:
  void feed(std::string_view text);
  [[nodiscard]] opencode_catalog finish();

 private:
  void line(std::string_view l);
  void end_entry();

  std::string partial_;
  std::string pending_id_;
  std::string block_;
  bool in_block_ = false;
  bool block_too_big_ = false;
  opencode_catalog out_;
};

// Whole-text form. Error `opencode_models_error` (message from the CLI's `Error:` line) when
// the output holds an error and no models.
result<opencode_catalog> parse_opencode_models(std::string_view text);

// The catalog as GET /opencode/models answers it (metadata only):
// {"models":[{id, name, provider, toolcall, reasoning, variants, contextLimit,
//  costPerMTok: {input, output, cacheRead, cacheWrite} | null, status}], "defaultModel": id | null}
std::string opencode_catalog_to_json(const opencode_catalog& catalog, const std::optional<std::string>& default_model);

struct opencode_catalog_reply {
  opencode_catalog catalog;
  std::optional<std::string> default_model;
};

// Reads that reply back (the web server's copy of the worker's catalog). Models without an id
// or without tool calls are skipped. Error `invalid_catalog` when the text is no such object.
result<opencode_catalog_reply> opencode_catalog_from_json(std::string_view text);

// runtime-c registry models from a catalog: `variant` values = the model's variants + `auto`.
std::vector<runtime_model> runtime_c_models(const opencode_catalog& catalog);

}  // namespace platform
