// The Redis cache store (PLATFORM_REDIS_URL): replay buffers and pub/sub shared by every web
// replica.
//
// A replay buffer is three keys under `key_prefix`: a hash (first and next sequence numbers,
// complete, retained bytes, the physical layout, and the last write's token), a string of
// every retained event's bytes back to back, and a string of their start offsets, fixed-width
// decimal. Reading a backlog is then two GETRANGEs and a reply of two bulk strings, whatever
// the number of events: a list element or a Lua table entry per event made a 10,000-event
// resume cost several milliseconds in Redis alone. Create, append, complete and read are Lua
// scripts, so sequence numbers stay exact and gap-free across replicas, the limits drop the
// oldest events in the same step, and a reader never sees half an update. Dropping an event
// only moves `first`; the dropped bytes are cut off the strings once they outweigh what is
// retained, so appends stay amortized O(size of the event) and memory stays within twice the
// limits. Every write carries a token of its own: when a connection breaks after Redis ran
// the script but before the reply came back, the retried write finds its token and answers
// as the first one did, so an event is never stored twice.
//
// Followers do not hold a Redis connection while they wait: each append (with its last event's
// number), completion or removal publishes the stream id on one notify channel, and the
// store's subscriber connection wakes the local waiters of that stream. After the subscriber
// reconnects every waiter reads again, since notifications may have been missed meanwhile.
//
// A stream's viewers mostly sit on the replica that produces it (the chat POST itself). For
// them an append also keeps the event in `recent_appends` and wakes the local waiters at once,
// so an event costs Redis one script (the append), not the append and a read per replica
// reading it, and reaches them without the notification's hop: with 100 turns at once on one
// replica, Redis's work per event had put a chunk's p50 at 13 ms.
#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <span>

#include "adapters/cache_store.hpp"
#include "platform/api_error.hpp"
#include "platform/replay_buffer.hpp"
#include "platform/replay_head.hpp"
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

// Offsets are absolute byte positions since the stream began; `pfirst` is the sequence number
// of the first offset stored and `pbase` the absolute position of the data string's first byte.
constexpr int offset_width = 12;

// KEYS: meta, data, offsets. ARGV: live ttl, token, the first event's sequence number (0; more
// when a producer puts back a stream the server lost).
constexpr std::string_view create_lua = R"(
local owner = redis.call('HGET', KEYS[1], 'created_by')
if owner then
  if owner == ARGV[2] then return 1 end
  return redis.error_reply('replay_exists')
end
local start = tonumber(ARGV[3])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'first', start, 'next', start, 'complete', 0, 'bytes', 0, 'pfirst', start, 'pbase', 0,
           'end', 0, 'created_by', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1)";

// KEYS: meta, data, offsets. ARGV: max chunks, max bytes, live ttl, notify channel, stream id,
// token, then the events in order. Returns the first event's sequence number. One script and
// one notification (carrying the last event's number) for all of them.
constexpr std::string_view append_lua = R"(
local m = redis.call('HMGET', KEYS[1], 'complete', 'op', 'op_seq', 'first', 'next', 'bytes', 'pfirst', 'pbase', 'end')
if not m[1] then return redis.error_reply('replay_not_found') end
if m[2] == ARGV[6] then return tonumber(m[3]) end
if m[1] == '1' then return redis.error_reply('replay_complete') end
local first, seq, bytes = tonumber(m[4]), tonumber(m[5]), tonumber(m[6])
local pfirst, pbase, stop = tonumber(m[7]), tonumber(m[8]), tonumber(m[9])
local function offset(s)
  local at = (s - pfirst) * 12
  return tonumber(redis.call('GETRANGE', KEYS[3], at, at + 11))
end
local count = #ARGV - 6
local offs = {}
for i = 1, count do
  offs[i] = string.format('%012d', stop)
  local len = string.len(ARGV[6 + i])
  stop = stop + len
  bytes = bytes + len
end
redis.call('APPEND', KEYS[2], table.concat(ARGV, '', 7))
redis.call('APPEND', KEYS[3], table.concat(offs))
local n = seq + count - first
local max_chunks, max_bytes = tonumber(ARGV[1]), tonumber(ARGV[2])
while n > 1 and (n > max_chunks or bytes > max_bytes) do
  bytes = bytes - (offset(first + 1) - offset(first))
  first = first + 1
  n = n - 1
