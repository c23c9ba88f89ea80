#include "viewer_hub.hpp"
#include "platform/api_error.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../common/socket_io.hpp"
#include "platform/replay_follow.hpp"
#include "platform/ui_stream.hpp"

namespace platform::web {
namespace {

using clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr std::string_view last_chunk = "0\r\n\r\n";
// A viewer this far behind (it does not read) is cut off: it reconnects and resumes from its
// cursor instead of the process buffering for it without bound.
constexpr std::size_t max_pending = 8u << 20;

// `data` as one HTTP/1.1 chunk (never an empty one: that would end the body).
void append_chunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  char head[24];
  int n = std::snprintf(head, sizeof head, "%zx\r\n", data.size());
  out.append(head, static_cast<std::size_t>(n));
  out.append(data);
  out.append("\r\n");
}

std::string joined(const std::vector<replay_chunk>& chunks, std::uint64_t from) {
  std::string out;
  for (const auto& c : chunks) {
    if (c.seq >= from) out += c.bytes;
  }
  return out;
}


// Blocking: the whole of `data` to a connection still in blocking mode (its write timeout
// bounds a client that stopped reading).
using servers::send_all;

}  // namespace

// One stream's follower: its thread reads for every viewer of the stream.
struct fanout {
  std::string stream_id;
  std::uint64_t cursor = 0;  // where the viewers are once they got the events posted; guarded by impl::mu
  std::size_t viewers = 0;   // guarded by impl::mu
  std::function<bool()> still_live;
  std::chrono::milliseconds heartbeat{15000};
  std::chrono::milliseconds outage_limit{30000};
};

struct viewer_hub::impl {
  // What the followers and adopt() tell the loop, in order.
  struct message {
    enum class kind : unsigned char { adopt, events, heartbeat, end } what;
    std::shared_ptr<fanout> from;
    int fd = -1;                        // adopt
    std::uint64_t cursor = 0;           // adopt: the viewer's; events/end: where the chunks start
    std::string bytes{};                // adopt: already framed; events/end: the events
    std::vector<replay_chunk> chunks{}; // events/end
    std::string tail{};                 // end: after the chunks (an error and [DONE])
    bool close_after = false;           // adopt: a stream that is over already
  };
  struct viewer {
    int fd;
    std::shared_ptr<fanout> from;
    std::uint64_t cursor;
    std::string pending;
    std::size_t sent = 0;
    bool want_out = false;
    bool closing = false;
  };

  cache_store& cache;
  int epfd = -1;
  int wake = -1;
  std::thread loop;

  std::mutex mu;
  std::condition_variable followers_gone;
  std::deque<message> queue;
  std::map<std::string, std::shared_ptr<fanout>> fanouts;
  std::size_t followers = 0;
  bool stopping = false;
  std::atomic<std::size_t> count{0};

  // The loop's own.
  std::unordered_map<int, viewer> viewers;
  std::unordered_map<fanout*, std::vector<int>> by_fanout;

  explicit impl(cache_store& c) : cache(c) {}

  void post(message m) {  // with mu held
    queue.push_back(std::move(m));
    std::uint64_t one = 1;
    (void)!::write(wake, &one, sizeof one);
  }

  void follow(const std::shared_ptr<fanout>& f);
  void end_fanout(const std::shared_ptr<fanout>& f, std::vector<replay_chunk> chunks, std::uint64_t from, std::string_view tail);
  void run_loop();
  void handle(message& m);
  void deliver(viewer& v, std::string_view framed);
  void flush(viewer& v);
  void drop(int fd);
};

void viewer_hub::impl::end_fanout(const std::shared_ptr<fanout>& f, std::vector<replay_chunk> chunks, std::uint64_t from,
                                  std::string_view tail) {
  std::lock_guard lock(mu);
  auto it = fanouts.find(f->stream_id);
  if (it != fanouts.end() && it->second == f) fanouts.erase(it);
  message m{.what = message::kind::end, .from = f};
  m.cursor = from;
  m.chunks = std::move(chunks);
  m.tail = std::string(tail);
  post(std::move(m));
}

