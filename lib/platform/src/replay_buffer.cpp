#include "platform/replay_buffer.hpp"

#include "platform/api_error.hpp"
#include "platform/replay_head.hpp"

#include <algorithm>

namespace platform {

replay_buffer::replay_buffer(replay_limits limits, std::uint64_t first_seq) : limits_(limits), first_seq_(first_seq) {}

result<std::uint64_t> replay_buffer::append(std::string_view chunk) {
  if (complete_) return fail(api_error::replay_complete, "the stream is complete; no more events can be added");
  chunks_.emplace_back(chunk);
  bytes_ += chunk.size();
  std::uint64_t seq = next_seq() - 1;
  enforce_limits();
  return seq;
}

// Drops from the front until within limits, but keeps the newest event even when it alone
// is over max_bytes: dropping it would lose live data for every follower.
void replay_buffer::enforce_limits() {
  while (chunks_.size() > 1 &&
         (chunks_.size() > std::max<std::size_t>(limits_.max_chunks, 1) || bytes_ > limits_.max_bytes)) {
    bytes_ -= chunks_.front().size();
    chunks_.pop_front();
    ++first_seq_;
  }
}

void replay_buffer::complete() { complete_ = true; }

replay_read replay_buffer::read_from(std::uint64_t cursor, std::size_t max_chunks) const {
  replay_read r;
  r.next_cursor = cursor;
  if (cursor < first_seq_) {
    r.status = replay_status::cursor_expired;
    return r;
  }
  if (cursor > next_seq()) {
    r.status = replay_status::cursor_ahead;
    return r;
  }
  std::uint64_t available = next_seq() - cursor;
  std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(available, max_chunks));
  r.chunks.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t seq = cursor + i;
    r.chunks.push_back({seq, chunks_[static_cast<std::size_t>(seq - first_seq_)]});
  }
  r.next_cursor = cursor + n;
  r.at_end = r.next_cursor == next_seq();
  r.terminal = r.at_end && complete_;
  return r;
}

replay_info replay_buffer::info() const {
  return {first_seq_, next_seq(), complete_, starts_at_beginning(), chunks_.size(), bytes_};
}

memory_replay_store::memory_replay_store(memory_replay_store_options options) : options_(options) {}

memory_replay_store::entry* memory_replay_store::find(std::string_view stream_id) {
  auto it = streams_.find(stream_id);
  return it == streams_.end() ? nullptr : &it->second;
}

namespace {
tl::unexpected<error> not_found(std::string_view stream_id) {
  return fail(api_error::replay_not_found, "no replay buffer for stream " + std::string(stream_id));
}
}  // namespace

bool memory_replay_store::evict_oldest_completed() {
  auto oldest = streams_.end();
  for (auto it = streams_.begin(); it != streams_.end(); ++it) {
    if (it->second.completed_order == 0) continue;
    if (oldest == streams_.end() || it->second.completed_order < oldest->second.completed_order) oldest = it;
  }
  if (oldest == streams_.end()) return false;
  streams_.erase(oldest);
  return true;
}

result<void> memory_replay_store::create(std::string_view stream_id) {
  if (find(stream_id) != nullptr) return fail(api_error::replay_exists, "stream " + std::string(stream_id) + " already has a replay buffer");
  if (streams_.size() >= options_.max_streams && !evict_oldest_completed()) {
    return fail(api_error::replay_store_full, "too many live streams (" + std::to_string(options_.max_streams) + ")");
  }
  streams_.emplace(std::string(stream_id), entry{replay_buffer(options_.limits), nullptr});
  return {};
}

result<std::uint64_t> memory_replay_store::append(std::string_view stream_id, std::string_view chunk) {
  entry* e = find(stream_id);
  if (e == nullptr) return not_found(stream_id);
  return e->buffer.append(chunk);
}

result<void> memory_replay_store::complete(std::string_view stream_id) {
  entry* e = find(stream_id);
  if (e == nullptr) return not_found(stream_id);
  if (e->completed_order == 0) e->completed_order = ++completions_;
  e->buffer.complete();
  return {};
}

result<replay_read> memory_replay_store::read_from(std::string_view stream_id, std::uint64_t cursor,
                                                   std::size_t max_chunks) {
  entry* e = find(stream_id);
  if (e == nullptr) return not_found(stream_id);
  return e->buffer.read_from(cursor, max_chunks);
}

result<replay_info> memory_replay_store::info(std::string_view stream_id) {
  entry* e = find(stream_id);
  if (e == nullptr) return not_found(stream_id);
  return e->buffer.info();
}

result<void> memory_replay_store::remove(std::string_view stream_id) {
  auto it = streams_.find(stream_id);
  if (it != streams_.end()) streams_.erase(it);
  return {};
}

result<void> memory_replay_store::restore(std::string_view stream_id, const replay_read& events) {
  if (find(stream_id) != nullptr) return fail(api_error::replay_exists, "stream " + std::string(stream_id) + " already has a replay buffer");
  std::uint64_t first = events.chunks.empty() ? events.next_cursor : events.chunks.front().seq;
  if (auto made = create(stream_id); !made) return made;
  entry* e = find(stream_id);
  e->buffer = replay_buffer(options_.limits, first);
  for (const auto& c : events.chunks) (void)e->buffer.append(c.bytes);
  return {};
}

result<void> memory_replay_store::put_head(std::string_view stream_id, const replay_head& head) {
  entry* e = find(stream_id);
  if (e == nullptr) return not_found(stream_id);
  if (head.events.size() > options_.limits.max_head_bytes) {
    e->head.reset();
    return fail(api_error::replay_head_too_large, "the replay head is larger than " + std::to_string(options_.limits.max_head_bytes) + " bytes");
  }
  e->head = std::make_shared<const replay_head>(head);
  return {};
}

result<std::optional<replay_head>> memory_replay_store::get_head(std::string_view stream_id) {
  entry* e = find(stream_id);
  if (e == nullptr) return not_found(stream_id);
  if (!e->head) return std::optional<replay_head>();
  return std::optional<replay_head>(*e->head);
}

// A completion is stamped with the first tick that sees it, so a stream never expires
// earlier than completed_ttl after it completed (the owner's tick interval may add to it).
std::size_t memory_replay_store::tick(std::int64_t now) {
  std::size_t removed = 0;
  for (auto it = streams_.begin(); it != streams_.end();) {
    entry& e = it->second;
    if (e.completed_order != 0 && !e.stamped) {
      e.stamped = true;
      e.completed_at = now;
    }
    if (e.stamped && now - e.completed_at >= options_.completed_ttl) {
      it = streams_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

}  // namespace platform
