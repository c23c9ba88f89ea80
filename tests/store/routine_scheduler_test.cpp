// The routines' scheduler (servers/web/routine_scheduler.cpp) on a real store, with an
// injected clock: each tick of a schedule starts one run however many replicas tick at once;
// a replica that claimed a tick and died leaves a run that another replica starts, once; a tick
// due while the last run goes is skipped and recorded; a switched-off routine never fires.
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "routine_scheduler.hpp"
#include "store_backends.hpp"

using namespace platform;

namespace {

std::string sc_uid(std::string_view what) { return store_test::uid("sc", what); }

// Every minute, on the minute.
std::optional<std::int64_t> next_minute(const schedule_trigger&, std::int64_t now, std::string&) { return (now / 60000 + 1) * 60000; }

// What the web's start does, minus the worker: creates the run once (its id may exist) and
// starts it once (claim_start), counting the starts that happened.
struct starter {
  store& db;
  std::mutex mu;
  std::map<std::string, int> started;  // run id -> starts
  result<void> operator()(const routine_record& r, const std::string& run_id) {
    run_key key{r.workspace_id, r.app_id, run_id};
    agent_run_record run;
    run.workspace_id = r.workspace_id;
    run.app_id = r.app_id;
    run.run_id = run_id;
    run.agent_id = r.agent_id;
    run.triggered_by_user_id = r.approved_by;
    run.prompt = "Summarize.";
    run.routine_id = r.id;
    run.trigger = "schedule";
    run.created_at = run.updated_at = 1;
    if (auto made = db.app_agent_runs().create(run); !made && made.error().code != platform::api_error::store_conflict) return tl::unexpected(made.error());
    auto claimed = db.app_agent_runs().claim_start(key, 2);
    if (!claimed) return tl::unexpected(claimed.error());
    if (*claimed) {
      std::lock_guard lock(mu);
      ++started[run_id];
    }
    return {};
  }
};

struct fixture {
  std::unique_ptr<store> db;
  std::string ws = sc_uid("ws"), app = sc_uid("app");
  routine_record routine;
  explicit fixture(std::unique_ptr<store> s, std::int64_t now) : db(std::move(s)) {
    REQUIRE(db->put_workspace(ws, "W", 1));
    REQUIRE(db->create_app({app, ws, "App", "u1", "", "", "{}", 1}));
    routine = db->routines().sync(ws, app, {{"deals", schedule_trigger{"* * * * *", "UTC", "Summarize."}, std::nullopt}}, "admin1",
                                  next_minute, now).value().front();
  }
  // The runs of this fixture's app among `started` (a shared PostgreSQL holds other tests' routines too).
  std::vector<std::string> mine(const std::vector<std::string>& started) {
    std::vector<std::string> out;
    for (const auto& id : started) {
      if (auto s = db->app_agent_runs().summary({ws, app, id}); s && *s) out.push_back(id);
    }
    return out;
  }
  void finish(const std::string& run_id, bool failed) {
    agent_run_completion done;
    done.status = failed ? agent_run_status::failed : agent_run_status::completed;
    done.now = 3;
    REQUIRE(db->app_agent_runs().finish({ws, app, run_id}, done));
  }
};

}  // namespace

