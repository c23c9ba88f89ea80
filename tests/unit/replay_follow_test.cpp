// The rules every follower of a stream keeps (platform/replay_follow.hpp), driven by reads and
// a clock of the test's own: events, keep-alives when idle, the store's outages waited out and
// then given up, a run that stopped before its stream finished, and a stream that ended without
// its [DONE] continued on another.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/replay_follow.hpp"
#include "platform/ui_stream.hpp"

namespace replay_follow_test {

using namespace std::chrono_literals;
using platform::replay_follow;
using platform::replay_read;
using action = platform::replay_follow_step::action;

namespace {

const replay_follow::time_point t0{};

replay_read events(std::uint64_t from, std::vector<std::string> bytes, bool terminal = false) {
  replay_read r;
  for (auto& b : bytes) r.chunks.push_back({from++, std::move(b)});
  r.next_cursor = from;
  r.at_end = true;
  r.terminal = terminal;
  return r;
}

replay_read idle(std::uint64_t at) { return events(at, {}); }

platform::result<replay_read> outage() { return platform::fail(platform::api_error::cache_unavailable, "down"); }

replay_follow follower(std::uint64_t cursor = 0, bool knows_liveness = true) {
  return replay_follow(cursor, {1000ms, 5000ms, knows_liveness}, t0);
}

}  // namespace

TEST_CASE("events are written as they come and the cursor moves past them") {
  auto f = follower();
  auto s = f.read(events(0, {"data: {\"a\":1}\n\n", "data: {\"b\":2}\n\n"}), t0 + 10ms);
  CHECK(s.what == action::write);
  CHECK(s.chunks.size() == 2);
  CHECK(f.cursor() == 2);
  CHECK(f.until_heartbeat(t0 + 10ms) == 1000ms);
}

TEST_CASE("an idle stream waits until a heartbeat is due, then asks whether the run is live") {
  auto f = follower(3);
  CHECK(f.read(idle(3), t0 + 400ms).what == action::wait);
  CHECK(f.until_heartbeat(t0 + 400ms) == 600ms);
  CHECK(f.read(idle(3), t0 + 1000ms).what == action::ask_live);
  auto s = f.live(true, t0 + 1000ms);
  CHECK(s.what == action::heartbeat);
  CHECK(s.pause == 0ms);
  // The keep-alive counts as output: the next is a heartbeat later.
  CHECK(f.read(idle(3), t0 + 1500ms).what == action::wait);
}

TEST_CASE("a run that no longer streams: the events that came meanwhile, else the follower is told it stopped") {
  auto f = follower(1);
  CHECK(f.read(idle(1), t0 + 2s).what == action::ask_live);
  CHECK(f.live(false, t0 + 2s).what == action::read_last);
  auto got = f.last(events(1, {"data: {\"x\":1}\n\n", std::string(platform::sse_done_event)}, true), t0 + 2s);
  CHECK(got.what == action::end);
  CHECK(got.chunks.size() == 2);
  CHECK(got.tail.empty());
  CHECK_FALSE(got.without_done);

  auto g = follower(1);
  (void)g.read(idle(1), t0 + 2s);
  (void)g.live(false, t0 + 2s);
  auto stopped = g.last(idle(1), t0 + 2s);
  CHECK(stopped.what == action::end);
  CHECK(stopped.tail == platform::follow_stopped_tail);
  CHECK(stopped.tail.ends_with(platform::sse_done_event));

  auto h = follower(1);
  (void)h.read(idle(1), t0 + 2s);
  (void)h.live(false, t0 + 2s);
  auto more = h.last(events(1, {"data: {\"y\":1}\n\n"}), t0 + 2s);
  CHECK(more.what == action::write);
  CHECK(h.cursor() == 2);
}

TEST_CASE("an outage is waited out with paced keep-alives while the run is live, up to its limit") {
  auto f = follower(4);
  CHECK(f.read(outage(), t0 + 1s).what == action::ask_live);
  auto s = f.live(true, t0 + 1s);
  CHECK(s.what == action::heartbeat);
  CHECK(s.pause == 200ms);
  // A stream the store lost in a restart, and one briefly behind while it is put back, are the same.
  CHECK(f.read(platform::fail(platform::api_error::replay_not_found, "gone for now"), t0 + 3s).what == action::ask_live);
  (void)f.live(true, t0 + 3s);
  replay_read behind;
  behind.status = platform::replay_status::cursor_ahead;
  CHECK(f.read(behind, t0 + 5s).what == action::ask_live);
  (void)f.live(true, t0 + 5s);
  // Past the limit (5 s from its start): given up.
  auto over = f.read(outage(), t0 + 6001ms);
  CHECK(over.what == action::end);
  CHECK(over.tail == platform::follow_interrupted_tail);
}

TEST_CASE("an outage ends at once when the run is over, and a good read starts the outage clock again") {
  auto f = follower();
  (void)f.read(outage(), t0);
  CHECK(f.live(false, t0).tail == platform::follow_interrupted_tail);

  auto g = follower();
  (void)g.read(outage(), t0);
  (void)g.live(true, t0);
  CHECK(g.read(events(0, {"data: {}\n\n"}), t0 + 4s).what == action::write);
  CHECK(g.read(outage(), t0 + 8s).what == action::ask_live);  // a new outage: 5 s from now
}

TEST_CASE("a stream that expired or vanished ends without a word") {
  auto f = follower(2);
  replay_read expired;
  expired.status = platform::replay_status::cursor_expired;
  auto s = f.read(expired, t0);
  CHECK(s.what == action::end);
  CHECK(s.tail.empty());
  CHECK_FALSE(s.without_done);
  CHECK(follower().read(platform::fail(platform::api_error::internal, "bug"), t0).what == action::end);
}

TEST_CASE("a stream that ends without its [DONE] may go on on another stream at the same cursor") {
  auto f = follower();
  auto s = f.read(events(0, {"data: {\"a\":1}\n\n"}, true), t0);
  CHECK(s.what == action::end);
  CHECK(s.without_done);
  f.continue_on();
  CHECK(f.cursor() == 1);
  auto done = f.read(events(1, {std::string(platform::sse_done_event)}, true), t0);
  CHECK(done.what == action::end);
  CHECK_FALSE(done.without_done);
  // Its terminal marker read after the [DONE] already went out: nothing more is owed.
  auto g = follower();
  (void)g.read(events(0, {std::string(platform::sse_done_event)}), t0);
  CHECK_FALSE(g.read(events(1, {}, true), t0).without_done);
}

TEST_CASE("a follower that cannot ask about its run: keep-alives when idle, an outage ends it silently") {
  auto f = follower(0, false);
  CHECK(f.read(idle(0), t0 + 1s).what == action::heartbeat);
  auto s = f.read(outage(), t0 + 1s);
  CHECK(s.what == action::end);
  CHECK(s.tail.empty());
}

TEST_CASE("an answer nobody asked for changes nothing") {
  auto f = follower();
  CHECK(f.live(false, t0).what == action::wait);
}

}  // namespace replay_follow_test