// The rules of a follow (platform/replay_follow.hpp), once per stream.
void viewer_hub::impl::follow(const std::shared_ptr<fanout>& f) {
  using action = replay_follow_step::action;
  std::uint64_t start;
  {
    std::lock_guard lock(mu);
    start = f->cursor;
  }
  replay_follow rules(start, {f->heartbeat, f->outage_limit, true}, clock::now());
  // Short waits: a follower notices soon that its viewers left or the hub stops.
  const auto tick = std::min<std::chrono::milliseconds>(f->heartbeat, 1000ms);
  for (;;) {
    {
      std::lock_guard lock(mu);
      if (f->viewers == 0 || stopping) {
        auto it = fanouts.find(f->stream_id);
        if (it != fanouts.end() && it->second == f) fanouts.erase(it);
        return;
      }
    }
    std::uint64_t from = rules.cursor();
    auto step = rules.read(cache.wait_read(f->stream_id, from, 16384, std::min(tick, rules.until_heartbeat(clock::now()))),
                           clock::now());
    for (bool asked = true; asked;) {
      asked = false;
      switch (step.what) {
        case action::ask_live:
          step = rules.live(f->still_live(), clock::now());
          asked = true;
          break;
        case action::read_last:
          from = rules.cursor();
          step = rules.last(cache.read_from(f->stream_id, from, 16384), clock::now());
          asked = true;
          break;
        case action::wait:
          break;
        case action::heartbeat: {
          if (step.pause.count() > 0) std::this_thread::sleep_for(step.pause);
          std::lock_guard lock(mu);
          post({.what = message::kind::heartbeat, .from = f});
          break;
        }
        case action::write: {
          // A read's events, for the viewers; the follower reads on after them.
          std::lock_guard lock(mu);
          f->cursor = rules.cursor();
          message m{.what = message::kind::events, .from = f};
          m.cursor = from;
          m.chunks = std::move(step.chunks);
          post(std::move(m));
          break;
        }
        case action::end:
          return end_fanout(f, std::move(step.chunks), from, step.tail);
      }
    }
  }
}

void viewer_hub::impl::deliver(viewer& v, std::string_view framed) {
  if (framed.empty() || v.closing) return;
  if (v.pending.size() - v.sent + framed.size() > max_pending) {
    v.closing = true;  // cut off: nothing more is queued for it
    v.pending.resize(v.sent);
    return;
  }
  if (v.sent == v.pending.size()) {
    v.pending.clear();
    v.sent = 0;
    // Straight to the socket while it keeps up: no copy.
    ssize_t n;
    do n = ::send(v.fd, framed.data(), framed.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      v.closing = true;
      return;
    }
    std::size_t wrote = n < 0 ? 0 : static_cast<std::size_t>(n);
    if (wrote == framed.size()) return;
    framed.remove_prefix(wrote);
  }
  v.pending.append(framed);
}

void viewer_hub::impl::flush(viewer& v) {
  while (v.sent < v.pending.size()) {
    ssize_t n = ::send(v.fd, v.pending.data() + v.sent, v.pending.size() - v.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) return drop(v.fd);
    v.sent += static_cast<std::size_t>(n);
  }
  bool drained = v.sent == v.pending.size();
  if (drained) {
    v.pending.clear();
    v.sent = 0;
    if (v.closing) return drop(v.fd);
  }
  if (drained == v.want_out) {
    v.want_out = !drained;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | (v.want_out ? EPOLLOUT : 0u);
    ev.data.fd = v.fd;
    ::epoll_ctl(epfd, EPOLL_CTL_MOD, v.fd, &ev);
  }
}

