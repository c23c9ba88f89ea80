// One test suite for both cache stores: in-process always, Redis when PLATFORM_TEST_REDIS_URL
// names a server (required when PLATFORM_TEST_REQUIRE_SERVICES=1). Stream ids and channels
// carry a per-process random prefix so runs against a shared server never collide.
#include <doctest/doctest.h>
#include <hiredis/hiredis.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "platform/cache_store.hpp"

using namespace platform;
using namespace std::chrono_literals;

namespace {

std::string uid(std::string_view what) {
  static const std::string prefix = [] {
    std::random_device rd;
    return "t" + std::to_string(rd()) + "-";
  }();
  static std::atomic<int> n{0};
  return prefix + std::string(what) + std::to_string(++n);
}

std::string redis_url() {
  const char* u = std::getenv("PLATFORM_TEST_REDIS_URL");
  return u ? u : "";
}

struct backend_case {
  std::string name;
  std::function<std::unique_ptr<cache_store>(replay_limits)> open;
};

std::vector<backend_case> backends() {
  std::vector<backend_case> out;
  out.push_back({"memory", [](replay_limits l) {
                   memory_cache_options o;
                   o.replay.limits = l;
                   return make_memory_cache_store(o);
                 }});
  if (!redis_url().empty()) {
    out.push_back({"redis", [](replay_limits l) {
                     redis_cache_options o;
                     o.url = redis_url();
                     o.limits = l;
                     return make_redis_cache_store(o).value();
                   }});
  }
  return out;
}

std::string ev(int i) { return "data: {\"n\":" + std::to_string(i) + "}\n\n"; }

// Collects messages from a handler thread; wait_for() blocks until `n` arrived.
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
    return cv.wait_for(lock, 10s, [&] { return got.size() >= n; });
  }
};

void kill_clients(const std::string& type) {
  auto url = redis_url();
  auto port = std::stoi(url.substr(url.rfind(':') + 1));
  redisContext* c = redisConnect("127.0.0.1", port);
  REQUIRE(c);
  REQUIRE(c->err == 0);
  auto* r = static_cast<redisReply*>(redisCommand(c, "CLIENT KILL TYPE %s", type.c_str()));
  REQUIRE(r);
  freeReplyObject(r);
  redisFree(c);
}

}  // namespace

TEST_CASE("the Redis suite runs when services are required") {
  const char* required = std::getenv("PLATFORM_TEST_REQUIRE_SERVICES");
  if (required && std::string(required) == "1") CHECK_MESSAGE(!redis_url().empty(), "PLATFORM_TEST_REDIS_URL is not set");
}

