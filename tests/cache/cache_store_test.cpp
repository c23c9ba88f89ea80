// One test suite for both cache stores: the in-process store always, the Redis store when
// PLATFORM_TEST_REDIS_URL names a server (and a failure when PLATFORM_TEST_REQUIRE_SERVICES=1
// but it is unset). Stream ids and channels carry a per-process random prefix, so runs
// against a shared server never collide. Nothing sleeps for timing: tests wait on conditions
// with generous timeouts.
#include <doctest/doctest.h>
#include <hiredis/hiredis.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adapters/cache_store.hpp"
#include "platform/api_error.hpp"
#include "platform/replay_head.hpp"

using namespace platform;
using namespace std::chrono_literals;

namespace {

constexpr auto patience = 20s;  // how long a test waits for something that should happen

std::string uid(std::string_view what) {
  static const std::string prefix = [] {
    std::random_device rd;
    return "t" + std::to_string(rd()) + "-";
  }();
  static std::atomic<int> n{0};
  return prefix + std::string(what) + std::to_string(++n);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string redis_url() { return env("PLATFORM_TEST_REDIS_URL"); }

std::unique_ptr<cache_store> open_redis(replay_limits limits = {}, std::string url = redis_url()) {
  redis_cache_options o;
  o.url = std::move(url);
  o.limits = limits;
  auto store = make_redis_cache_store(o);
  REQUIRE_MESSAGE(store, (store ? std::string() : store.error().message));
  return std::move(*store);
}

struct backend {
  std::string name;
  std::function<std::unique_ptr<cache_store>(replay_limits)> open;
};

std::vector<backend> backends() {
  std::vector<backend> out;
  out.push_back({"memory", [](replay_limits l) {
                   memory_cache_options o;
                   o.replay.limits = l;
                   return make_memory_cache_store(o);
                 }});
  if (!redis_url().empty()) out.push_back({"redis", [](replay_limits l) { return open_redis(l); }});
  return out;
}

// Runs `body` once per backend (plain loops, not SUBCASEs: doctest would run a SUBCASE met
// twice in one pass only once).
void for_each_backend(const std::function<void(backend&)>& body) {
  for (auto& b : backends()) {
    INFO("backend: " << b.name);
    body(b);
  }
}

std::string ev(int i) { return "data: {\"n\":" + std::to_string(i) + "}\n\n"; }

std::vector<std::string> bytes_of(const replay_read& r) {
  std::vector<std::string> out;
  for (const auto& c : r.chunks) out.push_back(c.bytes);
  return out;
}

// Collects messages from handler threads.
struct inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> got;

  void push(std::string_view m) {
    std::lock_guard lock(mu);
    got.emplace_back(m);
    cv.notify_all();
  }
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, patience, [&] { return got.size() >= n; });
  }
  std::vector<std::string> snapshot() {
    std::lock_guard lock(mu);
    return got;
  }
  message_handler handler() {
    return [this](std::string_view, std::string_view m) { push(m); };
  }
};

// A command on a connection of the test's own, outside the store under test.
void redis_admin(const std::vector<std::string>& args) {
  auto url = redis_url();
  auto port = std::stoi(url.substr(url.rfind(':') + 1));
  redisContext* c = redisConnect("127.0.0.1", port);
  REQUIRE(c != nullptr);
  REQUIRE(c->err == 0);
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()));
  REQUIRE(r != nullptr);
  CHECK(r->type != REDIS_REPLY_ERROR);
  freeReplyObject(r);
  redisFree(c);
}

struct timed_read {
  result<replay_read> read;
  std::chrono::steady_clock::duration took;
};

// wait_read on another thread; `started` is set just before it is called.
std::future<timed_read> wait_read_async(cache_store& c, std::string id, std::uint64_t cursor,
                                        std::chrono::milliseconds timeout, std::promise<void>& started) {
  return std::async(std::launch::async, [&c, id, cursor, timeout, &started] {
    started.set_value();
    auto t0 = std::chrono::steady_clock::now();
    auto r = c.wait_read(id, cursor, 100, timeout);
    return timed_read{std::move(r), std::chrono::steady_clock::now() - t0};
  });
}

