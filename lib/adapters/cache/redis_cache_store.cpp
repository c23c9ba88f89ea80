// The Redis cache store (PLATFORM_REDIS_URL): replay buffers and pub/sub shared by every web
// replica.
//
// A replay buffer is a hash (first, next, complete, bytes, and the last write's token) plus a
// list of events, both under `key_prefix`. Create, append, complete and read are Lua
// scripts, so sequence numbers stay exact and gap-free across replicas, the limits drop the
// oldest events in the same step, and a reader never sees half an update. Every write
// carries a token of its own: when a connection breaks after Redis ran the script but before
// the reply came back, the retried write finds its token and answers as the first one did,
// so an event is never stored twice.
//
// Followers do not hold a Redis connection while they wait: each append, completion or
// removal publishes the stream id on one notify channel, and the store's subscriber
// connection wakes the local waiters of that stream. After the subscriber reconnects every
// waiter reads again, since notifications may have been missed meanwhile.
#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>

#include "platform/cache_store.hpp"
#include "redis_client.hpp"
#include "redis_subscriber.hpp"
#include "subscribers.hpp"

namespace platform {
namespace {

using namespace std::chrono_literals;
using detail::redis_reply;

constexpr auto connect_timeout = 2000ms;
constexpr auto command_timeout = 10000ms;
constexpr auto confirm_timeout = 5000ms;  // for Redis to confirm a SUBSCRIBE

// KEYS: meta, data. ARGV: live ttl, token.
constexpr std::string_view create_lua = R"(
local owner = redis.call('HGET', KEYS[1], 'created_by')
if owner then
  if owner == ARGV[2] then return 1 end
  return redis.error_reply('replay_exists')
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'first', 0, 'next', 0, 'complete', 0, 'bytes', 0, 'created_by', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1)";

// KEYS: meta, data. ARGV: event, max chunks, max bytes, live ttl, notify channel, stream id,
// token. Returns the event's sequence number.
constexpr std::string_view append_lua = R"(
local m = redis.call('HMGET', KEYS[1], 'complete', 'op', 'op_seq')
if not m[1] then return redis.error_reply('replay_not_found') end
if m[2] == ARGV[7] then return tonumber(m[3]) end
if m[1] == '1' then return redis.error_reply('replay_complete') end
local seq = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('RPUSH', KEYS[2], ARGV[1])
local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', string.len(ARGV[1]))
local n = redis.call('LLEN', KEYS[2])
local max_chunks, max_bytes = tonumber(ARGV[2]), tonumber(ARGV[3])
while n > 1 and (n > max_chunks or bytes > max_bytes) do
  local old = redis.call('LPOP', KEYS[2])
  bytes = redis.call('HINCRBY', KEYS[1], 'bytes', -string.len(old))
  redis.call('HINCRBY', KEYS[1], 'first', 1)
  n = n - 1
end
redis.call('HSET', KEYS[1], 'op', ARGV[7], 'op_seq', seq)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return seq)";

// KEYS: meta, data. ARGV: completed ttl, notify channel, stream id.
constexpr std::string_view complete_lua = R"(
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('replay_not_found') end
if redis.call('HGET', KEYS[1], 'complete') ~= '1' then
  redis.call('HSET', KEYS[1], 'complete', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1)";

// KEYS: meta, data. ARGV: cursor, max chunks. Returns {first, next, complete, bytes, events
// from the cursor...}; the caller decides expired/ahead from first and next.
constexpr std::string_view read_lua = R"(
local m = redis.call('HMGET', KEYS[1], 'first', 'next', 'complete', 'bytes')
if not m[1] then return redis.error_reply('replay_not_found') end
local first, nxt, cursor, max = tonumber(m[1]), tonumber(m[2]), tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {m[1], m[2], m[3], m[4]}
if cursor >= first and cursor < nxt and max > 0 then
  local items = redis.call('LRANGE', KEYS[2], cursor - first, cursor - first + max - 1)
  for i = 1, #items do out[#out + 1] = items[i] end