TEST_CASE("cache store backends") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);
    SUBCASE("sequence numbers, cursors, terminal marker") {
      auto c = b.open({});
      auto id = uid("s");
      REQUIRE(c->create(id));
      auto dup = c->create(id);
      REQUIRE_FALSE(dup);
      CHECK(dup.error().code == "replay_exists");
      for (int i = 0; i < 5; ++i) CHECK(c->append(id, ev(i)).value() == static_cast<std::uint64_t>(i));
      auto all = c->read_from(id, 0).value();
      REQUIRE(all.chunks.size() == 5);
      CHECK(all.chunks[3].seq == 3);
      CHECK(all.chunks[3].bytes == ev(3));
      CHECK(all.at_end);
      CHECK_FALSE(all.terminal);
      auto part = c->read_from(id, 2, 2).value();
      REQUIRE(part.chunks.size() == 2);
      CHECK(part.chunks[0].seq == 2);
      CHECK(part.next_cursor == 4);
      CHECK_FALSE(part.at_end);
      CHECK(c->read_from(id, 9).value().status == replay_status::cursor_ahead);
      REQUIRE(c->complete(id));
      auto end = c->read_from(id, 5).value();
      CHECK(end.chunks.empty());
      CHECK(end.terminal);
      auto late = c->append(id, ev(6));
      REQUIRE_FALSE(late);
      CHECK(late.error().code == "replay_complete");
      auto info = c->info(id).value();
      CHECK(info.complete);
      CHECK(info.next_seq == 5);
      CHECK(info.starts_at_beginning);
      REQUIRE(c->remove(id));
      auto gone = c->read_from(id, 0);
      REQUIRE_FALSE(gone);
      CHECK(gone.error().code == "replay_not_found");
      CHECK(c->append(uid("never"), ev(0)).error().code == "replay_not_found");
    }

    SUBCASE("limits drop the oldest events; the replay no longer starts at the beginning") {
      auto c = b.open({1u << 20, 3});
      auto id = uid("s");
      REQUIRE(c->create(id));
      for (int i = 0; i < 5; ++i) REQUIRE(c->append(id, ev(i)));
      auto info = c->info(id).value();
      CHECK(info.first_seq == 2);
      CHECK_FALSE(info.starts_at_beginning);
      CHECK(c->read_from(id, 0).value().status == replay_status::cursor_expired);
      auto tail = c->read_from(id, 2).value();
      REQUIRE(tail.chunks.size() == 3);
      CHECK(tail.chunks[0].bytes == ev(2));
    }

    SUBCASE("wait_read wakes on append and on complete from another thread, and times out") {
      auto c = b.open({});
      auto id = uid("s");
      REQUIRE(c->create(id));
      auto timed_out = c->wait_read(id, 0, 10, 50ms).value();
      CHECK(timed_out.chunks.empty());
      CHECK(timed_out.at_end);
      CHECK_FALSE(timed_out.terminal);
      std::thread producer([&] {
        REQUIRE(c->append(id, ev(0)));
        REQUIRE(c->complete(id));
      });
      std::vector<std::string> seen;
      std::uint64_t cursor = 0;
      bool terminal = false;
      for (int i = 0; i < 100 && !terminal; ++i) {
        auto r = c->wait_read(id, cursor, 10, 10s).value();
        for (auto& x : r.chunks) seen.push_back(x.bytes);
        cursor = r.next_cursor;
        terminal = r.terminal;
      }
      producer.join();
      CHECK(terminal);
      CHECK(seen == std::vector<std::string>{ev(0)});
    }

    SUBCASE("pub/sub delivers in order; a destroyed subscription gets nothing more") {
      auto c = b.open({});
      auto channel = uid("ch");
      inbox box;
      auto sub = c->subscribe(channel, [&](std::string_view, std::string_view m) { box.push(m); }).value();
      for (int i = 0; i < 20; ++i) REQUIRE(c->publish(channel, std::to_string(i)));
      REQUIRE(box.wait_for(20));
      for (int i = 0; i < 20; ++i) CHECK(box.got[static_cast<std::size_t>(i)] == std::to_string(i));
      sub.reset();
      inbox other;
      auto sub2 = c->subscribe(channel, [&](std::string_view, std::string_view m) { other.push(m); }).value();
      REQUIRE(c->publish(channel, "after"));
      REQUIRE(other.wait_for(1));
      CHECK(box.got.size() == 20);
    }
  }
}

TEST_CASE("Redis: two replicas share streams and events; both survive killed connections") {
  if (redis_url().empty()) return;
  redis_cache_options o;
  o.url = redis_url();
  auto a = make_redis_cache_store(o).value();
  auto b = make_redis_cache_store(o).value();
  auto id = uid("shared");
  auto channel = uid("ws");
  inbox box;
  auto sub = b->subscribe(channel, [&](std::string_view, std::string_view m) { box.push(m); }).value();
  REQUIRE(a->create(id));
  REQUIRE(a->append(id, ev(0)));
  std::vector<std::string> followed;
  std::thread follower([&] {
    std::uint64_t cursor = 0;
    for (int i = 0; i < 200; ++i) {
      auto r = b->wait_read(id, cursor, 100, 10s);
      if (!r) continue;  // a killed connection: the next call reconnects
      for (auto& x : r->chunks) followed.push_back(x.bytes);
      cursor = r->next_cursor;
      if (r->terminal) return;
    }
  });
  REQUIRE(a->publish(channel, "one"));
  REQUIRE(box.wait_for(1));
  kill_clients("normal");
  kill_clients("pubsub");
  // Commands reconnect at once; the subscriber comes back with backoff, so publish until the
  // second message arrives.
  REQUIRE(a->append(id, ev(1)));
  for (int i = 0; i < 200 && box.got.size() < 2; ++i) {
    REQUIRE(a->publish(channel, "two"));
    std::unique_lock lock(box.mu);
    box.cv.wait_for(lock, 50ms, [&] { return box.got.size() >= 2; });
  }
  CHECK(box.got.size() >= 2);
  REQUIRE(a->complete(id));
  follower.join();
  CHECK(followed == std::vector<std::string>{ev(0), ev(1)});
}

TEST_CASE("Redis: bad URLs and unreachable servers are clear errors") {
  redis_cache_options o;
  o.url = "http://nope";
  auto bad = make_redis_cache_store(o);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == "invalid_config");
  o.url = "redis://:secret-password@127.0.0.1:1";
  auto down = make_redis_cache_store(o);
  REQUIRE_FALSE(down);
  CHECK(down.error().code == "cache_unavailable");
  CHECK(down.error().message.find("secret-password") == std::string::npos);
}
