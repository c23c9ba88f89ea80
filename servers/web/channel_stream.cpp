#include "channel_stream.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "http.hpp"
#include "platform/ui_stream.hpp"

namespace platform::web {

namespace {

constexpr std::size_t max_backlog = 1024;

struct event_queue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> items;
  bool overflow = false;

  void push(std::string s) {
    std::lock_guard lock(mu);
    if (items.size() >= max_backlog) overflow = true;
    else items.push_back(std::move(s));
    cv.notify_all();
  }
};

}  // namespace

void stream_channel(cache_store& cache, httplib::Response& res, channel_stream_options o) {
  auto q = std::make_shared<event_queue>();
  auto sub = cache.subscribe(o.channel, [q, filter = o.filter](std::string_view, std::string_view msg) {
    if (!filter || filter(msg)) q->push(std::string(msg));
  });
  if (!sub) return send(res, sub.error());
  if (o.catch_up) {
    for (auto& item : o.catch_up()) q->push(std::move(item));
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  auto holder = std::make_shared<std::unique_ptr<subscription>>(std::move(*sub));
  auto first = std::make_shared<bool>(o.announce_subscribed);
  res.set_chunked_content_provider(
      "text/event-stream",
      [q, first, hb = o.heartbeat](std::size_t, httplib::DataSink& sink) {
        std::string out = *first ? std::string(": subscribed\n\n") : std::string();
        *first = false;
        std::unique_lock lock(q->mu);
        if (out.empty()) q->cv.wait_for(lock, hb, [&] { return !q->items.empty() || q->overflow; });
        if (q->overflow) return false;  // the client reconnects and gets a fresh catch-up
        for (; !q->items.empty(); q->items.pop_front()) append_sse_data(out, q->items.front());
        lock.unlock();
        if (out.empty()) out = std::string(sse_heartbeat);
        return sink.write(out.data(), out.size());
      },
      [holder](bool) { holder->reset(); });
}

}  // namespace platform::web