TEST_CASE("routine scheduler: each tick starts one run on two replicas ticking at once") {
  for (const auto& b : store_test::backends("platform-scheduler-", false)) {
    CAPTURE(b.name);
    std::atomic<std::int64_t> now{1'800'000'000'000};
    fixture f(b.open(), now);
    auto other = b.open();
    starter start_a{*f.db}, start_b{*other};
    web::routine_scheduler a(*f.db, [&] { return now.load(); }, next_minute, std::ref(start_a));
    web::routine_scheduler c(*other, [&] { return now.load(); }, next_minute, std::ref(start_b));
    std::set<std::string> runs;
    for (int minute = 1; minute <= 5; ++minute) {
      now = 1'800'000'000'000 + minute * 60000 + 5;  // just past the tick
      std::vector<std::string> seen_a, seen_b;
      std::thread ta([&] { seen_a = a.tick_once(); });
      std::thread tb([&] { seen_b = c.tick_once(); });
      ta.join();
      tb.join();
      seen_a = f.mine(seen_a);
      seen_b = f.mine(seen_b);
      CHECK(seen_a.size() + seen_b.size() == 1);
      for (const auto& id : seen_a) runs.insert(id);
      for (const auto& id : seen_b) runs.insert(id);
      // The tick's run ends before the next tick.
      for (const auto& id : seen_a) f.finish(id, false);
      for (const auto& id : seen_b) f.finish(id, false);
      // Ticking again within the same minute starts nothing.
      CHECK(f.mine(a.tick_once()).empty());
      CHECK(f.mine(c.tick_once()).empty());
    }
    CHECK(runs.size() == 5);
    for (const auto& id : runs) CHECK(start_a.started[id] + start_b.started[id] == 1);
    CHECK(f.db->routines().get(f.routine.id).value()->next_fire_at == 1'800'000'000'000 + 6 * 60000);
  }
}

TEST_CASE("routine scheduler: a replica that died after claiming a tick leaves its run to another, started once") {
  for (const auto& b : store_test::backends("platform-scheduler-dead-", false)) {
    CAPTURE(b.name);
    std::atomic<std::int64_t> now{1'800'000'000'000};
    fixture f(b.open(), now);
    const std::int64_t tick = *f.routine.next_fire_at;
    now = tick + 1;
    // The dead replica: its claim landed, then it was gone (no run created, nothing started).
    const std::string run_id = web::tick_run_id(f.routine.id, tick);
    REQUIRE(f.db->routines().claim_tick(f.routine.id, tick, tick + 60000, "started", run_id, now).value());
    starter start{*f.db};
    web::routine_scheduler survivor(*f.db, [&] { return now.load(); }, next_minute, std::ref(start));
    // Within the grace period it leaves the claim alone (its owner may still be starting it).
    CHECK(f.mine(survivor.tick_once()).empty());
    now = tick + 31000;
    auto recovered = f.mine(survivor.tick_once());
    REQUIRE(recovered.size() == 1);
    CHECK(recovered.front() == run_id);
    CHECK(start.started[run_id] == 1);
    auto run = f.db->app_agent_runs().summary({f.ws, f.app, run_id}).value();
    REQUIRE(run);
    CHECK(run->routine_id == f.routine.id);
    CHECK(run->triggered_by_user_id == "admin1");
    // Started: later passes leave it.
    now = tick + 45000;
    CHECK(f.mine(survivor.tick_once()).empty());
    CHECK(start.started[run_id] == 1);
  }
}

TEST_CASE("routine scheduler: a tick while the last run goes is skipped and recorded; a switched-off routine never fires") {
  for (const auto& b : store_test::backends("platform-scheduler-skip-")) {
    CAPTURE(b.name);
    std::atomic<std::int64_t> now{1'800'000'000'000};
    fixture f(b.open(), now);
    starter start{*f.db};
    web::routine_scheduler s(*f.db, [&] { return now.load(); }, next_minute, std::ref(start));
    const std::int64_t first = *f.routine.next_fire_at;
    now = first + 1;
    auto fired = f.mine(s.tick_once());
    REQUIRE(fired.size() == 1);
    now = first + 60000 + 1;  // the next tick: the first run still goes
    CHECK(f.mine(s.tick_once()).empty());
    auto r = f.db->routines().get(f.routine.id).value().value();
    CHECK(r.last_outcome == "skipped");
    CHECK(r.next_fire_at == first + 120000);
    CHECK(r.last_run_id == fired.front());
    f.finish(fired.front(), true);
    now = first + 120000 + 1;
    auto again = f.mine(s.tick_once());
    REQUIRE(again.size() == 1);
    CHECK(again.front() != fired.front());
    f.finish(again.front(), true);
    REQUIRE(f.db->routines().set_enabled(f.routine.id, false, std::nullopt, now));
    now = first + 180000 + 1;
    CHECK(f.mine(s.tick_once()).empty());
    CHECK(f.mine({fired.front(), again.front()}).size() == 2);
  }
}