end
return out)";

struct script {
  std::string_view lua;
  std::string sha;  // from SCRIPT LOAD; empty until then
};

struct waiters {
  std::condition_variable cv;
  std::uint64_t generation = 0;
  int count = 0;
};

std::uint64_t to_u64(const redisReply* r) {
  std::uint64_t v = 0;
  if (r != nullptr && r->type == REDIS_REPLY_STRING) std::from_chars(r->str, r->str + r->len, v);
  if (r != nullptr && r->type == REDIS_REPLY_INTEGER && r->integer > 0) v = static_cast<std::uint64_t>(r->integer);
  return v;
}

std::string_view error_text(const redisReply* r) {
  return r->type == REDIS_REPLY_ERROR ? std::string_view(r->str, r->len) : std::string_view();
}

std::string random_token() {
  std::random_device rd;
  std::uint64_t v = (std::uint64_t(rd()) << 32) ^ rd();
  return std::to_string(v);
}

std::string seconds(std::chrono::seconds s) { return std::to_string(std::max<std::int64_t>(s.count(), 1)); }

// The script's own error codes pass through; anything else Redis says is a transport issue
// for the caller.
tl::unexpected<error> script_error(std::string_view message) {
  for (std::string_view code : {"replay_not_found", "replay_exists", "replay_complete"}) {
    if (message.find(code) != std::string_view::npos) return fail(std::string(code), "replay buffer: " + std::string(code));
  }
  return fail("cache_unavailable", "Redis error: " + std::string(message));
}

class redis_cache_store final : public cache_store {
 public:
  redis_cache_store(detail::redis_address addr, redis_cache_options options)
      : opt_(std::move(options)),
        pool_(addr, command_timeout),
        subscriber_(std::make_shared<detail::redis_subscriber>(
            addr, connect_timeout, [this](std::string_view ch, std::string_view m) { on_message(ch, m); },
            [this](std::string_view ch) { on_confirmed(ch); })) {}

  ~redis_cache_store() override { subscriber_->stop(); }

  result<void> start() {
    for (script* s : {&create_, &append_, &complete_, &read_}) {
      auto r = pool_.call({"SCRIPT", "LOAD", s->lua});
      if (!r) return tl::unexpected(r.error());
      if ((*r)->type == REDIS_REPLY_STRING) s->sha.assign((*r)->str, (*r)->len);
    }
    subscriber_->start();
    // Waiters rely on the notify channel: without it wait_read could sleep through appends.
    return subscriber_->retain(notify_channel(), confirm_timeout);
  }

  // ---- replay buffers --------------------------------------------------------------------
  result<void> create(std::string_view id) override {
    auto r = eval(create_, id, {seconds(opt_.live_ttl), next_token()});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<std::uint64_t> append(std::string_view id, std::string_view chunk) override {
    std::string max_chunks = std::to_string(std::max<std::size_t>(opt_.limits.max_chunks, 1));
    std::string max_bytes = std::to_string(opt_.limits.max_bytes);
    auto r = eval(append_, id, {chunk, max_chunks, max_bytes, seconds(opt_.live_ttl), notify_channel(), id, next_token()});
    if (!r) return tl::unexpected(r.error());
    return to_u64(r->get());
  }

  result<void> complete(std::string_view id) override {
    auto r = eval(complete_, id, {seconds(opt_.completed_ttl), notify_channel(), id});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<replay_read> read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) override {
    // Bounded so one reply stays a sane size; the caller reads on from next_cursor.
    std::size_t want = std::min<std::size_t>(max_chunks, std::size_t(1) << 16);
    auto r = eval(read_, id, {std::to_string(cursor), std::to_string(want)});
    if (!r) return tl::unexpected(r.error());
    return to_read(r->get(), cursor);
  }

  result<replay_info> info(std::string_view id) override {
    auto r = eval(read_, id, {"0", "0"});
    if (!r) return tl::unexpected(r.error());
    const redisReply* a = r->get();
    if (a->type != REDIS_REPLY_ARRAY || a->elements < 4) return fail("cache_unavailable", "unexpected Redis reply");
    replay_info i;
    i.first_seq = to_u64(a->element[0]);
    i.next_seq = to_u64(a->element[1]);
    i.complete = to_u64(a->element[2]) == 1;
    i.retained_bytes = to_u64(a->element[3]);
    i.retained_chunks = static_cast<std::size_t>(i.next_seq - i.first_seq);
    i.starts_at_beginning = i.first_seq == 0;
    return i;
  }

  result<void> remove(std::string_view id) override {
    auto r = pool_.call({"DEL", meta_key(id), data_key(id)});
    if (!r) return tl::unexpected(r.error());
    (void)pool_.call({"PUBLISH", notify_channel(), id});  // followers learn it at once
    return {};
  }

  result<replay_read> wait_read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                std::chrono::milliseconds timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    // Joined before the first read, so a notification between that read and the wait
    // still counts.
    auto group = join_waiters(id);
    auto result = wait_loop(*group, id, cursor, max_chunks, deadline);
    leave_waiters(id);
    return result;
  }

