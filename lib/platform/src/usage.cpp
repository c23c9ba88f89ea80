// RunUsage arithmetic, its JSON form, and the per-turn usage extraction of each runtime.
#include "platform/usage.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "platform/json_path.hpp"
#include "bounded_json.hpp"
#include "json_member.hpp"

namespace platform {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// No runtime reports more than this many tokens in one turn; a bigger count is garbage, and
// capping it keeps every sum far from overflow.
constexpr std::int64_t max_count = 1'000'000'000'000'000;
constexpr double max_cost = 1e12;

double round_cost(double usd) { return std::round(usd * 1e12) / 1e12; }

// Sums saturate at the bounds run_usage_from_json accepts, so any sum can be stored and read
// back, however many turns (or garbage counts) went into it.
void add_count(std::int64_t& to, std::int64_t n) {
  to = std::min(std::clamp<std::int64_t>(to, 0, max_count) + std::clamp<std::int64_t>(n, 0, max_count), max_count);
}
void add_cost(double& to, double usd) {
  auto valid = [](double d) { return std::isfinite(d) && d > 0 ? std::min(d, max_cost) : 0.0; };
  to = std::min(round_cost(valid(to) + valid(usd)), max_cost);
}

std::string string_at(const json& o, const char* key) {
  const json* v = find_member(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// A token count from runtime output: a non-negative number, anything else counts as 0.
std::int64_t count_at(const json& o, const char* key) {
  const json* v = find_member(o, key);
  if (v == nullptr) return 0;
  if (v->is_number_unsigned()) return static_cast<std::int64_t>(std::min<std::uint64_t>(v->get<std::uint64_t>(), max_count));
  if (v->is_number_integer()) return std::clamp<std::int64_t>(v->get<std::int64_t>(), 0, max_count);
  if (v->is_number_float()) {
    double d = v->get<double>();
    return std::isfinite(d) && d > 0 ? std::min<std::int64_t>(std::llround(std::min(d, 1e15)), max_count) : 0;
  }
  return 0;
}

std::optional<double> cost_at(const json& o, const char* key) {
  const json* v = find_member(o, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  double d = v->get<double>();
  if (!std::isfinite(d) || d < 0 || d > max_cost) return std::nullopt;
  return d;
}

// Parses a line only when it may matter (it holds one of `needles`): most runtime output
// lines are stream deltas.
std::optional<json> parse_if(std::string_view line, std::initializer_list<std::string_view> needles) {
  if (std::none_of(needles.begin(), needles.end(), [&](std::string_view n) { return line.find(n) != std::string_view::npos; })) {
    return std::nullopt;
  }
  json j = parse_json_within(line, stored_json_limits);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

// Prices tokens the runtime gave no dollar value for.
void add_priced(run_usage& turn, const std::string& model, model_usage u, const pricing_table& pricing) {
  auto p = pricing.find(model);
  if (p != pricing.end()) {
    u.cost_usd = cost_of(u, p->second);
  } else {
    u.cost_usd = 0;
    turn.mark_cost_unknown(model);
  }
  turn.add(model, u);
}

// ---------------------------------------------------------------- runtime-a

// One model entry of `modelUsage` / `model_usage_since_last_result`.
struct a_entry {
  model_usage u;
  bool cost_known = false;  // costUSD present and not a guess (costBasis "unknown")
};

a_entry read_a_entry(const json& e) {
  a_entry out;
  out.u.input_tokens = count_at(e, "inputTokens");
  out.u.output_tokens = count_at(e, "outputTokens");
  out.u.cache_read_input_tokens = count_at(e, "cacheReadInputTokens");
  out.u.cache_creation_input_tokens = count_at(e, "cacheCreationInputTokens");
  auto cost = cost_at(e, "costUSD");
  out.cost_known = cost.has_value() && string_at(e, "costBasis") != "unknown";
  out.u.cost_usd = cost.value_or(0);
  return out;
}

bool shrank(const model_usage& now, const model_usage& before) {
  return now.input_tokens < before.input_tokens || now.output_tokens < before.output_tokens ||
         now.cache_read_input_tokens < before.cache_read_input_tokens ||
         now.cache_creation_input_tokens < before.cache_creation_input_tokens || now.cost_usd < before.cost_usd;
}

model_usage minus(const model_usage& now, const model_usage& before) {
  return {now.input_tokens - before.input_tokens, now.output_tokens - before.output_tokens,
          now.cache_read_input_tokens - before.cache_read_input_tokens,
          now.cache_creation_input_tokens - before.cache_creation_input_tokens,
          round_cost(now.cost_usd - before.cost_usd)};
}

// Result lines in order. `model_usage_since_last_result` is this result's own usage; without
// it the cumulative `modelUsage` is compared with the previous result's (or the baseline). A
// cumulative value that went down means a new session: it counts whole.
class runtime_a_usage final : public usage_accumulator {
 public:
  explicit runtime_a_usage(usage_context ctx) : ctx_(std::move(ctx)) {
    for (const auto& [model, u] : ctx_.baseline.by_model) previous_[model] = u;
  }

  std::optional<run_usage> feed_line(std::string_view line) override {
    auto root = parse_if(line, {"\"result\"", "\"usage\""});
    if (!root) return std::nullopt;
    if (string_at(*root, "type") == "assistant") {
      note_call(*root);
      return std::nullopt;
    }
    if (string_at(*root, "type") != "result") return std::nullopt;
    calls_.clear();
    advanced_ = false;
    const json* since = find_member(*root, "model_usage_since_last_result");
    const json* cumulative = find_member(*root, "modelUsage");
    run_usage turn;
    if (since != nullptr && since->is_object()) {
      for (const auto& [model, e] : since->items()) add_entry(turn, model, read_a_entry(e));
    } else if (cumulative != nullptr && cumulative->is_object()) {
      for (const auto& [model, e] : cumulative->items()) add_entry(turn, model, difference(model, read_a_entry(e)));
    } else {
      add_turn_usage(turn, *root);
    }
    remember(cumulative);
    return turn;
  }

  std::optional<run_usage> finish() override { return std::nullopt; }

  std::optional<run_usage> progress() override {
    if (!std::exchange(advanced_, false)) return std::nullopt;
    run_usage so_far;
    for (const auto& [id, call] : calls_) add_priced(so_far, call.first, call.second, ctx_.pricing);
    return so_far;
  }

 private:
  // One model call's usage (an assistant message; the CLI repeats it per content block, so
  // it is kept per message id, the largest counts winning).
  void note_call(const json& root) {
    const json* message = find_member(root, "message");
    const json* usage = message ? find_member(*message, "usage") : nullptr;
    if (usage == nullptr || !usage->is_object()) return;
    std::string id = string_at(*message, "id");
    std::string model = string_at(*message, "model");
    if (model.empty() || model == "<synthetic>") model = ctx_.model.empty() ? std::string("unknown") : ctx_.model;
    model_usage u{count_at(*usage, "input_tokens"), count_at(*usage, "output_tokens"),
                  count_at(*usage, "cache_read_input_tokens"), count_at(*usage, "cache_creation_input_tokens"), 0};
    auto& [call_model, seen] = calls_[id.empty() ? std::to_string(calls_.size()) : id];
    model_usage next{std::max(seen.input_tokens, u.input_tokens), std::max(seen.output_tokens, u.output_tokens),
                     std::max(seen.cache_read_input_tokens, u.cache_read_input_tokens),
                     std::max(seen.cache_creation_input_tokens, u.cache_creation_input_tokens), 0};
    call_model = model;
    if (next == seen) return;
    seen = next;
    advanced_ = true;
  }

  a_entry difference(const std::string& model, a_entry now) const {
    auto before = previous_.find(model);
    if (before == previous_.end() || shrank(now.u, before->second)) return now;
    now.u = minus(now.u, before->second);
    return now;
  }

  void add_entry(run_usage& turn, const std::string& model, const a_entry& e) const {
    if (e.cost_known) {
      turn.add(model, e.u);
    } else {
      add_priced(turn, model, e.u, ctx_.pricing);
    }
  }

  // A result without per-model usage: this turn's `usage`, priced from the table.
  void add_turn_usage(run_usage& turn, const json& root) const {
    const json* usage = find_member(root, "usage");
    if (usage == nullptr || !usage->is_object()) return;
    model_usage u{count_at(*usage, "input_tokens"), count_at(*usage, "output_tokens"),
                  count_at(*usage, "cache_read_input_tokens"), count_at(*usage, "cache_creation_input_tokens"), 0};
    if (u == model_usage{}) return;
    add_priced(turn, ctx_.model.empty() ? std::string("unknown") : ctx_.model, u, ctx_.pricing);
  }

  void remember(const json* cumulative) {
    if (cumulative == nullptr || !cumulative->is_object()) return;
    for (const auto& [model, e] : cumulative->items()) previous_[model] = read_a_entry(e).u;
  }

  usage_context ctx_;
  std::map<std::string, model_usage> previous_;
  std::map<std::string, std::pair<std::string, model_usage>> calls_;  // this turn's, by message id
  bool advanced_ = false;
};

// ---------------------------------------------------------------- runtime-b

// JSON-RPC lines of codex app-server, or the capture form {"dir","msg":{...}}. Per turn, the
// `last` of each `thread/tokenUsage/updated` (one model response each) between turn/started
// and turn/completed of the same turn id. A resumed thread replays its stored totals before
// the next turn starts: outside a turn they are ignored.
class runtime_b_usage final : public usage_accumulator {
 public:
  explicit runtime_b_usage(usage_context ctx) : ctx_(std::move(ctx)), model_(ctx_.model) {}

  std::optional<run_usage> feed_line(std::string_view line) override {
    auto root = parse_if(line, {"turn/", "tokenUsage", "\"thread\""});
    if (!root) return std::nullopt;
    const json* msg = &*root;
    if (const json* inner = find_member(*root, "msg"); inner && inner->is_object() && find_member(*root, "dir")) msg = inner;
    return on_message(*msg);
  }

  std::optional<run_usage> finish() override {
    if (!in_turn_ || !seen_) return std::nullopt;
    return close_turn();
  }

  std::optional<run_usage> progress() override {
    if (!std::exchange(advanced_, false) || !in_turn_) return std::nullopt;
    return priced();
  }

 private:
  std::optional<run_usage> on_message(const json& msg) {
    std::string method = string_at(msg, "method");
    const json* params = find_member(msg, "params");
    if (method.empty()) {
      note_model_from_response(msg);
      return std::nullopt;
    }
    if (params == nullptr || !params->is_object()) return std::nullopt;
    if (method == "thread/started") note_model(find_member(*params, "thread"));
    if (method == "turn/started") start_turn(*params);
    if (method == "thread/tokenUsage/updated") add_usage(*params);
    if (method == "turn/completed" && in_turn_ && same_turn(turn_id_of(*params))) return close_turn();
    return std::nullopt;
  }

  void note_model(const json* thread) {
    if (thread == nullptr) return;
    std::string m = string_at(*thread, "model");
    if (!m.empty()) model_ = std::move(m);
  }

  // thread/start and thread/resume answers carry the thread and its model.
  void note_model_from_response(const json& msg) {
    const json* res = find_member(msg, "result");
    if (res == nullptr || find_member(*res, "thread") == nullptr) return;
    std::string m = string_at(*res, "model");
    if (!m.empty()) model_ = std::move(m);
  }

  static std::string turn_id_of(const json& params) {
    const json* turn = find_member(params, "turn");
    return turn ? string_at(*turn, "id") : std::string();
  }

  bool same_turn(const std::string& id) const { return id.empty() || turn_id_.empty() || id == turn_id_; }

  void start_turn(const json& params) {
    in_turn_ = true;
    seen_ = false;
    turn_id_ = turn_id_of(params);
    input_ = cached_ = cache_write_ = output_ = 0;
  }

  void add_usage(const json& params) {
    if (!in_turn_ || !same_turn(string_at(params, "turnId"))) return;
    const json* usage = find_member(params, "tokenUsage");
    const json* last = usage ? find_member(*usage, "last") : nullptr;
    if (last == nullptr || !last->is_object()) return;
    seen_ = true;
    advanced_ = true;
    input_ = std::min(input_ + count_at(*last, "inputTokens"), max_count);
    cached_ = std::min(cached_ + count_at(*last, "cachedInputTokens"), max_count);
    cache_write_ = std::min(cache_write_ + count_at(*last, "cacheWriteInputTokens"), max_count);
    output_ = std::min(output_ + count_at(*last, "outputTokens"), max_count);
  }

  // OpenAI's input count includes the cached tokens: take them out so each token is priced once.
  run_usage priced() const {
    run_usage turn;
    model_usage u;
    u.cache_read_input_tokens = std::min(cached_, input_);
    u.cache_creation_input_tokens = std::min(cache_write_, input_ - u.cache_read_input_tokens);
    u.input_tokens = input_ - u.cache_read_input_tokens - u.cache_creation_input_tokens;
    u.output_tokens = output_;
    add_priced(turn, model_.empty() ? std::string("unknown") : model_, u, ctx_.pricing);
    return turn;
  }

  run_usage close_turn() {
    in_turn_ = false;
    advanced_ = false;
    run_usage turn = seen_ ? priced() : run_usage{};
    seen_ = false;
    return turn;
  }

  usage_context ctx_;
  std::string model_;
  std::string turn_id_;
  bool in_turn_ = false;
  bool seen_ = false;
  bool advanced_ = false;
  std::int64_t input_ = 0, cached_ = 0, cache_write_ = 0, output_ = 0;
};

// ---------------------------------------------------------------- runtime-c

// `step_finish` parts: tokens {input (uncached), output, reasoning, cache{read, write}} and
// the step's cost in USD. Reasoning is billed as output. The process exit ends the turn.
class runtime_c_usage final : public usage_accumulator {
 public:
  explicit runtime_c_usage(usage_context ctx) : ctx_(std::move(ctx)) {}

  std::optional<run_usage> feed_line(std::string_view line) override {
    auto root = parse_if(line, {"step_finish"});
    if (!root || string_at(*root, "type") != "step_finish") return std::nullopt;
    const json* part = find_member(*root, "part");
    const json* tokens = part ? find_member(*part, "tokens") : nullptr;
    if (tokens == nullptr || !tokens->is_object()) return std::nullopt;
    const json* cache = find_member(*tokens, "cache");
    model_usage u;
    u.input_tokens = count_at(*tokens, "input");
    u.output_tokens = std::min(count_at(*tokens, "output") + count_at(*tokens, "reasoning"), max_count);
    u.cache_read_input_tokens = cache ? count_at(*cache, "read") : 0;
    u.cache_creation_input_tokens = cache ? count_at(*cache, "write") : 0;
    std::string model = ctx_.model.empty() ? std::string("unknown") : ctx_.model;
    seen_ = true;
    advanced_ = true;
    if (auto cost = cost_at(*part, "cost")) {
      u.cost_usd = *cost;
      turn_.add(model, u);
    } else {
      add_priced(turn_, model, u, ctx_.pricing);
    }
    return std::nullopt;
  }

  std::optional<run_usage> finish() override {
    if (!seen_) return std::nullopt;
    seen_ = false;
    advanced_ = false;
    return std::exchange(turn_, run_usage{});
  }

  std::optional<run_usage> progress() override {
    if (!std::exchange(advanced_, false)) return std::nullopt;
    return turn_;
  }

 private:
  usage_context ctx_;
  run_usage turn_;
  bool seen_ = false;
  bool advanced_ = false;
};

// ---------------------------------------------------------------- JSON reading

result<std::int64_t> read_count(const json& o, const char* key, const json_path& at) {
  const json* v = find_member(o, key);
  if (v == nullptr) return 0;
  if (v->is_number_unsigned() && v->get<std::uint64_t>() <= static_cast<std::uint64_t>(max_count)) {
    return static_cast<std::int64_t>(v->get<std::uint64_t>());
  }
  if (v->is_number_integer() && v->get<std::int64_t>() >= 0 && v->get<std::int64_t>() <= max_count) {
    return v->get<std::int64_t>();
  }
  if (v->is_number_float()) {  // some stores write whole numbers as doubles
    double d = v->get<double>();
    if (std::isfinite(d) && d >= 0 && d <= 1e15 && d == std::floor(d)) return static_cast<std::int64_t>(d);
  }
  return fail(api_error::usage_invalid_field, at.key(key).str() + " must be a non-negative whole number");
}

result<double> read_cost(const json& o, const char* key, const json_path& at) {
  const json* v = find_member(o, key);
  if (v == nullptr) return 0.0;
  if (v->is_number()) {
    double d = v->get<double>();
    if (std::isfinite(d) && d >= 0 && d <= max_cost) return d;
  }
  return fail(api_error::usage_invalid_field, at.key(key).str() + " must be a non-negative number");
}

result<model_usage> read_model_usage(const json& e, const json_path& at) {
  if (!e.is_object()) return fail(api_error::usage_invalid_field, at.str() + " must be an object");
  auto in = read_count(e, "inputTokens", at);
  auto out = read_count(e, "outputTokens", at);
  auto cr = read_count(e, "cacheReadInputTokens", at);
  auto cc = read_count(e, "cacheCreationInputTokens", at);
  auto cost = read_cost(e, "costUsd", at);
  for (const auto* r : {&in, &out, &cr, &cc}) {
    if (!*r) return tl::unexpected(r->error());
  }
  if (!cost) return tl::unexpected(cost.error());
  return model_usage{*in, *out, *cr, *cc, *cost};
}

result<void> read_totals(const json& j, run_usage& u) {
  json_path root;
  auto cost = read_cost(j, "totalCostUsd", root);
  auto in = read_count(j, "totalInputTokens", root);
  auto out = read_count(j, "totalOutputTokens", root);
  auto cr = read_count(j, "totalCacheReadTokens", root);
  auto cc = read_count(j, "totalCacheCreationTokens", root);
  for (const auto* r : {&in, &out, &cr, &cc}) {
    if (!*r) return tl::unexpected(r->error());
  }
  if (!cost) return tl::unexpected(cost.error());
  u.total_cost_usd = *cost;
  u.total_input_tokens = *in;
  u.total_output_tokens = *out;
  u.total_cache_read_tokens = *cr;
  u.total_cache_creation_tokens = *cc;
  return {};
}

result<void> read_unknown_models(const json& j, run_usage& u) {
  const json* list = find_member(j, "costUnknownModels");
  if (list == nullptr) return {};
  if (!list->is_array()) return fail(api_error::usage_invalid_field, "costUnknownModels must be an array of model ids");
  for (const auto& m : *list) {
    if (!m.is_string()) return fail(api_error::usage_invalid_field, "costUnknownModels must be an array of model ids");
    u.mark_cost_unknown(m.get<std::string>());
  }
  return {};
}

}  // namespace

// ---------------------------------------------------------------- run_usage

double cost_of(const model_usage& t, const model_pricing& p) {
  double usd = (static_cast<double>(t.input_tokens) * p.input + static_cast<double>(t.output_tokens) * p.output +
                static_cast<double>(t.cache_read_input_tokens) * p.cache_read +
                static_cast<double>(t.cache_creation_input_tokens) * p.cache_write) /
               1e6;
  return round_cost(usd);
}

void run_usage::add(const std::string& model, const model_usage& u) {
  model_usage& m = by_model[model];
  add_count(m.input_tokens, u.input_tokens);
  add_count(m.output_tokens, u.output_tokens);
  add_count(m.cache_read_input_tokens, u.cache_read_input_tokens);
  add_count(m.cache_creation_input_tokens, u.cache_creation_input_tokens);
  add_cost(m.cost_usd, u.cost_usd);
  add_count(total_input_tokens, u.input_tokens);
  add_count(total_output_tokens, u.output_tokens);
  add_count(total_cache_read_tokens, u.cache_read_input_tokens);
  add_count(total_cache_creation_tokens, u.cache_creation_input_tokens);
  add_cost(total_cost_usd, u.cost_usd);
}

void run_usage::mark_cost_unknown(const std::string& model) {
  auto it = std::lower_bound(cost_unknown_models.begin(), cost_unknown_models.end(), model);
  if (it == cost_unknown_models.end() || *it != model) cost_unknown_models.insert(it, model);
}

run_usage& run_usage::operator+=(const run_usage& turn) {
  // Totals are added as written (not re-derived from byModel) so a stored usage whose totals
  // include turns without per-model detail keeps them.
  for (const auto& [model, u] : turn.by_model) {
    model_usage& m = by_model[model];
    add_count(m.input_tokens, u.input_tokens);
    add_count(m.output_tokens, u.output_tokens);
    add_count(m.cache_read_input_tokens, u.cache_read_input_tokens);
    add_count(m.cache_creation_input_tokens, u.cache_creation_input_tokens);
    add_cost(m.cost_usd, u.cost_usd);
  }
  add_count(total_input_tokens, turn.total_input_tokens);
  add_count(total_output_tokens, turn.total_output_tokens);
  add_count(total_cache_read_tokens, turn.total_cache_read_tokens);
  add_count(total_cache_creation_tokens, turn.total_cache_creation_tokens);
  add_cost(total_cost_usd, turn.total_cost_usd);
  for (const auto& m : turn.cost_unknown_models) mark_cost_unknown(m);
  return *this;
}

run_usage operator+(run_usage total, const run_usage& turn) {
  total += turn;
  return total;
}

std::string run_usage_to_json(const run_usage& u) {
  ojson by_model = ojson::object();
  for (const auto& [model, m] : u.by_model) {
    by_model[model] = {{"inputTokens", m.input_tokens}, {"outputTokens", m.output_tokens},
                       {"cacheReadInputTokens", m.cache_read_input_tokens},
                       {"cacheCreationInputTokens", m.cache_creation_input_tokens}, {"costUsd", m.cost_usd}};
  }
  ojson j = {{"totalCostUsd", u.total_cost_usd},
             {"totalInputTokens", u.total_input_tokens},
             {"totalOutputTokens", u.total_output_tokens},
             {"totalCacheReadTokens", u.total_cache_read_tokens},
             {"totalCacheCreationTokens", u.total_cache_creation_tokens},
             {"byModel", std::move(by_model)}};
  if (!u.cost_unknown_models.empty()) {
    j["costUnknownModels"] = u.cost_unknown_models;
  }
  return compact_json(j);
}

result<run_usage> run_usage_from_json(std::string_view text) {
  json j = parse_json_within(text, stored_json_limits);
  if (j.is_discarded() || !j.is_object()) return fail(api_error::usage_invalid_json, "RunUsage must be a JSON object");
  run_usage u;
  if (auto ok = read_totals(j, u); !ok) return tl::unexpected(ok.error());
  if (const json* by_model = find_member(j, "byModel")) {
    if (!by_model->is_object()) return fail(api_error::usage_invalid_field, "byModel must be an object");
    for (const auto& [model, e] : by_model->items()) {
      auto m = read_model_usage(e, json_path("byModel").key(model));
      if (!m) return tl::unexpected(m.error());
      u.by_model[model] = *m;
    }
  }
  if (auto ok = read_unknown_models(j, u); !ok) return tl::unexpected(ok.error());
  return u;
}

result<std::unique_ptr<usage_accumulator>> make_usage_accumulator(std::string_view runtime_id,
                                                                  usage_context context) {
  if (runtime_id == "runtime-a") return std::make_unique<runtime_a_usage>(std::move(context));
  if (runtime_id == "runtime-b") return std::make_unique<runtime_b_usage>(std::move(context));
  if (runtime_id == "runtime-c") return std::make_unique<runtime_c_usage>(std::move(context));
  return fail(api_error::unknown_runtime,
              "unknown runtime '" + std::string(runtime_id) + "'; runtimes: runtime-a, runtime-b, runtime-c");
}

result<std::vector<run_usage>> turn_usages(std::string_view runtime_id, std::string_view transcript,
                                           usage_context context) {
  auto acc = make_usage_accumulator(runtime_id, std::move(context));
  if (!acc) return tl::unexpected(acc.error());
  std::vector<run_usage> turns;
  std::size_t start = 0;
  while (start < transcript.size()) {
    std::size_t nl = transcript.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? transcript.size() : nl;
    if (auto t = (*acc)->feed_line(transcript.substr(start, end - start))) turns.push_back(std::move(*t));
    start = end + 1;
  }
  if (auto t = (*acc)->finish()) turns.push_back(std::move(*t));
  return turns;
}

}  // namespace platform