// A follower on another thread: every event of stream `id` from the start, `max_chunks` a read,
// until the end; a read that times out empty (the producer is gone) ends the list with a marker.
std::future<std::vector<std::string>> follow_to_end(cache_store& c, std::string id, std::size_t max_chunks) {
  return std::async(std::launch::async, [&c, id, max_chunks] {
    std::vector<std::string> seen;
    std::uint64_t cursor = 0;
    for (;;) {
      auto r = c.wait_read(id, cursor, max_chunks, patience);
      if (!r || r->status != replay_status::ok) return seen;
      for (auto& x : r->chunks) seen.push_back(x.bytes);
      cursor = r->next_cursor;
      if (r->terminal) return seen;
      if (r->chunks.empty()) {
        seen.push_back("timeout at " + std::to_string(cursor));
        return seen;
      }
    }
  });
}

}  // namespace

TEST_CASE("the Redis cases run when the test services are required") {
  if (env("PLATFORM_TEST_REQUIRE_SERVICES") == "1") {
    CHECK_MESSAGE(!redis_url().empty(), "PLATFORM_TEST_REQUIRE_SERVICES=1 but PLATFORM_TEST_REDIS_URL is not set");
  }
}

// ---- replay buffers ---------------------------------------------------------------------------

TEST_CASE("sequence numbers start at 0 and have no gaps; reads from the start, the middle and the end") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    for (int i = 0; i < 5; ++i) CHECK(c->append(id, ev(i)).value() == static_cast<std::uint64_t>(i));

    auto all = c->read_from(id, 0).value();
    CHECK(all.status == replay_status::ok);
    CHECK(bytes_of(all) == std::vector<std::string>{ev(0), ev(1), ev(2), ev(3), ev(4)});
    for (std::size_t i = 0; i < all.chunks.size(); ++i) CHECK(all.chunks[i].seq == i);
    CHECK(all.next_cursor == 5);
    CHECK(all.at_end);
    CHECK_FALSE(all.terminal);

    auto mid = c->read_from(id, 2, 2).value();
    CHECK(bytes_of(mid) == std::vector<std::string>{ev(2), ev(3)});
    CHECK(mid.chunks[0].seq == 2);
    CHECK(mid.next_cursor == 4);
    CHECK_FALSE(mid.at_end);

    auto end = c->read_from(id, 5).value();
    CHECK(end.status == replay_status::ok);
    CHECK(end.chunks.empty());
    CHECK(end.next_cursor == 5);
    CHECK(end.at_end);
    CHECK_FALSE(end.terminal);

    auto info = c->info(id).value();
    CHECK(info.first_seq == 0);
    CHECK(info.next_seq == 5);
    CHECK(info.starts_at_beginning);
    CHECK(info.retained_chunks == 5);
    CHECK_FALSE(info.complete);
  });
}

TEST_CASE("a cursor beyond the end is cursor_ahead; unknown streams are replay_not_found") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    REQUIRE(c->append(id, ev(0)));
    auto ahead = c->read_from(id, 2).value();
    CHECK(ahead.status == replay_status::cursor_ahead);
    CHECK(ahead.chunks.empty());
    CHECK(ahead.next_cursor == 2);

    auto never = uid("never");
    CHECK(c->read_from(never, 0).error().code == platform::api_error::replay_not_found);
    CHECK(c->append(never, ev(0)).error().code == platform::api_error::replay_not_found);
    CHECK(c->complete(never).error().code == platform::api_error::replay_not_found);
    CHECK(c->info(never).error().code == platform::api_error::replay_not_found);
    CHECK(c->wait_read(never, 0, 10, 10s).error().code == platform::api_error::replay_not_found);
  });
}

