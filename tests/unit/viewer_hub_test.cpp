// The viewer hub (servers/web/viewer_hub.cpp): chat viewers on one event loop, one follower per
// stream. Each viewer is one end of a socket pair; the test reads the other end as a client
// would and checks the HTTP/1.1 chunks it gets.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "adapters/cache_store.hpp"
#include "platform/ui_stream.hpp"
#include "viewer_hub.hpp"

using namespace platform;
using namespace platform::web;
using namespace std::chrono_literals;

namespace {

struct client {
  int fd = -1;
  std::string got;  // the raw body bytes, chunk framing included
  bool closed = false;
  ~client() {
    if (fd >= 0) ::close(fd);
  }
  // Reads until `pred(got)` or the hub closes the connection (false after 10 s without it).
  template <typename Pred>
  bool until(Pred pred) {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!pred(got)) {
      if (closed || std::chrono::steady_clock::now() > deadline) return false;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[65536];
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) closed = true;
      else got.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }
  // Searches only the bytes that came since the last look: a 14 MB backlog read 64 KiB at a
  // time must not be rescanned whole on every read.
  bool has(std::string_view s) {
    std::size_t from = 0;
    return until([&](const std::string& g) {
      if (g.find(s, from) != std::string::npos) return true;
      from = g.size() >= s.size() ? g.size() - s.size() + 1 : 0;
      return false;
    });
  }
  bool ends() { return until([](const std::string&) { return false; }) || closed; }
};

// A connection handed to the hub, and the client's end of it.
int handed(viewer_hub& hub, client& c, viewer_plan plan) {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  c.fd = sv[0];
  hub.adopt(sv[1], std::move(plan));
  return sv[1];
}

std::string event(int k) { return "data: {\"type\":\"text-delta\",\"id\":\"t\",\"delta\":\"e" + std::to_string(k) + ";\"}\n\n"; }

viewer_plan plan_at(cache_store& cache, const std::string& id, std::uint64_t cursor, bool live = true) {
  viewer_plan p;
  p.stream_id = id;
  p.first = cache.read_from(id, cursor, 16384).value();
  p.still_live = [live] { return live; };
  p.heartbeat = 300ms;
  p.outage_limit = 2s;
  return p;
}

// The events in a chunked body, in order, without the framing and the keep-alives.
std::string unchunked(const std::string& raw) {
  std::string out;
  std::size_t pos = 0;
  while (pos < raw.size()) {
    std::size_t eol = raw.find("\r\n", pos);
    if (eol == std::string::npos) break;
    std::size_t len = std::stoul(raw.substr(pos, eol - pos), nullptr, 16);
    if (len == 0) break;
    if (std::string data = raw.substr(eol + 2, len); data != sse_heartbeat) out += data;
    pos = eol + 2 + len + 2;
  }
  return out;
}

}  // namespace

TEST_CASE("viewers at different cursors get the stream once each, in order, then [DONE] and the last chunk") {
  auto cache = make_memory_cache_store();
  viewer_hub hub(*cache);
  REQUIRE(cache->create("s1"));
  for (int k = 0; k < 5; ++k) REQUIRE(cache->append("s1", event(k)));
  client a, b;
  handed(hub, a, plan_at(*cache, "s1", 0));
  handed(hub, b, plan_at(*cache, "s1", 3));
  REQUIRE(a.has("e4;"));
  REQUIRE(b.has("e4;"));
  CHECK(hub.viewers() == 2);
  for (int k = 5; k < 40; ++k) REQUIRE(cache->append("s1", event(k)));
  REQUIRE(cache->append("s1", std::string(sse_done_event)));
  REQUIRE(cache->complete("s1"));
  REQUIRE(a.ends());
  REQUIRE(b.ends());
  std::string all;
  for (int k = 0; k < 40; ++k) all += event(k);
  all += sse_done_event;
  CHECK(unchunked(a.got) == all);
  CHECK(unchunked(b.got) == all.substr(3 * event(0).size()));
  CHECK(a.got.ends_with("0\r\n\r\n"));
  CHECK(hub.viewers() == 0);
}

