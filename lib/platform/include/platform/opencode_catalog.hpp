#pragma once
// runtime-c's model catalog (spec "Runtime settings": models are discovered from the installed
// catalog, only tool-call capable ones are offered, ids kept unchanged): the parser of
// `opencode models [provider] --verbose`, the catalog's JSON form (the worker's
// GET /opencode/models and the web server's copy of it), and the registry models it gives.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/usage.hpp"

namespace platform {

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
