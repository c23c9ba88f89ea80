#pragma once
// RunUsage (spec "RunUsage"): tokens and dollars a run has spent, accumulated once per runtime
// turn by increment. The per-turn increment is extracted from each runtime's own output:
//   runtime-a  the `result` line (per-result delta `model_usage_since_last_result`, else the
//              difference of the cumulative `modelUsage` from the previous result);
//   runtime-b  the sum of `thread/tokenUsage/updated` `last` between `turn/started` and
//              `turn/completed`; codex reports tokens only, so cost comes from a pricing table;
//   runtime-c  the sum of `step_finish` tokens and cost over the process' output.
// Token fields follow runtime-a's meaning everywhere: `inputTokens` are the input tokens that
// were neither read from nor written to the prompt cache, so the four token kinds never
// overlap and are priced once each. Rates and sources: docs/runtimes.md.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

// USD per million tokens. For OpenAI models `cache_write` equals `input`: writing the cache
// costs nothing extra there.
struct model_pricing {
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;
};

// Model id (runtime-native, runtime-c `provider/model`) → rates.
using pricing_table = std::map<std::string, model_pricing, std::less<>>;

struct model_usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_input_tokens = 0;
  std::int64_t cache_creation_input_tokens = 0;
  double cost_usd = 0;

  bool operator==(const model_usage&) const = default;
};

struct run_usage {
  double total_cost_usd = 0;
  std::int64_t total_input_tokens = 0;
  std::int64_t total_output_tokens = 0;
  std::int64_t total_cache_read_tokens = 0;
  std::int64_t total_cache_creation_tokens = 0;
  std::map<std::string, model_usage> by_model;
  // Extension over the spec's fields (`costUnknownModels`, sorted, no duplicates): models
  // whose tokens were counted with cost 0 because neither the runtime nor the pricing table
  // gave a price. A total that includes them is a lower bound.
  std::vector<std::string> cost_unknown_models;

  [[nodiscard]] bool cost_known() const { return cost_unknown_models.empty(); }
  // Adds one model's tokens and cost to the entry and to the totals.
  void add(const std::string& model, const model_usage& u);
  void mark_cost_unknown(const std::string& model);

  run_usage& operator+=(const run_usage& turn);
  bool operator==(const run_usage&) const = default;
};

// Accumulation is a plain sum; cost sums are rounded to 1e-12 USD so float dust does not grow.
run_usage operator+(run_usage total, const run_usage& turn);

// Compact JSON in the spec's field names: {"totalCostUsd","totalInputTokens",
// "totalOutputTokens","totalCacheReadTokens","totalCacheCreationTokens","byModel":{model:
// {"inputTokens","outputTokens","cacheReadInputTokens","cacheCreationInputTokens","costUsd"}}}
// plus "costUnknownModels" when it is not empty.
std::string run_usage_to_json(const run_usage& u);

// Reads that JSON back. Missing numbers are 0; totals are taken as written. Errors
// (`usage_invalid_json`, `usage_invalid_field`) name the offending field.
result<run_usage> run_usage_from_json(std::string_view json);

// Cost of one model's tokens at `p` (token fields in runtime-a's meaning, see above).
double cost_of(const model_usage& tokens, const model_pricing& p);

// What an accumulator needs besides the output lines.
struct usage_context {
  // Model of the turn when the runtime's usage does not name it (runtime-b, runtime-c).
  std::string model;
  pricing_table pricing;
  // runtime-a only: cumulative usage the CLI session already reported before this process's
  // first result (a resumed session). Used only when a result line has no per-result delta.
  run_usage baseline;
};

// A state machine fed a runtime's native output lines in order (any JSON line may come;
// irrelevant and unparsable ones are ignored). It returns the increment of a turn when a line
// completes one.
class usage_accumulator {
 public:
  virtual ~usage_accumulator() = default;
  virtual std::optional<run_usage> feed_line(std::string_view line) = 0;
  // End of the native stream. runtime-c marks no turn end in its output, so its turn usage
  // comes here; runtime-b returns what a turn that never completed had already used.
  virtual std::optional<run_usage> finish() = 0;
  // The turn's usage so far, once after each line that added to it (a model call or step
  // ended): the estimate a budget is enforced on while the turn runs (platform/budget.hpp).
  // runtime-a's comes from its assistant messages' usage, priced from the table; the result
  // line's figure, which feed_line returns, stays the one recorded.
  virtual std::optional<run_usage> progress() = 0;
};

// "runtime-a", "runtime-b", "runtime-c"; other ids: `unknown_runtime`.
result<std::unique_ptr<usage_accumulator>> make_usage_accumulator(std::string_view runtime_id,
                                                                  usage_context context);

// Feeds a whole transcript (lines separated by '\n') and returns one increment per turn.
result<std::vector<run_usage>> turn_usages(std::string_view runtime_id, std::string_view transcript,
                                           usage_context context);

}  // namespace platform