TEST_CASE("limits drop the oldest events: old cursors expire and the replay no longer starts at the beginning") {
  for_each_backend([](backend& b) {
    auto c = b.open({1u << 20, 3});
    auto id = uid("s");
    REQUIRE(c->create(id));
    for (int i = 0; i < 5; ++i) CHECK(c->append(id, ev(i)).value() == static_cast<std::uint64_t>(i));
    auto info = c->info(id).value();
    CHECK(info.first_seq == 2);
    CHECK(info.next_seq == 5);
    CHECK(info.retained_chunks == 3);
    CHECK_FALSE(info.starts_at_beginning);
    auto expired = c->read_from(id, 1).value();
    CHECK(expired.status == replay_status::cursor_expired);
    CHECK(expired.chunks.empty());
    auto tail = c->read_from(id, 2).value();
    CHECK(bytes_of(tail) == std::vector<std::string>{ev(2), ev(3), ev(4)});
    CHECK(tail.chunks.front().seq == 2);

    // By bytes: each event is 15 bytes, 30 allowed; one event bigger than the limit stays alone.
    auto small = b.open({30, 100});
    auto id2 = uid("s");
    REQUIRE(small->create(id2));
    for (int i = 0; i < 4; ++i) REQUIRE(small->append(id2, ev(i)));
    auto i2 = small->info(id2).value();
    CHECK(i2.first_seq == 2);
    CHECK(i2.retained_bytes == 2 * ev(0).size());
    std::string big(100, 'x');
    CHECK(small->append(id2, big).value() == 4);
    i2 = small->info(id2).value();
    CHECK(i2.first_seq == 4);
    CHECK(i2.retained_chunks == 1);
    CHECK(bytes_of(small->read_from(id2, 4).value()) == std::vector<std::string>{big});
  });
}

TEST_CASE("append_batch: each stream's events in order under the next numbers; one stream's error leaves the others") {
  for_each_backend([](backend& b) {
    auto c = b.open({1u << 20, 4});
    auto a = uid("s"), z = uid("s"), done = uid("s"), missing = uid("s");
    REQUIRE(c->create(a));
    REQUIRE(c->create(z));
    REQUIRE(c->create(done));
    REQUIRE(c->append(a, ev(0)));
    REQUIRE(c->complete(done));
    std::vector<std::string> owned{ev(1), ev(2), ev(3), ev(4), ev(5), ev(10)};
    std::vector<std::string_view> for_a(owned.begin(), owned.begin() + 5), for_z{owned[5]}, for_done{owned[0]};
    std::vector<platform::stream_append> batch{{a, for_a}, {done, for_done}, {z, for_z}, {missing, for_z}};
    auto r = c->append_batch(batch);
    REQUIRE(r.size() == 4);
    CHECK(r[0].value() == 1);
    REQUIRE_FALSE(r[1]);
    CHECK(r[1].error().code == platform::api_error::replay_complete);
    CHECK(r[2].value() == 0);
    REQUIRE_FALSE(r[3]);
    CHECK(r[3].error().code == platform::api_error::replay_not_found);
    // Six events in all, four kept: the limit drops the oldest within the batch too.
    auto info = c->info(a).value();
    CHECK(info.first_seq == 2);
    CHECK(info.next_seq == 6);
    CHECK(bytes_of(c->read_from(a, 2).value()) == std::vector<std::string>{ev(2), ev(3), ev(4), ev(5)});
    CHECK(bytes_of(c->read_from(z, 0).value()) == std::vector<std::string>{ev(10)});
    CHECK(c->info(done).value().next_seq == 0);
    CHECK(c->append(a, ev(6)).value() == 6);  // single appends go on after a batch
  });
}

TEST_CASE("complete sets the terminal marker; appends after it are refused") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    REQUIRE(c->append(id, ev(0)));
    REQUIRE(c->append(id, ev(1)));
    REQUIRE(c->complete(id));
    REQUIRE(c->complete(id));  // idempotent

    auto all = c->read_from(id, 0).value();
    CHECK(all.chunks.size() == 2);
    CHECK(all.terminal);
    auto part = c->read_from(id, 0, 1).value();
    CHECK_FALSE(part.at_end);
    CHECK_FALSE(part.terminal);
    auto end = c->read_from(id, 2).value();
    CHECK(end.chunks.empty());
    CHECK(end.terminal);

    auto late = c->append(id, ev(2));
    REQUIRE_FALSE(late);
    CHECK(late.error().code == platform::api_error::replay_complete);
    auto info = c->info(id).value();
    CHECK(info.complete);
    CHECK(info.next_seq == 2);
  });
}

TEST_CASE("create refuses a taken id; remove forgets a stream, and removing a missing one is fine") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    REQUIRE(c->append(id, ev(0)));
    auto dup = c->create(id);
    REQUIRE_FALSE(dup);
    CHECK(dup.error().code == platform::api_error::replay_exists);
    CHECK(c->read_from(id, 0).value().chunks.size() == 1);  // the refused create changed nothing

    REQUIRE(c->remove(id));
    CHECK(c->read_from(id, 0).error().code == platform::api_error::replay_not_found);
    CHECK(c->remove(id));
    // The id is free again and starts over at 0.
    REQUIRE(c->create(id));
    CHECK(c->append(id, ev(9)).value() == 0);
  });
}

