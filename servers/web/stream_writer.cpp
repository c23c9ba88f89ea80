#include "stream_writer.hpp"
#include "platform/api_error.hpp"

#include <thread>

#include "append_batcher.hpp"
#include "web_metrics.hpp"

namespace platform::web {

namespace {
// One write's share of what waits: a long outage's backlog goes out in pieces of a sane size.
constexpr std::size_t batch_events = 512;
constexpr std::size_t batch_bytes = 1u << 20;
}  // namespace

stream_writer::stream_writer(cache_store& cache, local_streams& local, append_batcher* batcher, std::string stream_id,
                             replay_limits limits, std::chrono::milliseconds outage_limit)
    : cache_(cache),
      local_(local),
      batcher_(batcher),
      id_(std::move(stream_id)),
      copy_(local.open(id_, limits)),
      outage_limit_(outage_limit) {}

stream_writer::~stream_writer() {
  if (batcher_ != nullptr) batcher_->leave(*this);
  local_.close(id_, copy_);
}

bool stream_writer::append(std::string_view event) {
  std::unique_lock lock(mu_);
  if (gave_up_) return false;
  auto seq = copy_->append(event);
  if (!seq) return !(gave_up_ = true);  // a bug: the copy is never complete
  if (batcher_ != nullptr && !outage_since_) {
    waiting_.emplace_back(*seq, std::string(event));
    bool wake = claim_queue_locked();
    lock.unlock();
    // Unlocked: the batcher wakes and takes the events at once, without waiting for this lock.
    if (wake) batcher_->ready(*this);
    return true;
  }
  // Without a batcher, the usual case, the store answering and nothing waiting: straight in,
  // no second copy.
  if (waiting_.empty() && !outage_since_) {
    auto r = timed_cache(cache_op::append, [&] { return cache_.append(id_, event); });
    if (r) return true;
    if (is(r.error(), api_error::replay_not_found) && put_back()) return true;
    waiting_.emplace_back(*seq, std::string(event));
    return !outage(std::chrono::steady_clock::now());
  }
  waiting_.emplace_back(*seq, std::string(event));
  return flush_locked(std::chrono::steady_clock::now());
}

void stream_writer::put_head(replay_head head) {
  std::lock_guard lock(mu_);
  head_ = std::move(head);
  head_due_ = true;
  if (in_flight_ == 0 && !outage_since_) head_if_due();
}

bool stream_writer::flush() {
  std::lock_guard lock(mu_);
  if (gave_up_) return false;
  if (in_flight_ > 0 || (batcher_ != nullptr && !outage_since_)) return true;  // the batcher has it
  return flush_locked(std::chrono::steady_clock::now());
}

bool stream_writer::finish() {
  for (;;) {
    {
      std::unique_lock lock(mu_);
      settled_.wait(lock, [&] { return in_flight_ == 0; });
      if (gave_up_) return false;
      if (flush_locked(std::chrono::steady_clock::now()) && waiting_.empty()) {
        if (timed_cache(cache_op::complete, [&] { return cache_.complete(id_); })) {
          copy_->complete();  // local followers end once the store has the stream complete
          return true;
        }
        if (outage(std::chrono::steady_clock::now())) return false;
      } else if (gave_up_) {
        return false;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool stream_writer::gave_up() const {
  std::lock_guard lock(mu_);
  return gave_up_;
}

std::size_t stream_writer::waiting() const {
  std::lock_guard lock(mu_);
  return waiting_.size();
}

std::optional<stream_append> stream_writer::take_batch() {
  std::lock_guard lock(mu_);
  queued_ = false;
  if (gave_up_ || outage_since_ || in_flight_ > 0 || waiting_.empty()) return std::nullopt;
  auto events = next_batch();
  in_flight_ = events.size();
  return stream_append{id_, events};
}

void stream_writer::settle_batch(result<std::uint64_t> first) {
  std::lock_guard lock(mu_);
  std::size_t n = std::exchange(in_flight_, 0);
  if (first) {
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(n));
    head_if_due();
  } else if (!(is(first.error(), api_error::replay_not_found) && put_back())) {
    (void)outage(std::chrono::steady_clock::now());  // the turn's next append, or housekeeping, tries again
  }
  settled_.notify_all();
  if (!waiting_.empty()) queue_locked();  // what came meanwhile
}

// Whether the writer now goes to the batcher (the caller then tells it, with or without the lock).
bool stream_writer::claim_queue_locked() {
  if (queued_ || in_flight_ > 0 || outage_since_ || gave_up_) return false;
  queued_ = true;
  return true;
}

void stream_writer::queue_locked() {
  if (claim_queue_locked()) batcher_->ready(*this);
}

// The first waiting events, up to one write's share (at least one).
std::span<const std::string_view> stream_writer::next_batch() {
  batch_.clear();
  std::size_t bytes = 0;
  for (const auto& [seq, event] : waiting_) {
    if (!batch_.empty() && (batch_.size() == batch_events || bytes + event.size() > batch_bytes)) break;
    batch_.push_back(event);
    bytes += event.size();
  }
  return batch_;
}

// The head goes in once every event it stands for is in the store.
void stream_writer::head_if_due() {
  if (!head_due_ || !head_) return;
  if (!waiting_.empty() && waiting_.front().first < head_->upto) return;
  (void)timed_cache(cache_op::put_head, [&] { return cache_.put_head(id_, *head_); });
  head_due_ = false;
}

// True when the outage has now lasted too long (and the writer gives up).
bool stream_writer::outage(std::chrono::steady_clock::time_point now) {
  if (!outage_since_) outage_since_ = now;
  if (now - *outage_since_ <= outage_limit_) return false;
  gave_up_ = true;
  return true;
}

// The store came back without the stream: the copy goes back in, and the head with it.
bool stream_writer::put_back() {
  if (!cache_.restore(id_, copy_->all())) return false;
  if (head_) (void)cache_.put_head(id_, *head_);
  head_due_ = false;
  waiting_.clear();
  return true;
}

// Called with no batch in flight.
bool stream_writer::flush_locked(std::chrono::steady_clock::time_point now) {
  if (waiting_.empty()) {
    if (!outage_since_) head_if_due();
    return true;
  }
  if (outage_since_) {
    // After an outage: an append whose answer was lost may have been stored; the store's next
    // sequence number says which events it has (only this writer appends to the stream).
    auto info = cache_.info(id_);
    if (!info && is(info.error(), api_error::replay_not_found)) {
      if (put_back()) {
        outage_since_.reset();
        return true;
      }
      return !outage(now);
    }
    if (!info) return !outage(now);
    while (!waiting_.empty() && waiting_.front().first < info->next_seq) waiting_.pop_front();
  }
  while (!waiting_.empty()) {
    stream_append some{id_, next_batch()};
    auto r = timed_cache(cache_op::append, [&] { return std::move(cache_.append_batch({&some, 1}).front()); });
    if (!r) {
      if (is(r.error(), api_error::replay_not_found) && put_back()) break;
      return !outage(now);
    }
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(some.events.size()));
  }
  if (outage_since_ && head_) head_due_ = true;  // the store may have lost it meanwhile
  outage_since_.reset();
  head_if_due();
  if (batcher_ != nullptr && !waiting_.empty()) queue_locked();
  return true;
}

}  // namespace platform::web
