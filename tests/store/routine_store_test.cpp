// The routine store on every backend (issue 37): publishing makes an app's routines (ids,
// secrets and failure counts kept for agents that stay, gone ones removed); a tick is claimed
// once however many replicas try; a replica that claimed and died leaves its run findable;
// 5 failures in a row switch a routine off; a webhook signature is accepted once.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "store_backends.hpp"

using namespace platform;

namespace routine_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string rt_uid(std::string_view what) { return store_test::uid("rt", what); }

std::optional<std::int64_t> in_a_minute(const schedule_trigger& s, std::int64_t now, std::string& problem) {
  if (s.timezone == "Nowhere/Zone") {
    problem = "unknown zone";
    return std::nullopt;
  }
  return now + 60000;
}

routine_spec scheduled(std::string agent, std::string cron = "0 8 * * *") {
  return {std::move(agent), schedule_trigger{std::move(cron), "UTC", "Summarize."}, std::nullopt};
}

bool has_routine(const std::vector<routine_record>& list, const std::string& id) {
  return std::any_of(list.begin(), list.end(), [&](const routine_record& x) { return x.id == id; });
}


TEST_CASE("routines: publishing makes an app's routines; an agent that stays keeps its id, secret and due tick") {
  for (const auto& b : store_test::backends("platform-routines-")) {
    CAPTURE(b.name);
    auto db = b.open();
    auto& rs = db->routines();
    const std::string ws = rt_uid("ws"), app = rt_uid("app");
    auto made = rs.sync(ws, app, {scheduled("deals"), {"hook", std::nullopt, webhook_trigger{"New deal:"}}}, "admin1", in_a_minute, 1000).value();
    REQUIRE(made.size() == 2);
    CHECK(made[0].agent_id == "deals");
    CHECK(made[0].id.rfind("rtn_", 0) == 0);
    CHECK(made[0].next_fire_at == 61000);
    CHECK(made[0].approved_by == "admin1");
    CHECK(made[0].schedule->cron == "0 8 * * *");
    CHECK(made[1].webhook->prompt == "New deal:");
    CHECK_FALSE(made[1].next_fire_at);
    REQUIRE(rs.put_webhook_secret(made[1].id, "sealed-secret", 1100));
    // Published again later: the same schedule keeps its due tick; the webhook keeps its secret.
    auto again = rs.sync(ws, app, {scheduled("deals"), {"hook", std::nullopt, webhook_trigger{"Changed:"}}}, "admin2", in_a_minute, 5000).value();
    CHECK(again[0].id == made[0].id);
    CHECK(again[0].next_fire_at == 61000);
    CHECK(again[1].id == made[1].id);
    CHECK(again[1].webhook_secret_sealed == "sealed-secret");
    CHECK(again[1].webhook->prompt == "Changed:");
    CHECK(again[0].approved_by == "admin2");
    // A changed schedule gets a new first tick; a zone that cannot be read leaves it unable to fire, saying why.
    auto changed = rs.sync(ws, app, {scheduled("deals", "0 9 * * *")}, "admin2", in_a_minute, 7000).value();
    REQUIRE(changed.size() == 1);  // the webhook agent is gone
    CHECK(changed[0].next_fire_at == 67000);
    CHECK_FALSE(rs.get(made[1].id).value());
    auto broken = rs.sync(ws, app, {{"deals", schedule_trigger{"0 9 * * *", "Nowhere/Zone", "p"}, std::nullopt}}, "admin2", in_a_minute, 8000).value();
    CHECK(broken[0].problem == "unknown zone");
    CHECK_FALSE(broken[0].next_fire_at);
    CHECK(rs.get(made[0].id).value()->agent_id == "deals");
  }
}