TEST_CASE("a stream's replay head: put replaces, get returns the last, remove forgets it; too large is refused") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    CHECK(c->put_head(id, {1, "data: x\n\n"}).error().code == platform::api_error::replay_not_found);
    CHECK(c->get_head(id).error().code == platform::api_error::replay_not_found);
    REQUIRE(c->create(id));
    CHECK_FALSE(c->get_head(id).value());
    REQUIRE(c->put_head(id, {3, "data: {\"type\":\"start\"}\n\n"}));
    REQUIRE(c->put_head(id, {7, "data: {\"type\":\"start\",\"messageId\":\"m\"}\n\n"}));
    auto head = c->get_head(id).value();
    REQUIRE(head);
    CHECK(head->upto == 7);
    CHECK(head->events == "data: {\"type\":\"start\",\"messageId\":\"m\"}\n\n");
    REQUIRE(c->complete(id));
    CHECK(c->get_head(id).value());  // readable as long as the stream
    auto big = c->put_head(id, {8, std::string(replay_limits{}.max_head_bytes + 1, 'x')});
    REQUIRE_FALSE(big);
    CHECK(big.error().code == platform::api_error::replay_head_too_large);
    CHECK_FALSE(c->get_head(id).value());  // the old one is gone too: it would fall behind
    REQUIRE(c->put_head(id, {9, "data: y\n\n"}));
    REQUIRE(c->remove(id));
    CHECK(c->get_head(id).error().code == platform::api_error::replay_not_found);
  });
}

TEST_CASE("restore puts a lost stream back under its sequence numbers; followers go on at their cursors") {
  for_each_backend([](backend& b) {
    auto c = b.open({1u << 20, 4});
    auto id = uid("s");
    REQUIRE(c->create(id));
    replay_buffer copy({1u << 20, 4});
    for (int i = 0; i < 7; ++i) {
      REQUIRE(c->append(id, ev(i)));
      REQUIRE(copy.append(ev(i)));
    }
    REQUIRE(c->remove(id));  // what a cache server that restarted empty looks like
    CHECK(c->restore(id, copy.read_from(copy.first_seq())));
    auto info = c->info(id).value();
    CHECK(info.first_seq == 3);
    CHECK(info.next_seq == 7);
    CHECK(bytes_of(c->read_from(id, 5).value()) == std::vector<std::string>{ev(5), ev(6)});
    CHECK(c->append(id, ev(7)).value() == 7);
    CHECK(c->restore(id, copy.read_from(copy.first_seq())).error().code == platform::api_error::replay_exists);
  });
}

TEST_CASE("read_from answers like the core's replay buffer for the same history") {
  for_each_backend([](backend& b) {
    replay_limits limits{200, 7};
    auto c = b.open(limits);
    std::mt19937 rng(42);
    for (int round = 0; round < 3; ++round) {
      auto id = uid("s");
      REQUIRE(c->create(id));
      replay_buffer model(limits);
      int appends = static_cast<int>(rng() % 25);
      for (int i = 0; i < appends; ++i) {
        std::string chunk(1 + rng() % 60, static_cast<char>('a' + i % 26));
        CHECK(c->append(id, chunk).value() == model.append(chunk).value());
      }
      if (round != 1) {
        REQUIRE(c->complete(id));
        model.complete();
      }
      for (std::uint64_t cursor = 0; cursor <= model.next_seq() + 1; ++cursor) {
        for (std::size_t max : {std::size_t(0), std::size_t(1), std::size_t(3), SIZE_MAX}) {
          CAPTURE(cursor);
          CAPTURE(max);
          auto got = c->read_from(id, cursor, max).value();
          auto want = model.read_from(cursor, max);
          CHECK(got.status == want.status);
          CHECK(got.next_cursor == want.next_cursor);
          CHECK(got.at_end == want.at_end);
          CHECK(got.terminal == want.terminal);
          REQUIRE(got.chunks.size() == want.chunks.size());
          for (std::size_t i = 0; i < got.chunks.size(); ++i) {
            CHECK(got.chunks[i].seq == want.chunks[i].seq);
            CHECK(got.chunks[i].bytes == want.chunks[i].bytes);
          }
        }
      }
      auto info = c->info(id).value();
      auto want = model.info();
      CHECK(info.first_seq == want.first_seq);
      CHECK(info.next_seq == want.next_seq);
      CHECK(info.complete == want.complete);
      CHECK(info.starts_at_beginning == want.starts_at_beginning);
      CHECK(info.retained_chunks == want.retained_chunks);
      CHECK(info.retained_bytes == want.retained_bytes);
    }
  });
}

