// The replay buffer: sequence numbers, cursors, the terminal marker, bounded memory, and the
// in-memory store behind the replay_store interface.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/replay_buffer.hpp"

namespace replay_buffer_test {

using platform::replay_buffer;
using platform::replay_status;

namespace {

std::string ev(int i) { return "data: {\"type\":\"data-n\",\"data\":" + std::to_string(i) + "}\n\n"; }

std::vector<std::uint64_t> seqs(const platform::replay_read& r) {
  std::vector<std::uint64_t> out;
  for (const auto& c : r.chunks) out.push_back(c.seq);
  return out;
}

using S = std::vector<std::uint64_t>;

}  // namespace

TEST_CASE("appends get sequence numbers from 0; read_from returns seq >= cursor") {
  replay_buffer b;
  for (int i = 0; i < 5; ++i) CHECK(b.append(ev(i)).value() == static_cast<std::uint64_t>(i));
  auto all = b.read_from(0);
  CHECK(all.status == replay_status::ok);
  CHECK(seqs(all) == S{0, 1, 2, 3, 4});
  CHECK(all.chunks[3].bytes == ev(3));
  CHECK(all.next_cursor == 5);
  CHECK(all.at_end);
  CHECK_FALSE(all.terminal);
  auto tail = b.read_from(3);
  CHECK(seqs(tail) == S{3, 4});
  auto none = b.read_from(5);
  CHECK(none.status == replay_status::ok);
  CHECK(none.chunks.empty());
  CHECK(none.at_end);
  CHECK(none.next_cursor == 5);
  CHECK(b.read_from(6).status == replay_status::cursor_ahead);
}

TEST_CASE("a follower reads in batches, waits at the end, and stops at the terminal marker") {
  replay_buffer b;
  for (int i = 0; i < 5; ++i) (void)b.append(ev(i));
  auto r1 = b.read_from(0, 2);
  CHECK(seqs(r1) == S{0, 1});
  CHECK_FALSE(r1.at_end);
  auto r2 = b.read_from(r1.next_cursor, 10);
  CHECK(seqs(r2) == S{2, 3, 4});
  CHECK(r2.at_end);
  CHECK_FALSE(r2.terminal);  // live: the follower waits for the next append
  (void)b.append(ev(5));
  b.complete();
  auto r3 = b.read_from(r2.next_cursor);
  CHECK(seqs(r3) == S{5});
  CHECK(r3.terminal);
  // A follower still behind the end is not terminal yet, even though the stream is complete.
  auto behind = b.read_from(0, 1);
  CHECK(behind.terminal == false);
  CHECK(b.read_from(6).terminal);
}

TEST_CASE("complete is idempotent and appending after it fails") {
  replay_buffer b;
  (void)b.append(ev(0));
  b.complete();
  b.complete();
  CHECK(b.is_complete());
  auto r = b.append(ev(1));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == platform::api_error::replay_complete);
  CHECK(b.next_seq() == 1);
}

TEST_CASE("the chunk limit drops the oldest events and the buffer no longer starts at the beginning") {
  replay_buffer b({1 << 20, 3});
  for (int i = 0; i < 3; ++i) (void)b.append(ev(i));
  CHECK(b.starts_at_beginning());
  CHECK(b.append(ev(3)).value() == 3);  // the live event is stored; seq 0 is dropped
  CHECK_FALSE(b.starts_at_beginning());
  CHECK(b.first_seq() == 1);
  CHECK(seqs(b.read_from(1)) == S{1, 2, 3});
  auto expired = b.read_from(0);
  CHECK(expired.status == replay_status::cursor_expired);
  CHECK(expired.chunks.empty());
  CHECK(expired.next_cursor == 0);
  auto info = b.info();
  CHECK(info.first_seq == 1);
  CHECK(info.next_seq == 4);
  CHECK(info.retained_chunks == 3);
  CHECK_FALSE(info.starts_at_beginning);
}

TEST_CASE("the byte limit drops the oldest events but always keeps the newest") {
  std::size_t one = ev(0).size();
  replay_buffer b({2 * one, 100});
  for (int i = 0; i < 4; ++i) (void)b.append(ev(i));
  CHECK(b.info().retained_bytes <= 2 * one);
  CHECK(seqs(b.read_from(b.first_seq())) == S{2, 3});
  std::string huge(10 * one, 'x');
  CHECK(b.append(huge).value() == 4);
  auto r = b.read_from(4);
  CHECK(seqs(r) == S{4});
  CHECK(r.chunks[0].bytes == huge);
  CHECK(b.first_seq() == 4);
  CHECK(b.info().retained_bytes == huge.size());
}

