#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "adapters/cache_store.hpp"
#include "local_streams.hpp"

namespace local_streams_test {

using namespace std::chrono_literals;
using platform::replay_limits;
using platform::web::local_first_cache;
using platform::web::local_streams;

TEST_CASE("a stream written here is read from its window, before the store has the event") {
  auto store = platform::make_memory_cache_store();
  REQUIRE(store->create("s"));
  local_streams local;
  local_first_cache followed(*store, local);
  auto window = local.open("s", replay_limits{});
  REQUIRE(window->append("data: a\n\n"));
  // Not in the store yet: the local follower sees it anyway.
  auto in_store = store->read_from("s", 0);
  REQUIRE(in_store);
  CHECK(in_store->chunks.empty());
  auto r = followed.read_from("s", 0);
  REQUIRE(r);
  REQUIRE(r->chunks.size() == 1);
  CHECK(r->chunks[0].bytes == "data: a\n\n");
  CHECK(r->next_cursor == 1);
  CHECK_FALSE(r->terminal);
}

TEST_CASE("an append wakes a follower waiting at the end of the window") {
  auto store = platform::make_memory_cache_store();
  REQUIRE(store->create("s"));
  local_streams local;
  local_first_cache followed(*store, local);
  auto window = local.open("s", replay_limits{});
  // Either order of the two threads gives the event; a missed wake-up waits past the test's
  // own timeout (the wait is an hour) and fails it.
  std::thread writer([&] { (void)window->append("data: b\n\n"); });
  auto r = followed.wait_read("s", 0, 16, 1h);
  writer.join();
  REQUIRE(r);
  REQUIRE(r->chunks.size() == 1);
  CHECK(r->chunks[0].bytes == "data: b\n\n");
}

TEST_CASE("the window ends a follower only once complete; closed or outside it, the store answers") {
  auto store = platform::make_memory_cache_store();
  REQUIRE(store->create("s"));
  REQUIRE(store->append("s", "data: x\n\n"));
  local_streams local;
  local_first_cache followed(*store, local);
  auto window = local.open("s", replay_limits{});
  REQUIRE(window->append("data: x\n\n"));
  window->complete();
  auto r = followed.wait_read("s", 1, 16, 10s);
  REQUIRE(r);
  CHECK(r->terminal);
  // A cursor beyond the window: the store's answer (it has one event, the cursor is ahead).
  auto ahead = followed.read_from("s", 5, 16);
  auto ahead_store = store->read_from("s", 5, 16);
  CHECK(ahead.has_value() == ahead_store.has_value());
  // The writer is gone: the store answers (it does not have the stream complete).
  local.close("s", window);
  CHECK(local.find("s") == nullptr);
  auto after = followed.read_from("s", 1, 16);
  REQUIRE(after);
  CHECK_FALSE(after->terminal);
  CHECK(after->at_end);
}

TEST_CASE("a stream with no writer here is the store's, waits included") {
  auto store = platform::make_memory_cache_store();
  REQUIRE(store->create("t"));
  local_streams local;
  local_first_cache followed(*store, local);
  std::thread writer([&] { (void)store->append("t", "data: y\n\n"); });
  auto r = followed.wait_read("t", 0, 16, 1h);
  writer.join();
  REQUIRE(r);
  REQUIRE(r->chunks.size() == 1);
  CHECK(r->chunks[0].bytes == "data: y\n\n");
}

}  // namespace local_streams_test