end
local live_from = offset(first)
if live_from - pbase > stop - live_from then
  local data = redis.call('GETRANGE', KEYS[2], live_from - pbase, -1)
  local rest = redis.call('GETRANGE', KEYS[3], (first - pfirst) * 12, -1)
  redis.call('SET', KEYS[2], data)
  redis.call('SET', KEYS[3], rest)
  pfirst, pbase = first, live_from
end
redis.call('HSET', KEYS[1], 'first', first, 'next', seq + count, 'bytes', bytes, 'pfirst', pfirst, 'pbase', pbase,
           'end', stop, 'op', ARGV[6], 'op_seq', seq)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[3], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5] .. '\n' .. (seq + count - 1))
return seq)";

// KEYS: meta, data, offsets. ARGV: completed ttl, notify channel, stream id.
constexpr std::string_view complete_lua = R"(
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('replay_not_found') end
if redis.call('HGET', KEYS[1], 'complete') ~= '1' then
  redis.call('HSET', KEYS[1], 'complete', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[1])
  redis.call('EXPIRE', KEYS[3], ARGV[1])
end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1)";

// KEYS: meta, data, offsets. ARGV: cursor, max chunks, most bytes to return inline. Returns {first,
// next, complete, bytes} and, when there are events from the cursor, {their offsets, end
// offset, their bytes or false, pfirst, pbase, created_by}. The caller decides expired/ahead
// from first and next and splits the bytes at the offsets. Beyond the inline limit the caller
// fetches the bytes itself with a plain GETRANGE: a big string passed through Lua costs
// several copies in Redis, a GETRANGE one; a small one is not worth a second round trip.
constexpr std::string_view read_lua = R"(
local m = redis.call('HMGET', KEYS[1], 'first', 'next', 'complete', 'bytes', 'pfirst', 'pbase', 'end', 'created_by')
if not m[1] then return redis.error_reply('replay_not_found') end
local first, nxt, cursor, max = tonumber(m[1]), tonumber(m[2]), tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {m[1], m[2], m[3], m[4]}
if cursor >= first and cursor < nxt and max > 0 then
  local pfirst, pbase = tonumber(m[5]), tonumber(m[6])
  local last = math.min(nxt, cursor + max)
  local offs = redis.call('GETRANGE', KEYS[3], (cursor - pfirst) * 12, (last - pfirst) * 12 - 1)
  local stop = tonumber(m[7])
  if last < nxt then
    local at = (last - pfirst) * 12
    stop = tonumber(redis.call('GETRANGE', KEYS[3], at, at + 11))
  end
  local from = tonumber(string.sub(offs, 1, 12))
  local data = false
  if stop - from <= tonumber(ARGV[3]) then
    data = ''
    if stop > from then data = redis.call('GETRANGE', KEYS[2], from - pbase, stop - pbase - 1) end
  end
  out[5], out[6], out[7], out[8], out[9], out[10] = offs, tostring(stop), data, m[5], m[6], m[8]
end
return out)";

