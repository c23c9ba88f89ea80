#include "stream_writer.hpp"
#include "platform/api_error.hpp"

#include <thread>

#include "web_metrics.hpp"

namespace platform::web {

stream_writer::stream_writer(cache_store& cache, local_streams& local, std::string stream_id, replay_limits limits,
                             std::chrono::milliseconds outage_limit)
    : cache_(cache), local_(local), id_(std::move(stream_id)), copy_(local.open(id_, limits)), outage_limit_(outage_limit) {}

stream_writer::~stream_writer() { local_.close(id_, copy_); }

bool stream_writer::append(std::string_view event) {
  std::lock_guard lock(mu_);
  if (gave_up_) return false;
  auto seq = copy_->append(event);
  if (!seq) return !(gave_up_ = true);  // a bug: the copy is never complete
  // The usual case, the store answering and nothing waiting: straight in, no second copy.
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
  if (waiting_.empty()) (void)timed_cache(cache_op::put_head, [&] { return cache_.put_head(id_, head); });
  head_ = std::move(head);
}

bool stream_writer::flush() {
  std::lock_guard lock(mu_);
  return !gave_up_ && flush_locked(std::chrono::steady_clock::now());
}

bool stream_writer::finish() {
  for (;;) {
    {
      std::lock_guard lock(mu_);
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
  waiting_.clear();
  return true;
}

bool stream_writer::flush_locked(std::chrono::steady_clock::time_point now) {
  if (waiting_.empty()) return true;
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
    auto r = timed_cache(cache_op::append, [&] { return cache_.append(id_, waiting_.front().second); });
    if (!r) {
      if (is(r.error(), api_error::replay_not_found) && put_back()) break;
      return !outage(now);
    }
    waiting_.pop_front();
  }
  if (outage_since_ && head_) (void)cache_.put_head(id_, *head_);
  outage_since_.reset();
  return true;
}

}  // namespace platform::web
