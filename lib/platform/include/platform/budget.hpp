#pragma once
// Budgets (issue 37; docs/budgets.md): spend limits an admin sets in USD, or in tokens for
// runtimes that give no price. A workspace has a monthly limit; an app a monthly limit that
// its builder turns and its agent runs share; a single run a cap (per builder turn, per app
// agent run), as workspace defaults with per-app overrides.
//
// The rules, sans-I/O: a run does not start past a spent app or workspace budget, and a
// running one stops as soon as its estimate so far reaches its cap or the month's spend
// (settled runs plus every run in flight) reaches the app's or the workspace's limit. The
// store keeps each run's estimate as a reservation, so every replica sees runs in flight;
// months are UTC calendar months of the time the run started.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/usage.hpp"

namespace platform {

// What a run spent, in the two units a limit can be set in. Tokens count every kind the
// runtime reports (input, output, cache read, cache creation).
struct spend {
  double usd = 0;
  std::int64_t tokens = 0;
  spend& operator+=(const spend& o);
  bool operator==(const spend&) const = default;
};
spend operator+(spend a, const spend& b);
spend spend_of(const run_usage& u);

// A limit in either unit or both; reached when either is. Neither set: no limit.
struct spend_limit {
  std::optional<double> usd;
  std::optional<std::int64_t> tokens;
  [[nodiscard]] bool unlimited() const { return !usd && !tokens; }
  [[nodiscard]] bool reached_by(const spend& s) const;
  // The larger share of the limit `s` has used (0 when unlimited).
  [[nodiscard]] double used_fraction(const spend& s) const;
  bool operator==(const spend_limit&) const = default;
};

// "$0.50", "200,000 tokens", "$0.50 or 200,000 tokens"; "no limit" when unlimited.
std::string describe_limit(const spend_limit& l);

// A workspace's limits: its own monthly one, and the defaults of each app.
struct budget_settings {
  spend_limit workspace_monthly;
  spend_limit app_monthly;
  spend_limit builder_turn;
  spend_limit agent_run;
  bool operator==(const budget_settings&) const = default;
};

// An app's overrides: a set field replaces the workspace's default (an empty limit in it means
// no limit for this app).
struct app_budget_overrides {
  std::optional<spend_limit> app_monthly;
  std::optional<spend_limit> builder_turn;
  std::optional<spend_limit> agent_run;
  bool operator==(const app_budget_overrides&) const = default;
};

enum class budget_run_kind : unsigned char { builder_turn, agent_run };

// The three limits that bound one run of an app.
struct run_budget {
  spend_limit workspace_monthly;
  spend_limit app_monthly;
  spend_limit run_cap;
};
run_budget run_budget_of(const budget_settings& ws, const app_budget_overrides& app, budget_run_kind kind);
// The app's monthly limit in effect.
spend_limit app_monthly_of(const budget_settings& ws, const app_budget_overrides& app);

// This month's spend: settled runs and the estimates of runs in flight.
struct month_spend {
  spend workspace;
  spend app;
};

enum class budget_scope : unsigned char { run, app, workspace };
std::string_view to_string(budget_scope s);

// A run's stopReason when a budget stopped it (builder runs and app agent runs alike).
inline constexpr std::string_view budget_stop_code = "budget";

struct budget_stop {
  budget_scope scope = budget_scope::run;
  std::string message;  // what the run and the stream say, as it is shown
};

// Before a run starts: a refusal (409 budget_exhausted) whose sentence says who can raise it.
std::optional<budget_stop> refuse_start(const run_budget& b, const month_spend& m);
// After a step: `run_so_far` is the run's estimate; `m` includes it.
std::optional<budget_stop> stop_at_step(const run_budget& b, const spend& run_so_far, const month_spend& m);

// The monthly budgets at or past the warning share (80 %): each warns once a month.
inline constexpr double budget_warning_fraction = 0.8;
std::vector<budget_scope> budgets_to_warn(const run_budget& b, const month_spend& m);

// The UTC calendar month holding `now_ms`: its first millisecond, and the next month's.
std::int64_t budget_month_start(std::int64_t now_ms);
std::int64_t budget_month_end(std::int64_t now_ms);

// Wire form (docs/budgets.md): {"workspaceMonthly","appMonthly","builderTurn","agentRun"}, each
// {"usd": number|null, "tokens": integer|null} or null. In settings a missing or null limit is
// none; in an app's overrides it is the workspace's default. Errors (`invalid_body`) name the
// field; unknown fields are refused.
result<budget_settings> budget_settings_from_json(std::string_view json);
std::string budget_settings_to_json(const budget_settings& s);
result<app_budget_overrides> app_budget_overrides_from_json(std::string_view json);
std::string app_budget_overrides_to_json(const app_budget_overrides& o);
std::string spend_limit_to_json(const spend_limit& l);
std::string spend_to_json(const spend& s);

}  // namespace platform