// KEYS: meta, head. ARGV: the head ("upto\n" then its events). The head lives as long as the
// stream: it takes the meta key's remaining TTL (complete() shortens both).
constexpr std::string_view put_head_lua = R"(
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return redis.error_reply('replay_not_found') end
redis.call('SET', KEYS[2], ARGV[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1)";

struct script {
  std::string_view lua;
  std::string sha;  // from SCRIPT LOAD; empty until then
};

struct waiters {
  std::condition_variable cv;
  std::uint64_t generation = 0;
  int count = 0;
  // After a wake-up the group reads Redis once: the first waiter to ask reads from its cursor,
  // and every waiter of the same generation at the same cursor takes that answer. A live
  // stream's viewers all wait at its tail, so one append costs one read, not one per viewer.
  std::condition_variable read_done;  // apart from cv: a read's end wakes only its sharers
  bool reading = false;
  std::uint64_t read_generation = 0;
  std::uint64_t read_cursor = 0;
  std::size_t read_max = 0;
  std::shared_ptr<const result<replay_read>> read;
};

// The last events this process appended to each stream it produces, and where that stream
// ends as far as this process knows. An event Redis gave a number never changes, so those are
// answered from here; a reader at the end is told to wait without asking Redis, because an
// event from anyone else arrives as a notification carrying its number, which this process
// does not know yet: then the stream is forgotten here and its readers ask Redis again. So
// the only round trip per event is its append. Kept within the stream's own limits (never
// older than what Redis retains), dropped on complete, create and remove, bounded in number.
class recent_appends {
 public:
  explicit recent_appends(const replay_limits& l) {
    window_.max_chunks = std::min<std::size_t>(per_stream_chunks, std::max<std::size_t>(l.max_chunks, 1));
    window_.max_bytes = std::min<std::size_t>(per_stream_bytes, l.max_bytes);
  }

  // Before `count` events are sent: their notification may come back before the reply.
  void appending(std::string_view id, std::size_t count) {
    std::lock_guard lock(mu_);
    auto it = streams_.find(id);
    if (it == streams_.end()) {
      if (streams_.size() >= max_streams) forget_least_recent();
      it = streams_.emplace(std::string(id), tail{}).first;
    }
    it->second.in_flight += count;
  }

  // After them: the number Redis gave the first, or nothing when the append failed (the events
  // may still be in Redis: only Redis can say).
  void appended(std::string_view id, std::optional<std::uint64_t> seq, std::span<const std::string_view> events) {
    std::lock_guard lock(mu_);
    auto it = streams_.find(id);
    if (it == streams_.end()) return;  // forgotten meanwhile: Redis answers
    tail& t = it->second;
    t.in_flight -= std::min(t.in_flight, events.size());
    if (!seq) {
      streams_.erase(it);
      return;
    }
    if (!t.events || *seq != t.events->next_seq()) t.events.emplace(window_, *seq);  // new, or another writer came between
    for (auto e : events) (void)t.events->append(e);  // never complete here: complete() forgets the stream
    t.used = ++uses_;
  }

  // The read from `cursor`, when this process can answer it.
  std::optional<replay_read> read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) {
    std::lock_guard lock(mu_);
    auto it = streams_.find(id);
    if (it == streams_.end() || !it->second.events || max_chunks == 0) return std::nullopt;
    const replay_buffer& events = *it->second.events;
    if (cursor < events.first_seq() || cursor > events.next_seq()) return std::nullopt;
    return events.read_from(cursor, max_chunks);
  }

  // A notification that event `seq` was appended: whether the stream's readers must look.
  bool noticed(std::string_view id, std::uint64_t seq) {
    std::lock_guard lock(mu_);
    auto it = streams_.find(id);
    if (it == streams_.end()) return true;
    const tail& t = it->second;
    bool known = t.events && seq < t.events->next_seq();
    bool ours_on_the_way = t.in_flight > 0 && (!t.events || seq < t.events->next_seq() + t.in_flight);
    if (known || ours_on_the_way) return false;  // the append wakes them (or woke them already)
    streams_.erase(it);
    return true;
  }

  void forget(std::string_view id) {
    std::lock_guard lock(mu_);
    if (auto it = streams_.find(id); it != streams_.end()) streams_.erase(it);
  }

  void forget_all() {
    std::lock_guard lock(mu_);
    streams_.clear();
  }

 private:
  static constexpr std::size_t per_stream_chunks = 128, per_stream_bytes = 256u << 10, max_streams = 4096;
  struct tail {
    std::optional<replay_buffer> events;  // none until this process's first append is numbered
    std::uint64_t used = 0;
    std::size_t in_flight = 0;  // events sent, not yet answered
  };
  void forget_least_recent() {
    auto oldest = std::min_element(streams_.begin(), streams_.end(),
                                   [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
    streams_.erase(oldest);
  }
  replay_limits window_;
  std::mutex mu_;
  std::map<std::string, tail, std::less<>> streams_;
  std::uint64_t uses_ = 0;
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
  for (api_error code : {api_error::replay_not_found, api_error::replay_exists, api_error::replay_complete}) {
    if (message.find(code_of(code)) != std::string_view::npos) return fail(code, "replay buffer: " + std::string(code_of(code)));
  }
  return fail(api_error::cache_unavailable, "Redis error: " + std::string(message));
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
    recent_.forget(id);
    auto r = eval(create_, id, {seconds(opt_.live_ttl), next_token(), "0"});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<void> restore(std::string_view id, const replay_read& events) override {
    std::uint64_t first = events.chunks.empty() ? events.next_cursor : events.chunks.front().seq;
    recent_.forget(id);
    auto r = eval(create_, id, {seconds(opt_.live_ttl), next_token(), std::to_string(first)});
    if (!r) return tl::unexpected(r.error());
    if (events.chunks.empty()) return {};
    std::vector<std::string_view> bytes;
    bytes.reserve(events.chunks.size());
    for (const auto& c : events.chunks) bytes.push_back(c.bytes);
    stream_append all{id, bytes};
    auto a = append_batch({&all, 1});
    if (!a.front()) return tl::unexpected(a.front().error());
    return {};
  }

  result<std::uint64_t> append(std::string_view id, std::string_view chunk) override {
    stream_append one{id, {&chunk, 1}};
    return std::move(append_batch({&one, 1}).front());
  }

  // One pipeline: a script per stream, sent together, their replies read together.
  std::vector<result<std::uint64_t>> append_batch(std::span<const stream_append> appends) override {
    const std::string max_chunks = std::to_string(std::max<std::size_t>(opt_.limits.max_chunks, 1));
    const std::string max_bytes = std::to_string(opt_.limits.max_bytes);
    const std::string ttl = seconds(opt_.live_ttl), channel = notify_channel();
    std::vector<stream_keys> keys;
    std::vector<std::string> tokens;
    std::vector<std::vector<std::string_view>> commands;
    keys.reserve(appends.size());
    tokens.reserve(appends.size());
    commands.reserve(appends.size());
    for (const auto& a : appends) {
      recent_.appending(a.stream_id, a.events.size());
      keys.push_back(keys_of(a.stream_id));
      tokens.push_back(next_token());
      auto& argv = commands.emplace_back(script_call(append_, keys.back()));
      argv.insert(argv.end(), {max_chunks, max_bytes, ttl, channel, a.stream_id, tokens.back()});
      argv.insert(argv.end(), a.events.begin(), a.events.end());
    }
    std::vector<result<std::uint64_t>> out;
    out.reserve(appends.size());
    auto replies = pool_.pipeline(commands);
    for (std::size_t i = 0; i < appends.size(); ++i) {
      result<redis_reply> r = replies ? result<redis_reply>(std::move((*replies)[i])) : tl::unexpected(replies.error());
      if (r && error_text(r->get()).substr(0, 8) == "NOSCRIPT") r = eval_again(append_, commands[i]);
      if (r) {
        if (auto e = error_text(r->get()); !e.empty()) r = script_error(e);
      }
      const auto& a = appends[i];
      if (!r) {
        recent_.appended(a.stream_id, std::nullopt, {});
        out.push_back(tl::unexpected(r.error()));
      } else {
        std::uint64_t seq = to_u64(r->get());
        recent_.appended(a.stream_id, seq, a.events);
        out.push_back(seq);
      }
      wake(a.stream_id);  // this replica's readers need not wait for the notification
    }
    return out;
  }

  result<void> complete(std::string_view id) override {
    recent_.forget(id);
    auto r = eval(complete_, id, {seconds(opt_.completed_ttl), notify_channel(), id});
    if (!r) return tl::unexpected(r.error());
    (void)pool_.call({"EXPIRE", head_key(id), seconds(opt_.completed_ttl)});
    return {};
  }

  result<replay_read> read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) override {
    // Bounded so one reply stays a sane size; the caller reads on from next_cursor.
    std::size_t want = std::min<std::size_t>(max_chunks, std::size_t(1) << 16);
    if (auto mine = recent_.read(id, cursor, want)) return std::move(*mine);
    static constexpr std::string_view inline_bytes = "65536";
    // The script says where the events lie; a transaction then fetches their bytes and
    // checks that the layout has not moved meanwhile (a compaction or a new stream under
    // the same id). Should it keep moving, the script copies the bytes itself.
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto r = eval(read_, id, {std::to_string(cursor), std::to_string(want), inline_bytes});
      if (!r) return tl::unexpected(r.error());
      const redisReply* a = r->get();
      if (a->type != REDIS_REPLY_ARRAY || a->elements < 10 || a->element[6]->type == REDIS_REPLY_STRING) {
        return to_read(a, cursor, nullptr);
      }
      auto bytes = fetch_bytes(id, a);
      if (!bytes) return tl::unexpected(bytes.error());
      if (*bytes) return to_read(a, cursor, bytes->get());
    }
    auto r = eval(read_, id, {std::to_string(cursor), std::to_string(want), "1e18"});
    if (!r) return tl::unexpected(r.error());
    return to_read(r->get(), cursor, nullptr);
  }

  // Rare (every half window of a long stream, and one read per late viewer): plain EVAL and GET.
  result<void> put_head(std::string_view id, const replay_head& head) override {
    if (head.events.size() > opt_.limits.max_head_bytes) {
      (void)pool_.call({"DEL", head_key(id)});
      return fail(api_error::replay_head_too_large, "the replay head is larger than " + std::to_string(opt_.limits.max_head_bytes) + " bytes");
    }
    std::string value = std::to_string(head.upto) + "\n" + head.events;
    std::string meta = meta_key(id), key = head_key(id);
    auto r = pool_.call({"EVAL", put_head_lua, "2", meta, key, value});
    if (!r) return tl::unexpected(r.error());
    if (auto e = error_text(r->get()); !e.empty()) return script_error(e);
    return {};
  }

  result<std::optional<replay_head>> get_head(std::string_view id) override {
    auto r = pool_.call({"GET", head_key(id)});
    if (!r) return tl::unexpected(r.error());
    const redisReply* a = r->get();
    if (a->type != REDIS_REPLY_STRING) {
      auto exists = pool_.call({"EXISTS", meta_key(id)});
      if (!exists) return tl::unexpected(exists.error());
      if ((*exists)->type == REDIS_REPLY_INTEGER && (*exists)->integer == 0) {
        return fail(api_error::replay_not_found, "no replay buffer for stream " + std::string(id));
      }
      return std::optional<replay_head>();
    }
    std::string_view v(a->str, a->len);
    auto nl = v.find('\n');
    replay_head h;
    auto [p, ec] = std::from_chars(v.data(), v.data() + (nl == std::string_view::npos ? 0 : nl), h.upto);
    if (nl == std::string_view::npos || ec != std::errc() || p != v.data() + nl) {
      return fail(api_error::cache_unavailable, "unexpected replay head in Redis");
    }
    h.events.assign(v.substr(nl + 1));
    return std::optional<replay_head>(std::move(h));
  }

  result<replay_info> info(std::string_view id) override {
    auto r = eval(read_, id, {"0", "0"});
    if (!r) return tl::unexpected(r.error());
    const redisReply* a = r->get();
    if (a->type != REDIS_REPLY_ARRAY || a->elements < 4) return fail(api_error::cache_unavailable, "unexpected Redis reply");
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
    recent_.forget(id);
    auto r = pool_.call({"DEL", meta_key(id), data_key(id), offsets_key(id), head_key(id)});
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
    if (auto e = error_text(r->get()); !e.empty()) return fail(api_error::cache_unavailable, "Redis error: " + std::string(e));
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
  std::string offsets_key(std::string_view id) const { return opt_.key_prefix + "rs:{" + std::string(id) + "}:offs"; }
  std::string head_key(std::string_view id) const { return opt_.key_prefix + "rs:{" + std::string(id) + "}:head"; }
  std::string notify_channel() const { return opt_.key_prefix + "rn"; }
  std::string event_channel(std::string_view channel) const { return opt_.key_prefix + "ch:" + std::string(channel); }
  std::string next_token() { return token_prefix_ + ":" + std::to_string(++ops_); }

  struct stream_keys {
    std::string meta, data, offsets;
  };
  stream_keys keys_of(std::string_view id) const { return {meta_key(id), data_key(id), offsets_key(id)}; }
  // EVALSHA of `s` on a stream's keys; the script's arguments go after.
  static std::vector<std::string_view> script_call(const script& s, const stream_keys& k) {
    return {"EVALSHA", s.sha, "3", k.meta, k.data, k.offsets};
  }
  // The same call as EVAL, for when Redis lost its script cache (a restart).
  result<redis_reply> eval_again(const script& s, std::vector<std::string_view> argv) {
    argv[0] = "EVAL";
    argv[1] = s.lua;
    return pool_.call(argv);
  }

  result<redis_reply> eval(script& s, std::string_view id, std::vector<std::string_view> args) {
    stream_keys k = keys_of(id);
    std::vector<std::string_view> argv = script_call(s, k);
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = pool_.call(argv);
    if (r && error_text(r->get()).substr(0, 8) == "NOSCRIPT") r = eval_again(s, std::move(argv));
    if (!r) return r;
    if (auto e = error_text(r->get()); !e.empty()) return script_error(e);
    return r;
  }

  // Mirrors replay_buffer::read_from, so both stores answer the same history alike.
  // `bytes` replaces the script's data when the caller fetched it.
  static result<replay_read> to_read(const redisReply* a, std::uint64_t cursor, const redisReply* bytes) {
    if (a->type != REDIS_REPLY_ARRAY || a->elements < 4) return fail(api_error::cache_unavailable, "unexpected Redis reply");
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
    if (a->elements >= 10) {
      if (!split_events(a->element[4], bytes != nullptr ? bytes : a->element[6], a->element[5], cursor, out.chunks)) {
        return fail(api_error::cache_unavailable, "unexpected Redis reply");
      }
    }
    out.next_cursor = cursor + out.chunks.size();
    out.at_end = out.next_cursor == next;
    out.terminal = out.at_end && complete;
    return out;
  }

  // The bytes the read script located (`located` holds its reply), or null when the stream's
  // layout changed since.
  result<redis_reply> fetch_bytes(std::string_view id, const redisReply* located) {
    const redisReply* offs = located->element[4];
    if (offs->type != REDIS_REPLY_STRING || offs->len < offset_width) return fail(api_error::cache_unavailable, "unexpected Redis reply");
    std::uint64_t from = 0;
    std::from_chars(offs->str, offs->str + offset_width, from);
    std::uint64_t stop = to_u64(located->element[5]), base = to_u64(located->element[8]);
    // The script returns anything up to `inline_bytes` itself, so here the range is never empty.
    if (stop <= from || from < base) return fail(api_error::cache_unavailable, "unexpected Redis reply");
    std::string meta = meta_key(id), data = data_key(id);
    std::string lo = std::to_string(from - base), hi_incl = std::to_string(stop - base - 1);  // inclusive end
    auto replies = pool_.pipeline({{"MULTI"},
                                   {"HMGET", meta, "pfirst", "created_by"},
                                   {"GETRANGE", data, lo, hi_incl},
                                   {"EXEC"}});
    if (!replies) return tl::unexpected(replies.error());
    redisReply* exec = replies->back().get();
    if (exec->type != REDIS_REPLY_ARRAY || exec->elements != 2) return fail(api_error::cache_unavailable, "unexpected Redis reply");
    const redisReply* now = exec->element[0];
    if (now->type != REDIS_REPLY_ARRAY || now->elements != 2 || !same(now->element[0], located->element[7]) ||
        !same(now->element[1], located->element[9])) {
      return redis_reply();
    }
    // Detach the GETRANGE reply from EXEC's array so it outlives it.
    redis_reply bytes(exec->element[1]);
    exec->element[1] = nullptr;
    exec->elements = 1;
    return bytes;
  }

  static bool same(const redisReply* a, const redisReply* b) {
    return a->type == REDIS_REPLY_STRING && b->type == REDIS_REPLY_STRING &&
           std::string_view(a->str, a->len) == std::string_view(b->str, b->len);
  }

  // `offsets` holds each event's absolute start, fixed width; `bytes` runs from the first start
  // to `stop`.
  static bool split_events(const redisReply* offsets, const redisReply* bytes, const redisReply* stop_reply,
                           std::uint64_t cursor, std::vector<replay_chunk>& out) {
    if (offsets->type != REDIS_REPLY_STRING || bytes->type != REDIS_REPLY_STRING) return false;
    std::size_t count = offsets->len / offset_width;
    if (count == 0 || offsets->len % offset_width != 0) return false;
    // Fixed-width decimal, parsed by hand: std::from_chars showed up in resume profiles.
    auto offset_at = [&](std::size_t i) {
      std::uint64_t v = 0;
      const char* p = offsets->str + i * offset_width;
      for (int k = 0; k < offset_width; ++k) v = v * 10 + static_cast<unsigned char>(p[k] - '0');
      return v;
    };
    const std::uint64_t base = offset_at(0), stop = to_u64(stop_reply);
    if (stop < base || stop - base != bytes->len) return false;
    out.reserve(count);
    std::uint64_t from = base;
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t to = i + 1 < count ? offset_at(i + 1) : stop;
      if (to < from || to > stop) return false;
      out.push_back({cursor + i, std::string(bytes->str + (from - base), to - from)});
      from = to;
    }
    return true;
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
    auto r = read_from(id, cursor, max_chunks);
    for (;;) {
      if (!worth_waiting(r)) return r;
      std::unique_lock lock(wait_mu_);
      if (!group.cv.wait_until(lock, deadline, [&] { return group.generation != seen; })) {
        lock.unlock();
        return read_from(id, cursor, max_chunks);
      }
      seen = group.generation;
      r = shared_read(group, lock, id, cursor, max_chunks, seen);
    }
  }

  // The group's read for wake-up `seen` at `cursor` (see waiters). Called with wait_mu_ held;
  // returns with it released.
  result<replay_read> shared_read(waiters& g, std::unique_lock<std::mutex>& lock, std::string_view id,
                                  std::uint64_t cursor, std::size_t max_chunks, std::uint64_t seen) {
    auto same = [&] { return g.read_generation == seen && g.read_cursor == cursor && g.read_max == max_chunks; };
    while (g.reading && same()) g.read_done.wait(lock);
    if (g.read && same()) {
      auto shared = g.read;
      lock.unlock();
      return *shared;
    }
    bool leader = !g.reading;
    if (leader) {
      g.reading = true;
      g.read_generation = seen;
      g.read_cursor = cursor;
      g.read_max = max_chunks;
    }
    lock.unlock();
    auto r = read_from(id, cursor, max_chunks);
    if (leader) {
      auto shared = std::make_shared<const result<replay_read>>(r);
      lock.lock();
      g.read = std::move(shared);
      g.reading = false;
      g.read_done.notify_all();
      lock.unlock();
    }
    return r;
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
    if (channel == notify_channel()) {
      // "id" (complete, remove) or "id\nseq" (append).
      auto nl = message.find('\n');
      if (nl == std::string_view::npos) {
        recent_.forget(message);
        return wake(message);
      }
      std::string_view id = message.substr(0, nl), number = message.substr(nl + 1);
      std::uint64_t seq = 0;
      auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), seq);
      if (ec != std::errc() || p != number.data() + number.size()) recent_.forget(id);
      else if (!recent_.noticed(id, seq)) return;
      return wake(id);
    }
    std::string prefix = opt_.key_prefix + "ch:";
    if (channel.substr(0, prefix.size()) == prefix) subscribers_->deliver(channel.substr(prefix.size()), message);
  }

  void on_confirmed(std::string_view channel) {
    if (channel == notify_channel()) {
      recent_.forget_all();  // notifications may have been missed
      wake_all();
    }
  }

  redis_cache_options opt_;
  detail::redis_pool pool_;
  std::string token_prefix_ = random_token();
  std::atomic<std::uint64_t> ops_{0};
  script create_{create_lua, {}}, append_{append_lua, {}}, complete_{complete_lua, {}}, read_{read_lua, {}};
  std::mutex wait_mu_;
  std::map<std::string, std::shared_ptr<waiters>, std::less<>> waiting_;
  recent_appends recent_{opt_.limits};
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