// ---- wait_read ------------------------------------------------------------------------------------

TEST_CASE("wait_read returns at once when there is something to read or the stream is done") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    REQUIRE(c->append(id, ev(0)));
    auto t0 = std::chrono::steady_clock::now();
    auto r = c->wait_read(id, 0, 10, patience).value();
    CHECK(bytes_of(r) == std::vector<std::string>{ev(0)});
    REQUIRE(c->complete(id));
    auto done = c->wait_read(id, 1, 10, patience).value();
    CHECK(done.terminal);
    CHECK(c->wait_read(id, 5, 10, patience).value().status == replay_status::cursor_ahead);
    CHECK(std::chrono::steady_clock::now() - t0 < patience);
  });
}

TEST_CASE("wait_read times out at the end of a live stream with nothing, at_end and not terminal") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    REQUIRE(c->append(id, ev(0)));
    auto t0 = std::chrono::steady_clock::now();
    auto r = c->wait_read(id, 1, 10, 150ms).value();
    CHECK(std::chrono::steady_clock::now() - t0 >= 150ms);
    CHECK(r.status == replay_status::ok);
    CHECK(r.chunks.empty());
    CHECK(r.next_cursor == 1);
    CHECK(r.at_end);
    CHECK_FALSE(r.terminal);
  });
}

TEST_CASE("wait_read wakes when another thread appends, completes or removes") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));

    std::promise<void> started;
    auto waiting = wait_read_async(*c, id, 0, patience, started);
    started.get_future().wait();
    REQUIRE(c->append(id, ev(0)));
    auto woke = waiting.get();
    CHECK(woke.took < patience);  // woken, not timed out
    CHECK(bytes_of(woke.read.value()) == std::vector<std::string>{ev(0)});

    std::promise<void> started2;
    waiting = wait_read_async(*c, id, 1, patience, started2);
    started2.get_future().wait();
    REQUIRE(c->complete(id));
    woke = waiting.get();
    CHECK(woke.took < patience);
    CHECK(woke.read.value().chunks.empty());
    CHECK(woke.read.value().terminal);

    auto id2 = uid("s");
    REQUIRE(c->create(id2));
    std::promise<void> started3;
    waiting = wait_read_async(*c, id2, 0, patience, started3);
    started3.get_future().wait();
    REQUIRE(c->remove(id2));
    woke = waiting.get();
    CHECK(woke.took < patience);
    REQUIRE_FALSE(woke.read);
    CHECK(woke.read.error().code == platform::api_error::replay_not_found);
  });
}

TEST_CASE("many followers of one stream, started at its tail and behind it, each get every event once") {
  // The Redis store reads once per wake-up for all the waiters at the same cursor: each
  // follower must still get exactly the events after its own cursor, across several appends.
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    REQUIRE(c->append(id, ev(0)));
    REQUIRE(c->append(id, ev(1)));
    constexpr int followers = 48;
    std::vector<std::future<std::vector<std::string>>> got;
    for (int i = 0; i < followers; ++i) {
      std::uint64_t start = i % 3 == 0 ? 1 : 2;  // a third one event behind the tail
      got.push_back(std::async(std::launch::async, [&c, id, start] {
        std::vector<std::string> seen;
        std::uint64_t cursor = start;
        while (seen.size() < 5 - start) {
          auto r = c->wait_read(id, cursor, 100, patience);
          if (!r || r->terminal) break;
          for (const auto& chunk : r->chunks) seen.push_back(chunk.bytes);
          cursor = r->next_cursor;
        }
        return seen;
      }));
    }
    for (int i = 2; i < 5; ++i) REQUIRE(c->append(id, ev(i)));
    for (int i = 0; i < followers; ++i) {
      std::vector<std::string> want;
      for (int k = i % 3 == 0 ? 1 : 2; k < 5; ++k) want.push_back(ev(k));
      CHECK(got[static_cast<std::size_t>(i)].get() == want);
    }
  });
}

