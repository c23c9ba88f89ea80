// Budgets: limits, their rules, the month, and the wire form.
#include "platform/budget.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "bounded_json.hpp"

namespace platform {
namespace {

using json = nlohmann::json;

// Limits beyond these are typing mistakes, not budgets.
constexpr double max_usd = 1e9;
constexpr std::int64_t max_tokens = 1'000'000'000'000'000;

std::string money(double usd) {
  if (usd >= 0.01 || usd == 0) return fmt::format("${:.2f}", usd);
  std::string s = fmt::format("{:.6f}", usd);
  while (s.back() == '0') s.pop_back();
  return "$" + s;
}

std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// "$0.50 cap", "200,000-token cap": the run's own limit in a stop's sentence.
std::string cap_words(const spend_limit& l, const spend& s) {
  if (l.usd && s.usd >= *l.usd) return money(*l.usd) + " cap";
  if (l.tokens) return grouped(*l.tokens) + "-token cap";
  return money(l.usd.value_or(0)) + " cap";
}

std::string budget_words(const spend_limit& l, const spend& s) {
  if (l.usd && s.usd >= *l.usd) return money(*l.usd);
  if (l.tokens) return grouped(*l.tokens) + " tokens";
  return money(l.usd.value_or(0));
}

}  // namespace

spend& spend::operator+=(const spend& o) {
  usd = std::round((usd + o.usd) * 1e12) / 1e12;
  tokens = std::min(tokens + o.tokens, max_tokens);
  return *this;
}

spend operator+(spend a, const spend& b) { return a += b; }

spend spend_of(const run_usage& u) {
  spend s;
  s.usd = std::isfinite(u.total_cost_usd) && u.total_cost_usd > 0 ? u.total_cost_usd : 0;
  std::int64_t t = 0;
  for (std::int64_t n : {u.total_input_tokens, u.total_output_tokens, u.total_cache_read_tokens, u.total_cache_creation_tokens}) {
    t = std::min(t + std::max<std::int64_t>(n, 0), max_tokens);
  }
  s.tokens = t;
  return s;
}

bool spend_limit::reached_by(const spend& s) const {
  return (usd && s.usd >= *usd) || (tokens && s.tokens >= *tokens);
}

double spend_limit::used_fraction(const spend& s) const {
  double f = 0;
  if (usd && *usd > 0) f = std::max(f, s.usd / *usd);
  if (tokens && *tokens > 0) f = std::max(f, static_cast<double>(s.tokens) / static_cast<double>(*tokens));
  return f;
}

std::string describe_limit(const spend_limit& l) {
  if (l.unlimited()) return "no limit";
  if (l.usd && l.tokens) return money(*l.usd) + " or " + grouped(*l.tokens) + " tokens";
  if (l.usd) return money(*l.usd);
  return grouped(*l.tokens) + " tokens";
}

std::string_view to_string(budget_scope s) {
  switch (s) {
    case budget_scope::run: return "run";
    case budget_scope::app: return "app";
    case budget_scope::workspace: return "workspace";
  }
  return "run";
}

spend_limit app_monthly_of(const budget_settings& ws, const app_budget_overrides& app) {
  return app.app_monthly.value_or(ws.app_monthly);
}

run_budget run_budget_of(const budget_settings& ws, const app_budget_overrides& app, budget_run_kind kind) {
  run_budget b;
  b.workspace_monthly = ws.workspace_monthly;
  b.app_monthly = app_monthly_of(ws, app);
  b.run_cap = kind == budget_run_kind::builder_turn ? app.builder_turn.value_or(ws.builder_turn)
                                                    : app.agent_run.value_or(ws.agent_run);
  return b;
}

std::optional<budget_stop> refuse_start(const run_budget& b, const month_spend& m) {
  // The workspace first: raising the app's limit would not help.
  if (b.workspace_monthly.reached_by(m.workspace)) {
    return budget_stop{budget_scope::workspace, "The workspace's monthly budget of " + budget_words(b.workspace_monthly, m.workspace) +
                                                    " is spent. A workspace admin can raise it in the workspace's budget settings."};
  }
  if (b.app_monthly.reached_by(m.app)) {
    return budget_stop{budget_scope::app, "This app's monthly budget of " + budget_words(b.app_monthly, m.app) +
                                              " is spent. A workspace admin can raise it on the app's Runs tab."};
  }
  return std::nullopt;
}

std::optional<budget_stop> stop_at_step(const run_budget& b, const spend& run_so_far, const month_spend& m) {
  if (b.run_cap.reached_by(run_so_far)) {
    return budget_stop{budget_scope::run, "Stopped: this run reached its " + cap_words(b.run_cap, run_so_far) + "."};
  }
  if (b.workspace_monthly.reached_by(m.workspace)) {
    return budget_stop{budget_scope::workspace,
                       "Stopped: the workspace's monthly budget of " + budget_words(b.workspace_monthly, m.workspace) + " is spent."};
  }
  if (b.app_monthly.reached_by(m.app)) {
    return budget_stop{budget_scope::app, "Stopped: this app's monthly budget of " + budget_words(b.app_monthly, m.app) + " is spent."};
  }
  return std::nullopt;
}

std::vector<budget_scope> budgets_to_warn(const run_budget& b, const month_spend& m) {
  std::vector<budget_scope> out;
  if (!b.app_monthly.unlimited() && b.app_monthly.used_fraction(m.app) >= budget_warning_fraction) out.push_back(budget_scope::app);
  if (!b.workspace_monthly.unlimited() && b.workspace_monthly.used_fraction(m.workspace) >= budget_warning_fraction) {
    out.push_back(budget_scope::workspace);
  }
  return out;
}

std::int64_t budget_month_start(std::int64_t now_ms) {
  std::time_t secs = static_cast<std::time_t>(now_ms >= 0 ? now_ms / 1000 : (now_ms - 999) / 1000);
  std::tm t{};
  gmtime_r(&secs, &t);
  t.tm_mday = 1;
  t.tm_hour = t.tm_min = t.tm_sec = 0;
  return static_cast<std::int64_t>(timegm(&t)) * 1000;
}

std::int64_t budget_month_end(std::int64_t now_ms) {
  std::time_t secs = static_cast<std::time_t>(budget_month_start(now_ms) / 1000);
  std::tm t{};
  gmtime_r(&secs, &t);
  t.tm_mon += 1;  // timegm carries December into January
  return static_cast<std::int64_t>(timegm(&t)) * 1000;
}

// ---------------------------------------------------------------- wire form

namespace {

result<spend_limit> limit_from(const json& v, const std::string& field) {
  spend_limit l;
  if (v.is_null()) return l;
  if (!v.is_object()) return fail(api_error::invalid_body, field + " must be an object {\"usd\", \"tokens\"} or null");
  for (const auto& [k, x] : v.items()) {
    if (k == "usd") {
      if (x.is_null()) continue;
      if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() <= 0 || x.get<double>() > max_usd) {
        return fail(api_error::invalid_body, field + ".usd must be a number of dollars above 0 and at most 1e9, or null");
      }
      l.usd = x.get<double>();
    } else if (k == "tokens") {
      if (x.is_null()) continue;
      if (!x.is_number_integer() || x.get<std::int64_t>() <= 0 || x.get<std::int64_t>() > max_tokens) {
        return fail(api_error::invalid_body, field + ".tokens must be a whole number of tokens above 0, or null");
      }
      l.tokens = x.get<std::int64_t>();
    } else {
      return fail(api_error::invalid_body, field + " has an unknown field " + k + " (usd and tokens are known)");
    }
  }
  return l;
}

json limit_json(const spend_limit& l) {
  return {{"usd", l.usd ? json(*l.usd) : json(nullptr)}, {"tokens", l.tokens ? json(*l.tokens) : json(nullptr)}};
}

result<json> object_of(std::string_view text, std::initializer_list<std::string_view> known) {
  json j = parse_json_within(text, stored_json_limits);
  if (j.is_discarded()) return fail(api_error::invalid_body, "the budget is not JSON");
  if (!j.is_object()) return fail(api_error::invalid_body, "the budget must be a JSON object");
  for (const auto& [k, _] : j.items()) {
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string names;
      for (auto n : known) names += (names.empty() ? "" : ", ") + std::string(n);
      return fail(api_error::invalid_body, "unknown budget field " + k + " (known: " + names + ")");
    }
  }
  return j;
}

}  // namespace

