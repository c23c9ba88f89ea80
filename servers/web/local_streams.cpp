#include "local_streams.hpp"

namespace platform::web {

result<std::uint64_t> local_window::append(std::string_view event) {
  result<std::uint64_t> seq;
  {
    std::lock_guard lock(mu_);
    seq = events_.append(event);
  }
  changed_.bump();
  return seq;
}

void local_window::complete() {
  {
    std::lock_guard lock(mu_);
    events_.complete();
  }
  changed_.bump();
}

void local_window::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  changed_.bump();
}

std::optional<replay_read> local_window::read_locked(std::uint64_t cursor, std::size_t max_chunks) const {
  if (closed_ || cursor < events_.first_seq() || cursor > events_.next_seq()) return std::nullopt;
  return events_.read_from(cursor, max_chunks);
}

std::optional<replay_read> local_window::read(std::uint64_t cursor, std::size_t max_chunks) const {
  std::lock_guard lock(mu_);
  return read_locked(cursor, max_chunks);
}

std::optional<replay_read> local_window::wait_read(std::uint64_t cursor, std::size_t max_chunks,
                                                   std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::uint32_t seen = changed_.current();  // before the read: a change after it is not missed
    auto r = read(cursor, max_chunks);
    if (!r || !r->chunks.empty() || r->terminal) return r;
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return r;
    changed_.wait(seen, left);
  }
}

replay_read local_window::all() const {
  std::lock_guard lock(mu_);
  return events_.read_from(events_.first_seq());
}

std::shared_ptr<local_window> local_streams::open(const std::string& stream_id, replay_limits limits) {
  auto window = std::make_shared<local_window>(limits);
  std::lock_guard lock(mu_);
  windows_[stream_id] = window;
  return window;
}

void local_streams::close(const std::string& stream_id, const std::shared_ptr<local_window>& window) {
  window->close();
  std::lock_guard lock(mu_);
  if (auto it = windows_.find(stream_id); it != windows_.end() && it->second == window) windows_.erase(it);
}

std::shared_ptr<local_window> local_streams::find(std::string_view stream_id) const {
  std::lock_guard lock(mu_);
  auto it = windows_.find(stream_id);
  return it == windows_.end() ? nullptr : it->second;
}

result<replay_read> local_first_cache::read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) {
  if (auto window = local_.find(id)) {
    if (auto r = window->read(cursor, max_chunks)) return std::move(*r);
  }
  return store_.read_from(id, cursor, max_chunks);
}

result<replay_read> local_first_cache::wait_read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                                 std::chrono::milliseconds timeout) {
  if (auto window = local_.find(id)) {
    if (auto r = window->wait_read(cursor, max_chunks, timeout)) return std::move(*r);
    // Closed meanwhile, or the cursor is outside the window: the store answers, at once (a
    // window that closed while it waited leaves what remains of the timeout unused).
    return store_.read_from(id, cursor, max_chunks);
  }
  return store_.wait_read(id, cursor, max_chunks, timeout);
}

}  // namespace platform::web