TEST_CASE("a follower on another thread sees every event once, in order, then the end") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto id = uid("s");
    REQUIRE(c->create(id));
    auto follower = follow_to_end(*c, id, 7);
    std::vector<std::string> sent;
    for (int i = 0; i < 200; ++i) {
      sent.push_back(ev(i));
      REQUIRE(c->append(id, ev(i)));
    }
    REQUIRE(c->complete(id));
    CHECK(follower.get() == sent);
  });
}

// ---- pub/sub ------------------------------------------------------------------------------------

TEST_CASE("pub/sub delivers every message to every subscriber of its channel, in publish order") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto channel = uid("ch"), other = uid("ch");
    inbox one, two, elsewhere;
    auto s1 = c->subscribe(channel, one.handler()).value();
    auto s2 = c->subscribe(channel, two.handler()).value();
    auto s3 = c->subscribe(other, elsewhere.handler()).value();
    std::vector<std::string> sent;
    for (int i = 0; i < 50; ++i) {
      sent.push_back("m" + std::to_string(i));
      REQUIRE(c->publish(channel, sent.back()));
    }
    REQUIRE(c->publish(other, "last"));
    REQUIRE(elsewhere.wait_for(1));
    REQUIRE(one.wait_for(50));
    REQUIRE(two.wait_for(50));
    CHECK(one.snapshot() == sent);
    CHECK(two.snapshot() == sent);
    CHECK(elsewhere.snapshot() == std::vector<std::string>{"last"});
    CHECK(c->publish(uid("nobody"), "x"));  // no listener is not an error
  });
}

TEST_CASE("destroying a subscription stops delivery; no handler runs after the destructor returns") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto channel = uid("ch");
    std::atomic<bool> destroyed{false};
    std::atomic<int> late{0}, calls{0};
    auto sub = c->subscribe(channel, [&](std::string_view, std::string_view) {
                  if (destroyed) ++late;
                  ++calls;
                }).value();
    inbox barrier;
    auto watcher = c->subscribe(channel, barrier.handler()).value();
    for (int i = 0; i < 100; ++i) REQUIRE(c->publish(channel, "before"));
    REQUIRE(barrier.wait_for(100));  // deliveries to `sub` may still be running: that is the point
    sub.reset();
    destroyed = true;
    for (int i = 0; i < 10; ++i) REQUIRE(c->publish(channel, "after"));
    REQUIRE(barrier.wait_for(110));
    CHECK(late == 0);
    CHECK(calls == 100);
  });
}

TEST_CASE("a handler may publish, even to its own channel, and may drop its own subscription") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto channel = uid("ch");
    inbox box;
    auto relay = c->subscribe(channel, [&](std::string_view ch, std::string_view m) {
                    box.push(m);
                    int n = std::stoi(std::string(m));
                    if (n < 5) CHECK(c->publish(ch, std::to_string(n + 1)));
                  }).value();
    REQUIRE(c->publish(channel, "0"));
    REQUIRE(box.wait_for(6));
    CHECK(box.snapshot() == std::vector<std::string>{"0", "1", "2", "3", "4", "5"});

    auto once_channel = uid("ch");
    std::unique_ptr<subscription> once;
    std::atomic<int> once_calls{0};
    once = c->subscribe(once_channel, [&](std::string_view, std::string_view) {
              ++once_calls;
              once.reset();
            }).value();
    inbox barrier;
    auto watcher = c->subscribe(once_channel, barrier.handler()).value();
    REQUIRE(c->publish(once_channel, "a"));
    REQUIRE(c->publish(once_channel, "b"));
    REQUIRE(barrier.wait_for(2));
    CHECK(once_calls == 1);
  });
}

TEST_CASE("a subscription may outlive its store") {
  for_each_backend([](backend& b) {
    auto c = b.open({});
    auto sub = c->subscribe(uid("ch"), [](std::string_view, std::string_view) {}).value();
    c.reset();
    sub.reset();
  });
}

// ---- Redis: several replicas, failures ------------------------------------------------------------

