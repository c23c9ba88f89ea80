#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/cache_store.hpp"
#include "append_batcher.hpp"
#include "local_streams.hpp"
#include "platform/replay_head.hpp"
#include "stream_writer.hpp"

namespace stream_writer_test {

using namespace std::chrono_literals;
using platform::api_error;
using platform::cache_store;
using platform::replay_head;
using platform::replay_limits;
using platform::replay_read;
using platform::result;
using platform::stream_append;
using platform::web::append_batcher;
using platform::web::local_streams;
using platform::web::stream_writer;

constexpr auto patience = 20s;  // a bound for a wait that should end at once, not a timing

// The in-process store with a switch that takes it away (every call fails as an unreachable
// Redis does), a gate that holds batches in flight, and a log of what reached it, in order.
class flaky_store final : public cache_store {
 public:
  std::unique_ptr<cache_store> inner = platform::make_memory_cache_store();

  void set_down(bool down) {
    std::lock_guard lock(mu_);
    down_ = down;
  }
  void hold(bool held) {
    {
      std::lock_guard lock(mu_);
      held_ = held;
    }
    changed_.notify_all();
  }
  // Waits until `n` batches were answered (failed ones too).
  bool wait_batches(std::size_t n) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, patience, [&] { return batches_ >= n; });
  }
  // Waits until the store holds `n` events of stream `id`.
  bool wait_stored(std::string_view id, std::uint64_t n) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, patience, [&] {
      auto i = inner->info(id);
      return i && i->next_seq >= n;
    });
  }
  bool wait_held_batch() {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, patience, [&] { return holding_; });
  }
  std::vector<std::string> log() {
    std::lock_guard lock(mu_);
    return log_;
  }

  std::vector<result<std::uint64_t>> append_batch(std::span<const stream_append> appends) override {
    std::unique_lock lock(mu_);
    holding_ = held_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !held_; });
    holding_ = false;
    std::vector<result<std::uint64_t>> out;
    if (down_) {
      for (std::size_t i = 0; i < appends.size(); ++i) out.push_back(unreachable());
    } else {
      out = inner->append_batch(appends);
      for (std::size_t i = 0; i < appends.size(); ++i) {
        if (out[i]) log_.push_back("append " + std::to_string(*out[i]) + ".." + std::to_string(*out[i] + appends[i].events.size() - 1));
      }
    }
    ++batches_;
    changed_.notify_all();
    return out;
  }
  result<std::uint64_t> append(std::string_view id, std::string_view chunk) override {
    stream_append one{id, {&chunk, 1}};
    return std::move(append_batch({&one, 1}).front());
  }
  result<void> put_head(std::string_view id, const replay_head& head) override {
    std::lock_guard lock(mu_);
    if (down_) return unreachable();
    log_.push_back("head " + std::to_string(head.upto));
    return inner->put_head(id, head);
  }
  result<void> create(std::string_view id) override { return up() ? inner->create(id) : unreachable(); }
  result<void> complete(std::string_view id) override { return up() ? inner->complete(id) : unreachable(); }
  result<platform::replay_info> info(std::string_view id) override { return up() ? inner->info(id) : unreachable(); }
  result<void> remove(std::string_view id) override { return inner->remove(id); }
  result<void> restore(std::string_view id, const replay_read& events) override {
    if (!up()) return unreachable();
    std::lock_guard lock(mu_);
    log_.push_back("restore");
    return inner->restore(id, events);
  }
  result<replay_read> read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) override {
    return inner->read_from(id, cursor, max_chunks);
  }
  result<std::optional<replay_head>> get_head(std::string_view id) override { return inner->get_head(id); }
  result<replay_read> wait_read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                std::chrono::milliseconds timeout) override {
    return inner->wait_read(id, cursor, max_chunks, timeout);
  }
  result<void> publish(std::string_view channel, std::string_view message) override { return inner->publish(channel, message); }
  result<std::unique_ptr<platform::subscription>> subscribe(std::string_view channel, platform::message_handler h) override {
    return inner->subscribe(channel, std::move(h));
  }

 private:
  bool up() {
    std::lock_guard lock(mu_);
    return !down_;
  }
  static tl::unexpected<platform::error> unreachable() { return platform::fail(api_error::cache_unavailable, "down"); }

  std::mutex mu_;
  std::condition_variable changed_;
  bool down_ = false, held_ = false, holding_ = false;
  std::size_t batches_ = 0;
  std::vector<std::string> log_;
};

std::string ev(int i) { return "data: {\"n\":" + std::to_string(i) + "}\n\n"; }

std::vector<std::string> events(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back(ev(i));
  return out;
}

std::vector<std::string> stored(cache_store& c, const std::string& id) {
  auto r = c.read_from(id, 0);
  REQUIRE(r);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < r->chunks.size(); ++i) {
    CHECK(r->chunks[i].seq == i);
    out.push_back(r->chunks[i].bytes);
  }
  return out;
}

