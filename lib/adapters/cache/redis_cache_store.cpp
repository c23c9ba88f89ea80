// The Redis cache store (PLATFORM_REDIS_URL): replay buffers and pub/sub shared by every web
// replica. A replay buffer is a hash (first, next, complete, bytes) plus a list of events;
// append, read and complete are Lua scripts, so sequence numbers stay gap-free and a reader
// never sees half an update. Followers do not hold a Redis connection while they wait: each
// append or completion publishes the stream id on one notify channel, and the process's one
// subscriber connection wakes the local waiters of that stream.
#include <hiredis/hiredis.h>
#include <sys/socket.h>

#include <charconv>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "platform/cache_store.hpp"
#include "subscribers.hpp"

namespace platform {
namespace {

using reply_ptr = std::unique_ptr<redisReply, decltype(&freeReplyObject)>;
using context_ptr = std::unique_ptr<redisContext, decltype(&redisFree)>;

struct redis_address {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string password;
  int db = 0;
};

result<redis_address> parse_url(const std::string& url) {
  redis_address a;
  std::string_view rest(url);
  if (rest.substr(0, 8) != "redis://") return fail("invalid_config", "PLATFORM_REDIS_URL must start with redis://");
  rest.remove_prefix(8);
  auto slash = rest.find('/');
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  rest = rest.substr(0, slash);
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view auth = rest.substr(0, at);
    auto colon = auth.find(':');
    a.password = std::string(colon == std::string_view::npos ? auth : auth.substr(colon + 1));
    rest.remove_prefix(at + 1);
  }
  if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    auto port = rest.substr(colon + 1);
    auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
    if (ec != std::errc() || p != port.data() + port.size() || a.port <= 0 || a.port > 65535) {
      return fail("invalid_config", "PLATFORM_REDIS_URL has a bad port");
    }
    rest = rest.substr(0, colon);
  }
  if (!rest.empty()) a.host = std::string(rest);
  if (!path.empty()) {
    auto [p, ec] = std::from_chars(path.data(), path.data() + path.size(), a.db);
    if (ec != std::errc() || p != path.data() + path.size() || a.db < 0) {
      return fail("invalid_config", "PLATFORM_REDIS_URL has a bad database number");
    }
  }
  return a;
}

// Connects, authenticates and selects the database. Errors never include the password.
result<context_ptr> connect(const redis_address& a) {
  timeval timeout{5, 0};
  context_ptr c(redisConnectWithTimeout(a.host.c_str(), a.port, timeout), redisFree);
  if (!c || c->err) {
    return fail("cache_unavailable", "cannot connect to Redis at " + a.host + ":" + std::to_string(a.port) +
                                         (c ? std::string(": ") + c->errstr : std::string()));
  }
  auto command = [&](std::vector<std::string> args) -> result<void> {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (auto& s : args) {
      argv.push_back(s.data());
      lens.push_back(s.size());
    }
    reply_ptr r(static_cast<redisReply*>(redisCommandArgv(c.get(), static_cast<int>(argv.size()), argv.data(), lens.data())),
                freeReplyObject);
    if (!r || r->type == REDIS_REPLY_ERROR) return fail("cache_unavailable", "Redis refused " + args[0]);
    return {};
  };
  if (!a.password.empty()) {
    if (auto r = command({"AUTH", a.password}); !r) return tl::unexpected(error{"cache_unavailable", "Redis refused the password"});
  }
  if (a.db != 0) {
    if (auto r = command({"SELECT", std::to_string(a.db)}); !r) return tl::unexpected(r.error());
  }
  return c;
}

constexpr const char* create_script = R"(
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('replay_exists') end
redis.call('HSET', KEYS[1], 'first', 0, 'next', 0, 'complete', 0, 'bytes', 0)
redis.call('DEL', KEYS[2])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1)";