  // ---- pub/sub -----------------------------------------------------------------------------
  result<void> publish(std::string_view channel, std::string_view message) override {
    auto r = pool_.call({"PUBLISH", event_channel(channel), message});
    if (!r) return tl::unexpected(r.error());
    if (auto e = error_text(r->get()); !e.empty()) return fail("cache_unavailable", "Redis error: " + std::string(e));
    return {};
  }

  result<std::unique_ptr<subscription>> subscribe(std::string_view channel, message_handler on_message) override {
    std::string redis_channel = event_channel(channel);
    std::weak_ptr<detail::redis_subscriber> link = subscriber_;
    auto handle = subscribers_->add(channel, std::move(on_message), [link, redis_channel] {
      if (auto s = link.lock()) s->release(redis_channel);
    });
    // On failure `handle` goes out of scope and gives the reference back.
    if (auto r = subscriber_->retain(redis_channel, confirm_timeout); !r) return tl::unexpected(r.error());
    return handle;
  }

 private:
  std::string meta_key(std::string_view id) const { return opt_.key_prefix + "rs:{" + std::string(id) + "}:meta"; }
  std::string data_key(std::string_view id) const { return opt_.key_prefix + "rs:{" + std::string(id) + "}:data"; }
  std::string notify_channel() const { return opt_.key_prefix + "rn"; }
  std::string event_channel(std::string_view channel) const { return opt_.key_prefix + "ch:" + std::string(channel); }
  std::string next_token() { return token_prefix_ + ":" + std::to_string(++ops_); }

  // EVALSHA, falling back to EVAL when Redis lost its script cache (a restart).
  result<redis_reply> eval(script& s, std::string_view id, std::vector<std::string_view> args) {
    std::string meta = meta_key(id), data = data_key(id);
    std::vector<std::string_view> argv{"EVALSHA", s.sha, "2", meta, data};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = pool_.call(argv);
    if (r && error_text(r->get()).substr(0, 8) == "NOSCRIPT") {
      argv[0] = "EVAL";
      argv[1] = s.lua;
      r = pool_.call(argv);
    }
    if (!r) return r;
    if (auto e = error_text(r->get()); !e.empty()) return script_error(e);
    return r;
  }