TEST_CASE("with the batcher, every event reaches the store once, in order, and the stream completes") {
  flaky_store store;
  REQUIRE(store.create("s"));
  local_streams local;
  append_batcher batcher(store);
  {
    stream_writer w(store, local, &batcher, "s", replay_limits{}, 10s);
    for (int i = 0; i < 300; ++i) REQUIRE(w.append(ev(i)));
    // The window has every event at once, whatever the store has by now.
    auto window = local.find("s");
    REQUIRE(window);
    CHECK(window->read(0, SIZE_MAX)->chunks.size() == 300);
    REQUIRE(w.finish());
    CHECK(w.waiting() == 0);
  }
  CHECK(stored(store, "s") == events(0, 300));
  CHECK(store.read_from("s", 300, SIZE_MAX)->terminal);
  CHECK_FALSE(local.find("s"));
}

TEST_CASE("an outage mid-stream: what failed waits, nothing is doubled or lost, the stream goes on once the store is back") {
  flaky_store store;
  REQUIRE(store.create("s"));
  local_streams local;
  append_batcher batcher(store);
  stream_writer w(store, local, &batcher, "s", replay_limits{}, 1h);
  for (int i = 0; i < 5; ++i) REQUIRE(w.append(ev(i)));
  REQUIRE(store.wait_stored("s", 5));
  store.set_down(true);
  REQUIRE(w.append(ev(5)));  // the batcher's write of it fails
  std::size_t answered = store.log().size();
  REQUIRE(store.wait_batches(answered + 1));
  for (int i = 6; i < 9; ++i) REQUIRE(w.append(ev(i)));
  CHECK(w.waiting() >= 4);
  CHECK_FALSE(w.gave_up());
  store.set_down(false);
  REQUIRE(w.append(ev(9)));
  REQUIRE(w.finish());
  CHECK(stored(store, "s") == events(0, 10));
}

TEST_CASE("the store came back without the stream: it is put back under the same numbers and goes on") {
  flaky_store store;
  REQUIRE(store.create("s"));
  local_streams local;
  append_batcher batcher(store);
  stream_writer w(store, local, &batcher, "s", replay_limits{}, 1h);
  for (int i = 0; i < 3; ++i) REQUIRE(w.append(ev(i)));
  REQUIRE(store.wait_stored("s", 3));
  REQUIRE(store.inner->remove("s"));  // a restart that lost the data
  for (int i = 3; i < 6; ++i) REQUIRE(w.append(ev(i)));
  REQUIRE(w.finish());
  CHECK(stored(store, "s") == events(0, 6));
  auto log = store.log();
  CHECK(std::find(log.begin(), log.end(), "restore") != log.end());
}

TEST_CASE("a replay head goes to the store only after the events it stands for") {
  flaky_store store;
  REQUIRE(store.create("s"));
  local_streams local;
  append_batcher batcher(store);
  stream_writer w(store, local, &batcher, "s", replay_limits{}, 1h);
  store.hold(true);
  REQUIRE(w.append(ev(0)));
  REQUIRE(store.wait_held_batch());  // a batch of the first event is in flight, held
  for (int i = 1; i < 4; ++i) REQUIRE(w.append(ev(i)));
  w.put_head(replay_head{4, ev(100)});
  for (const auto& entry : store.log()) CHECK(entry.rfind("head", 0) != 0);
  store.hold(false);
  REQUIRE(w.finish());
  auto log = store.log();
  auto head = std::find(log.begin(), log.end(), "head 4");
  REQUIRE(head != log.end());
  // Every event below 4 was appended before it.
  std::uint64_t stored_before = 0;
  for (auto it = log.begin(); it != head; ++it) {
    if (it->rfind("append ", 0) == 0) stored_before = std::stoull(it->substr(it->find("..") + 2)) + 1;
  }
  CHECK(stored_before >= 4);
  CHECK(store.get_head("s").value()->upto == 4);
}

TEST_CASE("a writer that goes away while its batch is in flight waits for the batch, then leaves") {
  flaky_store store;
  REQUIRE(store.create("s"));
  local_streams local;
  append_batcher batcher(store);
  std::atomic<bool> gone{false};
  std::thread owner;
  {
    auto w = std::make_unique<stream_writer>(store, local, &batcher, "s", replay_limits{}, 1h);
    store.hold(true);
    REQUIRE(w->append(ev(0)));
    REQUIRE(store.wait_held_batch());
    owner = std::thread([&, w = std::move(w)]() mutable {
      w.reset();
      gone = true;
    });
  }
  // The destructor cannot return while the batch holds the writer.
  CHECK_FALSE(gone.load());
  store.hold(false);
  owner.join();
  CHECK(gone.load());
  CHECK(stored(store, "s") == events(0, 1));
}

TEST_CASE("without a batcher each append is written on the caller's thread") {
  flaky_store store;
  REQUIRE(store.create("s"));
  local_streams local;
  stream_writer w(store, local, nullptr, "s", replay_limits{}, 1h);
  REQUIRE(w.append(ev(0)));
  CHECK(stored(store, "s") == events(0, 1));
  REQUIRE(w.finish());
}

}  // namespace stream_writer_test