constexpr const char* append_script = R"(
local m = redis.call('HMGET', KEYS[1], 'complete')
if not m[1] then return redis.error_reply('replay_not_found') end
if m[1] == '1' then return redis.error_reply('replay_complete') end
local seq = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('RPUSH', KEYS[2], ARGV[1])
local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', string.len(ARGV[1]))
local n = redis.call('LLEN', KEYS[2])
while n > 1 and (n > tonumber(ARGV[2]) or bytes > tonumber(ARGV[3])) do
  local old = redis.call('LPOP', KEYS[2])
  bytes = redis.call('HINCRBY', KEYS[1], 'bytes', -string.len(old))
  redis.call('HINCRBY', KEYS[1], 'first', 1)
  n = n - 1
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return seq)";

constexpr const char* complete_script = R"(
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('replay_not_found') end
redis.call('HSET', KEYS[1], 'complete', 1)
redis.call('EXPIRE', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1)";

// Returns {first, next, complete, bytes, events from cursor...}.
constexpr const char* read_script = R"(
local m = redis.call('HMGET', KEYS[1], 'first', 'next', 'complete', 'bytes')
if not m[1] then return redis.error_reply('replay_not_found') end
local first, nxt, cursor, max = tonumber(m[1]), tonumber(m[2]), tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {m[1], m[2], m[3], m[4]}
if cursor >= first and cursor < nxt and max > 0 then
  local items = redis.call('LRANGE', KEYS[2], cursor - first, cursor - first + max - 1)
  for i = 1, #items do out[#out + 1] = items[i] end
end
return out)";

struct waiters {
  std::condition_variable cv;
  std::uint64_t generation = 0;
  int count = 0;
};

std::uint64_t to_u64(const redisReply* r) {
  std::uint64_t v = 0;
  if (r && r->type == REDIS_REPLY_STRING) std::from_chars(r->str, r->str + r->len, v);
  if (r && r->type == REDIS_REPLY_INTEGER) v = static_cast<std::uint64_t>(r->integer);
  return v;
}

class redis_cache_store final : public cache_store {
 public:
  redis_cache_store(redis_address addr, redis_cache_options options)
      : addr_(std::move(addr)), opt_(std::move(options)) {}

  ~redis_cache_store() override {
    {
      std::lock_guard lock(sub_conn_mu_);
      stopping_ = true;
      if (sub_fd_ >= 0) ::shutdown(sub_fd_, SHUT_RDWR);
    }
    stop_cv_.notify_all();
    if (reader_.joinable()) reader_.join();
  }

  result<void> start() {
    auto c = connect(addr_);
    if (!c) return tl::unexpected(c.error());
    pool_.push_back(std::move(*c));
    reader_ = std::thread([this] { read_loop(); });
    // Messages published before the subscriber listens would be lost: wait for it.
    std::unique_lock lock(sub_conn_mu_);
    if (!stop_cv_.wait_for(lock, std::chrono::seconds(5), [&] { return subscribed_; })) {
      return fail("cache_unavailable", "the Redis subscriber did not start");
    }
    return {};
  }