TEST_CASE("Redis: two stores on one server see each other's streams and messages") {
  if (redis_url().empty()) return;
  auto a = open_redis(), b = open_redis();
  auto id = uid("shared");
  REQUIRE(a->create(id));
  CHECK(b->create(id).error().code == platform::api_error::replay_exists);
  REQUIRE(a->append(id, ev(0)));
  CHECK(b->append(id, ev(1)).value() == 1);
  CHECK(bytes_of(b->read_from(id, 0).value()) == std::vector<std::string>{ev(0), ev(1)});

  // A follower on replica b wakes on replica a's append and completion.
  std::promise<void> started;
  auto waiting = wait_read_async(*b, id, 2, patience, started);
  started.get_future().wait();
  REQUIRE(a->append(id, ev(2)));
  auto woke = waiting.get();
  CHECK(woke.took < patience);
  CHECK(bytes_of(woke.read.value()) == std::vector<std::string>{ev(2)});
  std::promise<void> started2;
  waiting = wait_read_async(*b, id, 3, patience, started2);
  started2.get_future().wait();
  REQUIRE(a->complete(id));
  CHECK(waiting.get().read.value().terminal);

  auto channel = uid("ws");
  inbox at_a, at_b;
  auto sa = a->subscribe(channel, at_a.handler()).value();
  auto sb = b->subscribe(channel, at_b.handler()).value();
  REQUIRE(a->publish(channel, "from a"));
  REQUIRE(b->publish(channel, "from b"));
  REQUIRE(at_a.wait_for(2));
  REQUIRE(at_b.wait_for(2));
  CHECK(at_a.snapshot() == std::vector<std::string>{"from a", "from b"});
  CHECK(at_b.snapshot() == std::vector<std::string>{"from a", "from b"});

  REQUIRE(b->remove(id));
  CHECK(a->read_from(id, 0).error().code == platform::api_error::replay_not_found);
}

// A replica answers its own viewers from the events it appended, without asking Redis; an
// event or the end written by another replica must still reach them, also when both write at
// once (the other's notification can look like one of its own appends still on the way).
TEST_CASE("Redis: a store's own followers also see what another store appends and completes") {
  if (redis_url().empty()) return;
  auto a = open_redis(), b = open_redis();
  auto id = uid("two-writers");
  REQUIRE(a->create(id));
  REQUIRE(a->append(id, ev(0)));
  REQUIRE(a->append(id, ev(1)));

  std::promise<void> started;
  auto waiting = wait_read_async(*a, id, 2, patience, started);
  started.get_future().wait();
  CHECK(b->append(id, ev(2)).value() == 2);
  auto woke = waiting.get();
  CHECK(woke.took < patience);
  CHECK(bytes_of(woke.read.value()) == std::vector<std::string>{ev(2)});
  CHECK(a->append(id, ev(3)).value() == 3);
  CHECK(bytes_of(a->read_from(id, 0).value()) == std::vector<std::string>{ev(0), ev(1), ev(2), ev(3)});

  std::promise<void> started2;
  waiting = wait_read_async(*a, id, 4, patience, started2);
  started2.get_future().wait();
  REQUIRE(b->complete(id));
  woke = waiting.get();
  CHECK(woke.took < patience);
  CHECK(woke.read.value().terminal);

  // Both at once, with a follower on each: every event once, in Redis's order, then the end.
  auto both = uid("both");
  REQUIRE(a->create(both));
  auto at_a = follow_to_end(*a, both, 50), at_b = follow_to_end(*b, both, 50);
  auto writer = [&](cache_store& c, int from) {
    return std::async(std::launch::async, [&c, both, from] {
      for (int i = from; i < from + 300; ++i) {
        if (!c.append(both, ev(i))) return false;
      }
      return true;
    });
  };
  auto wa = writer(*a, 0), wb = writer(*b, 1000);
  REQUIRE(wa.get());
  REQUIRE(wb.get());
  REQUIRE(a->complete(both));
  auto stored = bytes_of(b->read_from(both, 0, 1000).value());
  CHECK(stored.size() == 600);
  CHECK(at_a.get() == stored);
  CHECK(at_b.get() == stored);
}