TEST_CASE("a viewer whose first read is behind the stream's follower catches up without a hole or a repeat") {
  auto cache = make_memory_cache_store();
  viewer_hub hub(*cache);
  REQUIRE(cache->create("s2"));
  REQUIRE(cache->append("s2", event(0)));
  auto late = plan_at(*cache, "s2", 0);  // read now, handed over after the follower moved on
  client a, b;
  handed(hub, a, plan_at(*cache, "s2", 0));
  for (int k = 1; k < 10; ++k) REQUIRE(cache->append("s2", event(k)));
  REQUIRE(a.has("e9;"));
  handed(hub, b, std::move(late));
  REQUIRE(b.has("e9;"));
  REQUIRE(cache->append("s2", event(10)));
  REQUIRE(b.has("e10;"));
  std::string want;
  for (int k = 0; k <= 10; ++k) want += event(k);
  CHECK(unchunked(b.got) == want);
}

TEST_CASE("a stream over at its first read is written and closed") {
  auto cache = make_memory_cache_store();
  viewer_hub hub(*cache);
  REQUIRE(cache->create("s3"));
  REQUIRE(cache->append("s3", event(0)));
  REQUIRE(cache->append("s3", std::string(sse_done_event)));
  REQUIRE(cache->complete("s3"));
  client a;
  handed(hub, a, plan_at(*cache, "s3", 0));
  REQUIRE(a.ends());
  CHECK(unchunked(a.got) == event(0) + std::string(sse_done_event));
}

TEST_CASE("an idle stream gets keep-alives; a run that stopped ends its viewers with an error and [DONE]") {
  auto cache = make_memory_cache_store();
  viewer_hub hub(*cache);
  REQUIRE(cache->create("s4"));
  REQUIRE(cache->append("s4", event(0)));
  client live, stopped;
  handed(hub, live, plan_at(*cache, "s4", 0));
  REQUIRE(live.has(std::string(sse_heartbeat)));
  REQUIRE(cache->create("s5"));
  REQUIRE(cache->append("s5", event(0)));
  handed(hub, stopped, plan_at(*cache, "s5", 0, false));
  REQUIRE(stopped.ends());
  CHECK(unchunked(stopped.got) == event(0) +
                                      "data: {\"type\":\"error\",\"errorText\":\"The run stopped before its stream finished.\"}\n\n" +
                                      std::string(sse_done_event));
}

TEST_CASE("a viewer that leaves is let go; the others go on") {
  auto cache = make_memory_cache_store();
  viewer_hub hub(*cache);
  REQUIRE(cache->create("s6"));
  REQUIRE(cache->append("s6", event(0)));
  client a, b;
  handed(hub, a, plan_at(*cache, "s6", 0));
  handed(hub, b, plan_at(*cache, "s6", 0));
  REQUIRE(a.has("e0;"));
  REQUIRE(b.has("e0;"));
  ::close(a.fd);
  a.fd = -1;
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (hub.viewers() != 1 && std::chrono::steady_clock::now() < deadline) b.until([](const std::string&) { return true; });
  CHECK(hub.viewers() == 1);
  REQUIRE(cache->append("s6", event(1)));
  CHECK(b.has("e1;"));
}

TEST_CASE("a backlog larger than a viewer may have queued goes out whole, then the stream live") {
  auto cache = make_memory_cache_store({.replay = {.limits = {.max_bytes = 64u << 20, .max_chunks = 100000}}});
  viewer_hub hub(*cache);
  REQUIRE(cache->create("s7"));
  const std::string pad(300, 'x');
  std::string want;
  for (int k = 0; k < 40000; ++k) {
    std::string e = "data: {\"type\":\"text-delta\",\"id\":\"t\",\"delta\":\"" + pad + "e" + std::to_string(k) + ";\"}\n\n";
    REQUIRE(cache->append("s7", e));
    want += e;
  }
  client a;
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  a.fd = sv[0];
  // adopt() writes the history itself, at the reader's pace: a thread of its own here.
  std::thread handing([&] { hub.adopt(sv[1], plan_at(*cache, "s7", 0)); });
  struct joined_on_exit {  // a failed REQUIRE must not leave the writer blocked, nor terminate
    std::thread& t;
    int fd;
    ~joined_on_exit() {
      if (!t.joinable()) return;
      ::shutdown(fd, SHUT_RDWR);
      t.join();
    }
  } guard{handing, a.fd};
  REQUIRE(a.has("e39999;"));
  handing.join();
  REQUIRE(cache->append("s7", event(40000)));
  REQUIRE(a.has("e40000;"));
  auto body = unchunked(a.got);
  want += event(40000);
  auto diff = std::mismatch(body.begin(), body.end(), want.begin(), want.end());
  INFO("body " << body.size() << " bytes, want " << want.size() << ", first difference at "
               << (diff.first - body.begin()) << ": " << std::string(diff.first, std::min(diff.first + 80, body.end())));
  CHECK(body == want);
}