  // ---- replay buffers --------------------------------------------------------------------
  result<void> create(std::string_view id) override {
    auto r = eval(create_script, id, {std::to_string(opt_.live_ttl.count())});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<std::uint64_t> append(std::string_view id, std::string_view chunk) override {
    auto r = eval(append_script, id,
                  {std::string(chunk), std::to_string(std::max<std::size_t>(opt_.limits.max_chunks, 1)),
                   std::to_string(opt_.limits.max_bytes), std::to_string(opt_.live_ttl.count()), notify_channel(),
                   std::string(id)});
    if (!r) return tl::unexpected(r.error());
    return to_u64(r->get());
  }

  result<void> complete(std::string_view id) override {
    auto r = eval(complete_script, id, {std::to_string(opt_.completed_ttl.count()), notify_channel(), std::string(id)});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<replay_read> read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) override {
    std::size_t want = std::min<std::size_t>(max_chunks, 1u << 20);
    auto r = eval(read_script, id, {std::to_string(cursor), std::to_string(want)});
    if (!r) return tl::unexpected(r.error());
    const redisReply* a = r->get();
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
    for (std::size_t i = 4; i < a->elements; ++i) {
      out.chunks.push_back({cursor + (i - 4), std::string(a->element[i]->str, a->element[i]->len)});
    }
    out.next_cursor = cursor + out.chunks.size();
    out.at_end = out.next_cursor == next;
    out.terminal = out.at_end && complete;
    return out;
  }

  result<replay_info> info(std::string_view id) override {
    auto r = eval(read_script, id, {"0", "0"});
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
    auto r = command({"DEL", meta_key(id), data_key(id)});
    if (!r) return tl::unexpected(r.error());
    (void)command({"PUBLISH", notify_channel(), std::string(id)});
    return {};
  }

  result<replay_read> wait_read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                std::chrono::milliseconds timeout) override {
    auto group = join_waiters(id);
    auto leave = [&] { leave_waiters(id); };
    std::uint64_t seen;
    {
      std::lock_guard lock(wait_mu_);
      seen = group->generation;
    }
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto r = read_from(id, cursor, max_chunks);
      if (!r || r->status != replay_status::ok || !r->chunks.empty() || r->terminal) {
        leave();
        return r;
      }
      std::unique_lock lock(wait_mu_);
      bool woke = group->cv.wait_until(lock, deadline, [&] { return group->generation != seen; });
      seen = group->generation;
      lock.unlock();
      if (!woke) {
        auto last = read_from(id, cursor, max_chunks);
        leave();
        return last;
      }
    }
  }

  // ---- pub/sub -----------------------------------------------------------------------------
  result<void> publish(std::string_view channel, std::string_view message) override {
    auto r = command({"PUBLISH", event_channel(channel), std::string(message)});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<std::unique_ptr<subscription>> subscribe(std::string_view channel, message_handler on_message) override {
    return subscribers_.add(channel, std::move(on_message));
  }

 private:
  std::string meta_key(std::string_view id) const { return opt_.key_prefix + "rs:{" + std::string(id) + "}:meta"; }
  std::string data_key(std::string_view id) const { return opt_.key_prefix + "rs:{" + std::string(id) + "}:data"; }
  std::string notify_channel() const { return opt_.key_prefix + "rn"; }
  std::string event_channel(std::string_view channel) const { return opt_.key_prefix + "ch:" + std::string(channel); }

  result<reply_ptr> eval(const char* script, std::string_view id, std::vector<std::string> args) {
    std::vector<std::string> argv = {"EVAL", script, "2", meta_key(id), data_key(id)};
    for (auto& a : args) argv.push_back(std::move(a));
    return command(std::move(argv));
  }

  // One command on a pooled connection; a broken connection is replaced and the command
  // retried once (every command here is idempotent or guarded by its script).
  result<reply_ptr> command(std::vector<std::string> args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (auto& s : args) {
      argv.push_back(s.data());
      lens.push_back(s.size());
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
      auto c = lease();
      if (!c) return tl::unexpected(c.error());
      reply_ptr r(static_cast<redisReply*>(redisCommandArgv(c->get(), static_cast<int>(argv.size()), argv.data(), lens.data())),
                  freeReplyObject);
      if (!r || (*c)->err) continue;  // the connection is dropped with `c`
      give_back(std::move(*c));
      if (r->type == REDIS_REPLY_ERROR) {
        std::string msg(r->str, r->len);
        for (const char* code : {"replay_not_found", "replay_exists", "replay_complete"}) {
          if (msg.find(code) != std::string::npos) return fail(code, "replay buffer: " + std::string(code));
        }
        return fail("cache_unavailable", "Redis error: " + msg);
      }
      return r;
    }
    return fail("cache_unavailable", "the Redis connection failed");
  }

  result<context_ptr> lease() {
    {
      std::lock_guard lock(pool_mu_);
      if (!pool_.empty()) {
        auto c = std::move(pool_.back());
        pool_.pop_back();
        return c;
      }
    }
    return connect(addr_);
  }

  void give_back(context_ptr c) {
    std::lock_guard lock(pool_mu_);
    if (pool_.size() < 16) pool_.push_back(std::move(c));
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
    auto it = waiting_.find(std::string(id));
    if (it != waiting_.end() && --it->second->count == 0) waiting_.erase(it);
  }

  void wake(std::string_view id) {
    std::lock_guard lock(wait_mu_);
    auto it = waiting_.find(std::string(id));
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

  // The subscriber: PSUBSCRIBE to every event channel and SUBSCRIBE to the notify channel on
  // one connection without a read timeout; on any failure reconnect with backoff and wake
  // every waiter, since notifications may have been missed meanwhile.
  void read_loop() {
    std::chrono::milliseconds backoff{50};
    while (true) {
      {
        std::lock_guard lock(sub_conn_mu_);
        if (stopping_) return;
      }
      auto c = connect(addr_);
      if (c && subscribe_all(c->get())) {
        {
          std::lock_guard lock(sub_conn_mu_);
          if (stopping_) return;
          sub_fd_ = (*c)->fd;
          subscribed_ = true;
        }
        stop_cv_.notify_all();
        backoff = std::chrono::milliseconds(50);
        wake_all();
        pump(c->get());
        std::lock_guard lock(sub_conn_mu_);
        sub_fd_ = -1;
      }
      wake_all();
      std::unique_lock lock(sub_conn_mu_);
      if (stopping_) return;
      stop_cv_.wait_for(lock, backoff, [&] { return stopping_; });
      backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
    }
  }

  bool subscribe_all(redisContext* c) {
    std::string pattern = opt_.key_prefix + "ch:*";
    std::string notify = notify_channel();
    for (auto* cmd : {"PSUBSCRIBE", "SUBSCRIBE"}) {
      const std::string& arg = std::string(cmd) == "PSUBSCRIBE" ? pattern : notify;
      const char* argv[] = {cmd, arg.c_str()};
      std::size_t lens[] = {std::strlen(cmd), arg.size()};
      reply_ptr r(static_cast<redisReply*>(redisCommandArgv(c, 2, argv, lens)), freeReplyObject);
      if (!r || c->err) return false;
    }
    return true;
  }

  void pump(redisContext* c) {
    std::string event_prefix = opt_.key_prefix + "ch:";
    std::string notify = notify_channel();
    for (;;) {
      void* raw = nullptr;
      if (redisGetReply(c, &raw) != REDIS_OK || !raw) return;
      reply_ptr r(static_cast<redisReply*>(raw), freeReplyObject);
      if (r->type != REDIS_REPLY_ARRAY || r->elements < 3) continue;
      std::string_view kind(r->element[0]->str, r->element[0]->len);
      if (kind == "pmessage" && r->elements == 4) {
        std::string_view channel(r->element[2]->str, r->element[2]->len);
        if (channel.substr(0, event_prefix.size()) == event_prefix) {
          subscribers_.deliver(channel.substr(event_prefix.size()), std::string_view(r->element[3]->str, r->element[3]->len));
        }
      } else if (kind == "message") {
        std::string_view channel(r->element[1]->str, r->element[1]->len);
        if (channel == notify) wake(std::string_view(r->element[2]->str, r->element[2]->len));
      }
    }
  }

  redis_address addr_;
  redis_cache_options opt_;
  std::mutex pool_mu_;
  std::vector<context_ptr> pool_;
  std::mutex wait_mu_;
  std::map<std::string, std::shared_ptr<waiters>> waiting_;
  detail::subscriber_table subscribers_;
  std::mutex sub_conn_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  bool subscribed_ = false;
  int sub_fd_ = -1;
  std::thread reader_;
};

}  // namespace

result<std::unique_ptr<cache_store>> make_redis_cache_store(redis_cache_options options) {
  auto addr = parse_url(options.url);
  if (!addr) return tl::unexpected(addr.error());
  auto store = std::make_unique<redis_cache_store>(std::move(*addr), std::move(options));
  if (auto r = store->start(); !r) return tl::unexpected(r.error());
  return std::unique_ptr<cache_store>(std::move(store));
}

}  // namespace platform