TEST_CASE("routines: a due tick is claimed once; skips are recorded; 5 failures in a row switch it off") {
  for (const auto& b : store_test::backends("platform-routines-tick-")) {
    CAPTURE(b.name);
    auto db = b.open();
    auto& rs = db->routines();
    const std::string ws = rt_uid("ws"), app = rt_uid("app");
    auto r = rs.sync(ws, app, {scheduled("deals")}, "admin1", in_a_minute, 1000).value().front();
    CHECK(rs.due(60999, 10).value().empty());
    CHECK(has_routine(rs.due(61000, 1000).value(), r.id));
    CHECK(rs.claim_tick(r.id, 61000, 121000, "started", std::string("arun_t1"), 61005).value());
    CHECK_FALSE(rs.claim_tick(r.id, 61000, 121000, "started", std::string("arun_t1b"), 61006).value());  // the tick is taken
    auto after = rs.get(r.id).value().value();
    CHECK(after.next_fire_at == 121000);
    CHECK(after.last_run_id == "arun_t1");
    CHECK(after.last_fired_at == 61005);
    // A claim that died before starting its run: found by the recovery scan, once it is old enough.
    CHECK(has_routine(rs.started_before(61005, 0, 1000).value(), r.id));
    CHECK_FALSE(has_routine(rs.started_before(61004, 0, 1000).value(), r.id));
    // A skip moves the tick on without naming a run.
    CHECK(rs.claim_tick(r.id, 121000, 181000, "skipped", std::nullopt, 121001).value());
    auto skipped = rs.get(r.id).value().value();
    CHECK(skipped.last_outcome == "skipped");
    CHECK(skipped.last_run_id == "arun_t1");
    for (int i = 1; i <= 4; ++i) CHECK_FALSE(rs.record_run_end(r.id, true, 200000 + i).value());
    CHECK(rs.get(r.id).value()->consecutive_failures == 4);
    CHECK(rs.record_run_end(r.id, true, 200005).value());  // the fifth: switched off
    auto off = rs.get(r.id).value().value();
    CHECK_FALSE(off.enabled);
    CHECK_FALSE(has_routine(rs.due(1'000'000, 1000).value(), r.id));
    CHECK_FALSE(rs.claim_tick(r.id, 181000, 241000, "started", std::string("arun_x"), 181001).value());  // off: nothing fires
    REQUIRE(rs.set_enabled(r.id, true, 300000, 250000));
    auto on = rs.get(r.id).value().value();
    CHECK(on.enabled);
    CHECK(on.consecutive_failures == 0);
    CHECK(on.next_fire_at == 300000);
    CHECK_FALSE(rs.record_run_end(r.id, false, 250001).value());
    CHECK(rs.get(r.id).value()->consecutive_failures == 0);
  }
}

TEST_CASE("routines: two replicas claiming the same ticks claim each once") {
  for (const auto& b : store_test::backends("platform-routines-race-", false)) {
    CAPTURE(b.name);
    auto one = b.open();
    auto two = b.open();
    const std::string ws = rt_uid("ws"), app = rt_uid("app");
    auto r = one->routines().sync(ws, app, {scheduled("deals")}, "admin1", in_a_minute, 0).value().front();
    constexpr int ticks = 20;
    std::atomic<int> won_one{0}, won_two{0};
    auto replica = [&](store& db, std::atomic<int>& won) {
      for (int t = 1; t <= ticks; ++t) {
        std::int64_t tick = 60000LL * t;
        // Each replica sees the tick due and tries, as the scheduler does.
        if (db.routines().claim_tick(r.id, tick, tick + 60000, "started", "arun_" + std::to_string(t), tick).value()) ++won;
        else {
          // Lost: wait until the winner moved the tick on (it is the same store).
          while (db.routines().get(r.id).value()->next_fire_at.value_or(0) <= tick) std::this_thread::yield();
        }
      }
    };
    std::thread a([&] { replica(*one, won_one); });
    std::thread c([&] { replica(*two, won_two); });
    a.join();
    c.join();
    CHECK(won_one + won_two == ticks);
    CHECK(one->routines().get(r.id).value()->next_fire_at == 60000LL * (ticks + 1));
  }
}

TEST_CASE("routines: a webhook signature is accepted once within its window") {
  for (const auto& b : store_test::backends("platform-routines-sig-")) {
    CAPTURE(b.name);
    auto db = b.open();
    const std::string ws = rt_uid("ws"), app = rt_uid("app");
    auto r = db->routines().sync(ws, app, {{"hook", std::nullopt, webhook_trigger{""}}}, "admin1", in_a_minute, 0).value().front();
    CHECK(db->routines().first_use_of_signature(r.id, "abc", 1000, 10).value());
    CHECK_FALSE(db->routines().first_use_of_signature(r.id, "abc", 1000, 20).value());
    CHECK(db->routines().first_use_of_signature(r.id, "def", 1000, 30).value());
    // Past its expiry it is forgotten (and then too old to verify anyway).
    CHECK(db->routines().first_use_of_signature(r.id, "abc", 3000, 2000).value());
    CHECK_FALSE(db->routines().first_use_of_signature("rtn_nope", "abc", 1000, 10));
  }
}

}  // namespace routine_store_test