TEST_CASE("a follower that keeps up never loses an event under the limits") {
  replay_buffer b({64, 2});
  std::uint64_t cursor = 0;
  std::vector<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    (void)b.append(ev(i));
    auto r = b.read_from(cursor);
    REQUIRE(r.status == replay_status::ok);
    for (auto& c : r.chunks) seen.push_back(c.bytes);
    cursor = r.next_cursor;
  }
  REQUIRE(seen.size() == 100);
  CHECK(seen[57] == ev(57));
}

TEST_CASE("memory store: create, append, read, complete, remove") {
  platform::memory_replay_store store;
  CHECK(store.create("s1").has_value());
  CHECK(store.create("s1").error().code == platform::api_error::replay_exists);
  CHECK(store.append("s1", ev(0)).value() == 0);
  CHECK(store.append("s1", ev(1)).value() == 1);
  CHECK(store.append("nope", ev(0)).error().code == platform::api_error::replay_not_found);
  auto r = store.read_from("s1", 1);
  REQUIRE(r.has_value());
  CHECK(seqs(*r) == S{1});
  CHECK(store.read_from("nope", 0).error().code == platform::api_error::replay_not_found);
  CHECK(store.complete("s1").has_value());
  CHECK(store.info("s1")->complete);
  CHECK(store.append("s1", ev(2)).error().code == platform::api_error::replay_complete);
  CHECK(store.complete("nope").error().code == platform::api_error::replay_not_found);
  CHECK(store.remove("s1").has_value());
  CHECK(store.remove("s1").has_value());
  CHECK(store.info("s1").error().code == platform::api_error::replay_not_found);
}

TEST_CASE("memory store: limits apply per stream") {
  platform::memory_replay_store_options o;
  o.limits = {1 << 20, 2};
  platform::memory_replay_store store(o);
  (void)store.create("a");
  (void)store.create("b");
  for (int i = 0; i < 3; ++i) (void)store.append("a", ev(i));
  (void)store.append("b", ev(0));
  CHECK_FALSE(store.info("a")->starts_at_beginning);
  CHECK(store.info("b")->starts_at_beginning);
  CHECK(store.read_from("a", 0)->status == replay_status::cursor_expired);
}

TEST_CASE("memory store: when full, the stream completed longest ago is evicted; live ones never") {
  platform::memory_replay_store_options o;
  o.max_streams = 2;
  platform::memory_replay_store store(o);
  (void)store.create("a");
  (void)store.create("b");
  CHECK(store.create("c").error().code == platform::api_error::replay_store_full);
  (void)store.complete("b");
  (void)store.complete("a");
  CHECK(store.create("c").has_value());  // b completed first
  CHECK(store.info("b").error().code == platform::api_error::replay_not_found);
  CHECK(store.info("a").has_value());
  CHECK(store.create("d").has_value());  // then a
  CHECK(store.info("a").error().code == platform::api_error::replay_not_found);
  CHECK(store.size() == 2);
}

TEST_CASE("memory store: completed streams expire completed_ttl after the first tick that sees them") {
  platform::memory_replay_store_options o;
  o.completed_ttl = 100;
  platform::memory_replay_store store(o);
  (void)store.create("live");
  (void)store.create("done");
  CHECK(store.tick(1000) == 0);
  (void)store.complete("done");
  CHECK(store.tick(1010) == 0);  // stamped at 1010
  CHECK(store.tick(1109) == 0);
  CHECK(store.info("done").has_value());
  CHECK(store.tick(1110) == 1);
  CHECK(store.info("done").error().code == platform::api_error::replay_not_found);
  CHECK(store.tick(1000000) == 0);
  CHECK(store.info("live").has_value());  // live streams never expire
}

TEST_CASE("the memory store is usable through the replay_store interface") {
  platform::memory_replay_store concrete;
  platform::replay_store& store = concrete;
  REQUIRE(store.create("x").has_value());
  CHECK(store.append("x", "data: [DONE]\n\n").value() == 0);
  CHECK(store.complete("x").has_value());
  auto r = store.read_from("x", 0);
  REQUIRE(r.has_value());
  CHECK(r->terminal);
  CHECK(r->chunks.at(0).bytes == "data: [DONE]\n\n");
}

}  // namespace replay_buffer_test