  // Mirrors replay_buffer::read_from, so both stores answer the same history alike.
  static result<replay_read> to_read(const redisReply* a, std::uint64_t cursor) {
    if (a->type != REDIS_REPLY_ARRAY || a->elements < 4) return fail("cache_unavailable", "unexpected Redis reply");
    std::uint64_t first = to_u64(a->element[0]), next = to_u64(a->element[1]);
    bool complete = to_u64(a->element[2]) == 1;
    replay_read out;
    out.next_cursor = cursor;
    if (cursor < first) {
      out.status = replay_status::cursor_expired;
      return out;
    }
    if (cursor > next) {
      out.status = replay_status::cursor_ahead;
      return out;
    }
    out.chunks.reserve(a->elements - 4);
    for (std::size_t i = 4; i < a->elements; ++i) {
      out.chunks.push_back({cursor + (i - 4), std::string(a->element[i]->str, a->element[i]->len)});
    }
    out.next_cursor = cursor + out.chunks.size();
    out.at_end = out.next_cursor == next;
    out.terminal = out.at_end && complete;
    return out;
  }

  static bool worth_waiting(const result<replay_read>& r) {
    return r && r->status == replay_status::ok && r->chunks.empty() && r->at_end && !r->terminal;
  }

  result<replay_read> wait_loop(waiters& group, std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                std::chrono::steady_clock::time_point deadline) {
    std::uint64_t seen;
    {
      std::lock_guard lock(wait_mu_);
      seen = group.generation;
    }
    for (;;) {
      auto r = read_from(id, cursor, max_chunks);
      if (!worth_waiting(r)) return r;
      std::unique_lock lock(wait_mu_);
      if (!group.cv.wait_until(lock, deadline, [&] { return group.generation != seen; })) {
        lock.unlock();
        return read_from(id, cursor, max_chunks);
      }
      seen = group.generation;
    }
  }

  std::shared_ptr<waiters> join_waiters(std::string_view id) {
    std::lock_guard lock(wait_mu_);
    auto& g = waiting_[std::string(id)];
    if (!g) g = std::make_shared<waiters>();
    ++g->count;
    return g;
  }

  void leave_waiters(std::string_view id) {
    std::lock_guard lock(wait_mu_);
    auto it = waiting_.find(id);
    if (it != waiting_.end() && --it->second->count == 0) waiting_.erase(it);
  }

  void wake(std::string_view id) {
    std::lock_guard lock(wait_mu_);
    auto it = waiting_.find(id);
    if (it == waiting_.end()) return;
    ++it->second->generation;
    it->second->cv.notify_all();
  }

  void wake_all() {
    std::lock_guard lock(wait_mu_);
    for (auto& [id, g] : waiting_) {
      ++g->generation;
      g->cv.notify_all();
    }
  }

  // On the subscriber thread.
  void on_message(std::string_view channel, std::string_view message) {
    if (channel == notify_channel()) return wake(message);
    std::string prefix = opt_.key_prefix + "ch:";
    if (channel.substr(0, prefix.size()) == prefix) subscribers_->deliver(channel.substr(prefix.size()), message);
  }

  void on_confirmed(std::string_view channel) {
    if (channel == notify_channel()) wake_all();
  }

  redis_cache_options opt_;
  detail::redis_pool pool_;
  std::string token_prefix_ = random_token();
  std::atomic<std::uint64_t> ops_{0};
  script create_{create_lua, {}}, append_{append_lua, {}}, complete_{complete_lua, {}}, read_{read_lua, {}};
  std::mutex wait_mu_;
  std::map<std::string, std::shared_ptr<waiters>, std::less<>> waiting_;
  std::shared_ptr<detail::subscriber_table> subscribers_ = std::make_shared<detail::subscriber_table>();
  std::shared_ptr<detail::redis_subscriber> subscriber_;  // stopped first: its callbacks use the members above
};

}  // namespace

result<std::unique_ptr<cache_store>> make_redis_cache_store(redis_cache_options options) {
  auto addr = detail::parse_redis_url(options.url);
  if (!addr) return tl::unexpected(addr.error());
  auto store = std::make_unique<redis_cache_store>(std::move(*addr), std::move(options));
  if (auto r = store->start(); !r) return tl::unexpected(r.error());
  return std::unique_ptr<cache_store>(std::move(store));
}

}  // namespace platform