void viewer_hub::impl::drop(int fd) {
  auto it = viewers.find(fd);
  if (it == viewers.end()) return;
  // Uncounted before the close: whoever sees the connection end (a test, a load probe) must
  // not still find the viewer counted.
  count.fetch_sub(1);
  ::epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nullptr);
  ::close(fd);
  auto f = std::move(it->second.from);
  viewers.erase(it);
  if (auto list = by_fanout.find(f.get()); list != by_fanout.end()) {
    auto& fds = list->second;
    if (auto at = std::find(fds.begin(), fds.end(), fd); at != fds.end()) {
      *at = fds.back();
      fds.pop_back();
    }
    if (fds.empty()) by_fanout.erase(list);
  }
  if (!f) return;  // a stream that was over when adopted has no follower
  std::lock_guard lock(mu);
  if (f->viewers > 0) --f->viewers;
}

void viewer_hub::impl::handle(message& m) {
  using kind = message::kind;
  if (m.what == kind::adopt) {
    viewer v{m.fd, m.from, m.cursor, {}, 0, false, false};
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = m.fd;
    if (::epoll_ctl(epfd, EPOLL_CTL_ADD, m.fd, &ev) != 0) {
      count.fetch_sub(1);
      ::close(m.fd);
      std::lock_guard lock(mu);
      if (m.from && m.from->viewers > 0) --m.from->viewers;
      return;
    }
    auto& at = viewers.emplace(m.fd, std::move(v)).first->second;
    if (m.from) by_fanout[m.from.get()].push_back(m.fd);
    deliver(at, m.bytes);
    at.closing = at.closing || m.close_after;
    return flush(at);
  }
  auto list = by_fanout.find(m.from.get());
  if (list == by_fanout.end()) return;
  std::vector<int> fds = list->second;  // flush() may drop viewers from the list
  if (m.what == kind::heartbeat) {
    std::string framed;
    append_chunk(framed, sse_heartbeat);
    for (int fd : fds) {
      auto& v = viewers.at(fd);
      deliver(v, framed);
      flush(v);
    }
    return;
  }
  // Events (or the end): framed once for every viewer at the batch's start, which is all of
  // them but one that joined mid-batch.
  std::uint64_t next = m.chunks.empty() ? m.cursor : m.chunks.back().seq + 1;
  std::string shared;
  append_chunk(shared, joined(m.chunks, 0));
  if (m.what == kind::end) {
    append_chunk(shared, m.tail);
    shared += last_chunk;
  }
  for (int fd : fds) {
    auto it = viewers.find(fd);
    if (it == viewers.end()) continue;
    auto& v = it->second;
    if (v.cursor <= m.cursor || m.chunks.empty()) {
      deliver(v, shared);
    } else {
      std::string own;
      append_chunk(own, joined(m.chunks, v.cursor));
      if (m.what == kind::end) {
        append_chunk(own, m.tail);
        own += last_chunk;
      }
      deliver(v, own);
    }
    v.cursor = std::max(v.cursor, next);
    if (m.what == kind::end) v.closing = true;
    flush(v);
  }
}

void viewer_hub::impl::run_loop() {
  std::vector<epoll_event> events(512);
  for (;;) {
    int n = ::epoll_wait(epfd, events.data(), static_cast<int>(events.size()), -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == wake) {
        std::uint64_t drained;
        (void)!::read(wake, &drained, sizeof drained);
        std::deque<message> batch;
        bool stop;
        {
          std::lock_guard lock(mu);
          batch.swap(queue);
          stop = stopping;
        }
        for (auto& m : batch) handle(m);
        if (stop) return;
        continue;
      }
      auto it = viewers.find(fd);
      if (it == viewers.end()) continue;
      auto got = events[i].events;
      if (got & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
        drop(fd);
        continue;
      }
      if (got & EPOLLIN) {
        // A viewer sends nothing after its request: read and forget; end of file is it leaving.
        char sink[512];
        ssize_t r = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          drop(fd);
          continue;
        }
      }
      if (got & EPOLLOUT) flush(it->second);
    }
  }
}

