// The budget store on every backend (issue 37): limits and overrides kept as set, the ledger's
// reservations raised and never lowered, settled by the recorded spend, counted in the month
// the run started, a warning once per budget and month, and two replicas reserving at once
// counted once each.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "store_backends.hpp"

using namespace platform;

namespace budget_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string bs_uid(std::string_view what) { return store_test::uid("bs", what); }

constexpr std::int64_t dec2 = 1796234400000;  // 2026-12-02T18:00Z
constexpr std::int64_t jan3 = 1798934400000;  // 2027-01-03T00:00Z


TEST_CASE("budgets: limits kept as set, reservations raised then settled, counted in their month") {
  for (const auto& b : store_test::backends("platform-budgets-")) {
    CAPTURE(b.name);
    auto db = b.open();
    auto& budgets = db->budgets();
    const std::string ws = bs_uid("ws"), other = bs_uid("ws"), app = bs_uid("app"), app2 = bs_uid("app");

    CHECK(budgets.settings(ws).value() == budget_settings{});
    budget_settings s{{100.0, std::nullopt}, {10.0, std::nullopt}, {0.5, std::nullopt}, {std::nullopt, 5000}};
    REQUIRE(budgets.put_settings(ws, s, dec2));
    CHECK(budgets.settings(ws).value() == s);
    CHECK(budgets.settings(other).value() == budget_settings{});
    app_budget_overrides o{spend_limit{20.0, std::nullopt}, spend_limit{}, std::nullopt};
    REQUIRE(budgets.put_app_overrides(ws, app, o, dec2));
    CHECK(budgets.app_overrides(ws, app).value() == o);
    CHECK(budgets.app_overrides(ws, app2).value() == app_budget_overrides{});

    spend_entry_key turn{ws, app, "msg-r1-1", "r1", budget_run_kind::builder_turn};
    auto m = budgets.reserve(turn, {0.2, 100}, dec2);
    REQUIRE(m);
    CHECK(m->app.usd == doctest::Approx(0.2));
    CHECK(m->workspace.tokens == 100);
    // A lower estimate (a report out of order) never lowers the reservation.
    m = budgets.reserve(turn, {0.1, 50}, dec2 + 1);
    CHECK(m->app.usd == doctest::Approx(0.2));
    m = budgets.reserve(turn, {0.4, 300}, dec2 + 2);
    CHECK(m->app.usd == doctest::Approx(0.4));

    spend_entry_key agent{ws, app2, "arun_1", "arun_1", budget_run_kind::agent_run};
    m = budgets.reserve(agent, {1.0, 10}, dec2 + 3);
    CHECK(m->app.usd == doctest::Approx(1.0));
    CHECK(m->workspace.usd == doctest::Approx(1.4));

    // Settling replaces the estimate with what was recorded, lower or higher; later
    // reservations of a settled entry change nothing.
    m = budgets.settle(turn, {0.35, 280}, dec2 + 4);
    CHECK(m->app.usd == doctest::Approx(0.35));
    REQUIRE(budgets.reserve(turn, {9.0, 9}, dec2 + 5));
    auto month = budgets.month(ws, app, budget_month_start(dec2)).value();
    CHECK(month.app.usd == doctest::Approx(0.35));
    CHECK(month.workspace.usd == doctest::Approx(1.35));
    CHECK(month.workspace.tokens == 290);
    // A run that settles without reserving first (it reported no step).
    REQUIRE(budgets.settle({ws, app, "msg-r1-2", "r1", budget_run_kind::builder_turn}, {0.05, 5}, dec2 + 6));
    CHECK(budgets.month(ws, app, budget_month_start(dec2)).value().app.usd == doctest::Approx(0.4));

    // Next month starts from nothing; the entry of a run that started in December stays there.
    CHECK(budgets.month(ws, app, budget_month_start(jan3)).value().workspace == spend{});
    auto late = budgets.reserve(turn, {0.5, 0}, jan3);
    CHECK(late->app.usd == doctest::Approx(0.4));  // still December's
    auto jan = budgets.reserve({ws, app, "msg-r1-3", "r1", budget_run_kind::builder_turn}, {0.7, 0}, jan3);
    CHECK(jan->app.usd == doctest::Approx(0.7));
    CHECK(budgets.month(other, "", budget_month_start(dec2)).value().workspace == spend{});

    // Once per budget and month, whichever replica asks first.
    CHECK(budgets.first_warning(ws, "app:" + app, budget_month_start(dec2)).value());
    CHECK_FALSE(budgets.first_warning(ws, "app:" + app, budget_month_start(dec2)).value());
    CHECK(budgets.first_warning(ws, "workspace", budget_month_start(dec2)).value());
    CHECK(budgets.first_warning(ws, "app:" + app, budget_month_start(jan3)).value());

    CHECK_FALSE(budgets.reserve({ws, app, "", "r", budget_run_kind::builder_turn}, {1, 1}, dec2));
  }
}

TEST_CASE("budgets: two replicas reserving at once are counted once each, and every step sees the other's") {
  for (const auto& b : store_test::backends("platform-budgets-race-", false)) {
    CAPTURE(b.name);
    auto one = b.open();
    auto two = b.open();
    const std::string ws = bs_uid("ws"), app = bs_uid("app");
    constexpr int steps = 25;
    std::vector<double> seen_by_one, seen_by_two;
    auto run = [&](store& db, const std::string& entry, std::vector<double>& seen) {
      for (int i = 1; i <= steps; ++i) {
        auto m = db.budgets().reserve({ws, app, entry, entry, budget_run_kind::agent_run}, {0.01 * i, i}, dec2 + i);
        REQUIRE(m);
        seen.push_back(m->app.usd);
      }
    };
    std::thread a([&] { run(*one, "arun_a", seen_by_one); });
    std::thread c([&] { run(*two, "arun_b", seen_by_two); });
    a.join();
    c.join();
    auto m = one->budgets().month(ws, app, budget_month_start(dec2)).value();
    CHECK(m.app.usd == doctest::Approx(0.5));
    CHECK(m.app.tokens == 2 * steps);
    // The month a step reads always holds that step itself: never less than its own estimate.
    for (int i = 0; i < steps; ++i) {
      CHECK(seen_by_one[i] >= 0.01 * (i + 1) - 1e-9);
      CHECK(seen_by_two[i] >= 0.01 * (i + 1) - 1e-9);
    }
    CHECK(std::max(seen_by_one.back(), seen_by_two.back()) == doctest::Approx(0.5));
  }
}

}  // namespace budget_store_test