// After connections die, commands reconnect at once (and a retried append is stored once);
// the subscriber reconnects with backoff. A new subscription returns only when Redis
// confirmed it, and the subscriber re-subscribes everything in one command, so once a new
// subscription is live the old ones are too.
void check_recovery(cache_store& a, cache_store& b, inbox& old_box, const std::string& old_channel, bool data_kept,
                    const std::string& old_stream) {
  if (data_kept) {
    CHECK(a.append(old_stream, ev(1)).value() == 1);
    CHECK(b.info(old_stream).value().next_seq == 2);
  }
  auto id = uid("after");
  REQUIRE(a.create(id));
  CHECK(a.append(id, ev(0)).value() == 0);

  inbox fresh;
  auto channel = uid("ws");
  auto sub = b.subscribe(channel, fresh.handler());
  REQUIRE_MESSAGE(sub, (sub ? std::string() : sub.error().message));
  std::size_t before = old_box.snapshot().size();
  REQUIRE(a.publish(old_channel, "again"));
  REQUIRE(a.publish(channel, "fresh"));
  REQUIRE(old_box.wait_for(before + 1));
  REQUIRE(fresh.wait_for(1));
  CHECK(old_box.snapshot().back() == "again");

  std::promise<void> started;
  auto waiting = wait_read_async(b, id, 1, patience, started);
  started.get_future().wait();
  REQUIRE(a.append(id, ev(1)));
  auto woke = waiting.get();
  CHECK(woke.took < patience);
  CHECK(bytes_of(woke.read.value()) == std::vector<std::string>{ev(1)});
}

TEST_CASE("Redis: commands and subscriptions come back after their connections are killed") {
  if (redis_url().empty()) return;
  auto a = open_redis(), b = open_redis();
  auto id = uid("s");
  REQUIRE(a->create(id));
  REQUIRE(a->append(id, ev(0)));
  auto channel = uid("ws");
  inbox box;
  auto sub = b->subscribe(channel, box.handler()).value();
  REQUIRE(a->publish(channel, "one"));
  REQUIRE(box.wait_for(1));

  redis_admin({"CLIENT", "KILL", "TYPE", "normal"});
  redis_admin({"CLIENT", "KILL", "TYPE", "pubsub"});
  check_recovery(*a, *b, box, channel, true, id);
}

TEST_CASE("Redis: stores work again after the server restarts") {
  auto dir = env("PLATFORM_TEST_SERVICES_DIR");
  if (redis_url().empty() || dir.empty()) {
    MESSAGE("skipped: needs PLATFORM_TEST_SERVICES_DIR from scripts/services.sh to restart Redis");
    return;
  }
  auto a = open_redis(), b = open_redis();
  auto id = uid("s");
  REQUIRE(a->create(id));
  auto channel = uid("ws");
  inbox box;
  auto sub = b->subscribe(channel, box.handler()).value();

  std::string cmd = "bash '" PLATFORM_SOURCE_ROOT "/scripts/services.sh' restart-redis '" + dir + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  // The restarted server has no data: the old stream is gone, and saying so is an answer,
  // not a transport failure.
  CHECK(a->read_from(id, 0).error().code == platform::api_error::replay_not_found);
  check_recovery(*a, *b, box, channel, false, id);
}

TEST_CASE("Redis: bad URLs, wrong credentials and unreachable servers are clear errors") {
  auto open = [](std::string url) {
    redis_cache_options o;
    o.url = std::move(url);
    return make_redis_cache_store(o);
  };
  for (const char* bad : {"http://x", "rediss://x:1", "redis://x:0", "redis://x:99999", "redis://x:port",
                          "redis://x:1/db", "redis://x:1/-1", "redis://x?timeout=1", "redis://[::1", "redis://:%zz@x"}) {
    CAPTURE(bad);
    auto r = open(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == platform::api_error::invalid_config);
  }
  auto down = open("redis://:secret-password@127.0.0.1:1");
  REQUIRE_FALSE(down);
  CHECK(down.error().code == platform::api_error::cache_unavailable);
  CHECK(down.error().message.find("secret-password") == std::string::npos);

  if (redis_url().empty()) return;
  auto port = redis_url().substr(redis_url().rfind(':') + 1);
  auto refused = open("redis://user:secret-password@127.0.0.1:" + port);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == platform::api_error::cache_unavailable);
  CHECK(refused.error().message.find("secret-password") == std::string::npos);

  // The database number selects the keyspace.
  auto db0 = open_redis({}, "redis://127.0.0.1:" + port + "/0");
  auto db1 = open_redis({}, "redis://127.0.0.1:" + port + "/1");
  auto id = uid("db");
  REQUIRE(db0->create(id));
  CHECK(db1->read_from(id, 0).error().code == platform::api_error::replay_not_found);
  REQUIRE(db1->create(id));
}