viewer_hub::viewer_hub(cache_store& cache) : impl_(std::make_unique<impl>(cache)) {
  impl_->epfd = ::epoll_create1(EPOLL_CLOEXEC);
  impl_->wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = impl_->wake;
  ::epoll_ctl(impl_->epfd, EPOLL_CTL_ADD, impl_->wake, &ev);
  impl_->loop = std::thread([p = impl_.get()] { p->run_loop(); });
}

viewer_hub::~viewer_hub() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
    impl_->post({impl::message::kind::heartbeat, nullptr});
  }
  impl_->loop.join();
  for (auto& [fd, v] : impl_->viewers) ::close(fd);
  // Followers wake within their tick and leave.
  std::unique_lock lock(impl_->mu);
  impl_->followers_gone.wait(lock, [&] { return impl_->followers == 0; });
  lock.unlock();
  ::close(impl_->wake);
  ::close(impl_->epfd);
}

std::size_t viewer_hub::viewers() const { return impl_->count.load(); }

std::size_t viewer_hub::followed_streams() const {
  std::lock_guard lock(impl_->mu);
  return impl_->followers;
}

void viewer_hub::adopt(int fd, viewer_plan plan) {
  auto& h = *impl_;
  h.count.fetch_add(1);
  std::uint64_t cursor = plan.first.next_cursor;
  std::string framed;
  append_chunk(framed, joined(plan.first.chunks, 0));
  // A backlog goes out from the calling thread, at the client's pace (the connection is still
  // blocking, for at most 30 s per write): the loop takes the viewer once it is at the
  // stream's live end, so a follower never reads ahead of a viewer still downloading history.
  timeval send_limit{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_limit, sizeof send_limit);
  for (bool at_end = plan.first.at_end; !at_end && !plan.first.terminal;) {
    if (!send_all(fd, framed)) {
      h.count.fetch_sub(1);
      ::close(fd);
      return;
    }
    framed.clear();
    auto r = h.cache.read_from(plan.stream_id, cursor, 16384);
    if (!r || r->status != replay_status::ok) break;  // gone meanwhile: the join below ends it
    append_chunk(framed, joined(r->chunks, cursor));
    cursor = r->next_cursor;
    at_end = r->at_end;
    plan.first.terminal = r->terminal;
  }
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  auto over = [&] {  // the stream ended already: write what there is and close
    framed += last_chunk;
    std::lock_guard lock(h.mu);
    impl::message m{impl::message::kind::adopt, nullptr, fd, cursor, std::move(framed)};
    m.close_after = true;
    h.post(std::move(m));
  };
  if (plan.first.terminal) return over();
  std::unique_lock lock(h.mu);
  for (;;) {
    auto& f = h.fanouts[plan.stream_id];
    if (!f) {
      f = std::make_shared<fanout>();
      f->stream_id = plan.stream_id;
      f->cursor = cursor;
      f->still_live = std::move(plan.still_live);
      f->heartbeat = plan.heartbeat;
      f->outage_limit = plan.outage_limit;
      ++h.followers;
      std::thread([&h, f] {
        h.follow(f);
        std::lock_guard done(h.mu);
        --h.followers;
        h.followers_gone.notify_all();
      }).detach();
    }
    if (cursor >= f->cursor) {
      ++f->viewers;
      h.post({impl::message::kind::adopt, f, fd, cursor, std::move(framed)});
      return;
    }
    // Behind the stream's follower (it read on since this viewer's first read): catch up.
    std::string id = plan.stream_id;
    lock.unlock();
    auto r = h.cache.read_from(id, cursor, 16384);
    if (!r || r->status != replay_status::ok) return over();
    append_chunk(framed, joined(r->chunks, cursor));
    cursor = r->next_cursor;
    if (r->terminal) return over();
    lock.lock();
  }
}

}  // namespace platform::web
