// Benchmark: what a budget check costs a run's step (issue 37): reserving the step's estimate
// and reading the month (the workspace's and the app's spend, settled and in flight) in one
// transaction, against a ledger of `entries` runs this month spread over 20 apps, in a SQLite
// file; then the core's decision alone. Prints min/median/p99 µs per step. Bounded: `steps`
// reservations.
//
// Usage: bench_budget [entries=10000] [steps=2000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "adapters/sql_store.hpp"
#include "platform/budget.hpp"

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

void print(const char* what, std::vector<double> us) {
  std::sort(us.begin(), us.end());
  std::printf("%-34s min %8.1f  median %8.1f  p99 %8.1f us (%zu)\n", what, us.front(), us[us.size() / 2],
              us[us.size() * 99 / 100], us.size());
}

}  // namespace

int main(int argc, char** argv) {
  const int entries = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 2000;
  fs::path dir = fs::temp_directory_path() / ("platform-budget-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto db = platform::open_sqlite_store((dir / "platform.db").string()).value();
  auto& budgets = db->budgets();
  const std::int64_t now = 1796234400000;  // 2026-12-02T18:00Z
  for (int i = 0; i < entries; ++i) {
    platform::spend_entry_key k{"ws", "app" + std::to_string(i % 20), "msg-" + std::to_string(i), "r", platform::budget_run_kind::builder_turn};
    if (!budgets.settle(k, {0.01, 1000}, now - 86400000LL + i)) return std::fprintf(stderr, "seeding failed\n"), 1;
  }
  platform::run_budget limits{{1000.0, std::nullopt}, {100.0, std::nullopt}, {5.0, std::nullopt}};
  std::vector<double> store_us, rule_us;
  platform::spend_entry_key run{"ws", "app3", "msg-bench", "bench", platform::budget_run_kind::builder_turn};
  for (int i = 1; i <= steps; ++i) {
    platform::spend so_far{0.001 * i, 100LL * i};
    auto t0 = clock_type::now();
    auto m = budgets.reserve(run, so_far, now + i);
    auto t1 = clock_type::now();
    if (!m) return std::fprintf(stderr, "reserve failed: %s\n", m.error().message.c_str()), 1;
    auto stop = platform::stop_at_step(limits, so_far, *m);
    auto warn = platform::budgets_to_warn(limits, *m);
    auto t2 = clock_type::now();
    if (stop && i < steps) return std::fprintf(stderr, "stopped early\n"), 1;
    (void)warn;
    store_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    rule_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
  }
  std::printf("ledger: %d entries this month over 20 apps, SQLite file\n", entries);
  print("reserve + read the month (store)", store_us);
  print("stop and warning rules (core)", rule_us);
  db.reset();
  fs::remove_all(dir);
  return 0;
}