result<budget_settings> budget_settings_from_json(std::string_view text) {
  auto j = object_of(text, {"workspaceMonthly", "appMonthly", "builderTurn", "agentRun"});
  if (!j) return tl::unexpected(j.error());
  budget_settings s;
  for (auto [field, to] : {std::pair{"workspaceMonthly", &s.workspace_monthly}, std::pair{"appMonthly", &s.app_monthly},
                           std::pair{"builderTurn", &s.builder_turn}, std::pair{"agentRun", &s.agent_run}}) {
    auto it = j->find(field);
    if (it == j->end()) continue;
    auto l = limit_from(*it, field);
    if (!l) return tl::unexpected(l.error());
    *to = *l;
  }
  return s;
}

std::string budget_settings_to_json(const budget_settings& s) {
  return compact_json(json{{"workspaceMonthly", limit_json(s.workspace_monthly)}, {"appMonthly", limit_json(s.app_monthly)},
                           {"builderTurn", limit_json(s.builder_turn)}, {"agentRun", limit_json(s.agent_run)}});
}

result<app_budget_overrides> app_budget_overrides_from_json(std::string_view text) {
  auto j = object_of(text, {"appMonthly", "builderTurn", "agentRun"});
  if (!j) return tl::unexpected(j.error());
  app_budget_overrides o;
  for (auto [field, to] : {std::pair{"appMonthly", &o.app_monthly}, std::pair{"builderTurn", &o.builder_turn},
                           std::pair{"agentRun", &o.agent_run}}) {
    auto it = j->find(field);
    if (it == j->end() || it->is_null()) continue;
    auto l = limit_from(*it, field);
    if (!l) return tl::unexpected(l.error());
    *to = *l;
  }
  return o;
}

std::string app_budget_overrides_to_json(const app_budget_overrides& o) {
  auto of = [](const std::optional<spend_limit>& l) { return l ? limit_json(*l) : json(nullptr); };
  return compact_json(json{{"appMonthly", of(o.app_monthly)}, {"builderTurn", of(o.builder_turn)}, {"agentRun", of(o.agent_run)}});
}

std::string spend_limit_to_json(const spend_limit& l) { return compact_json(limit_json(l)); }

std::string spend_to_json(const spend& s) { return compact_json(json{{"usd", s.usd}, {"tokens", s.tokens}}); }

}  // namespace platform
