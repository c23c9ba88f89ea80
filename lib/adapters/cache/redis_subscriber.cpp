#include "redis_subscriber.hpp"

#include <hiredis/hiredis.h>
#include <sys/socket.h>

#include <cerrno>

#include "platform/api_error.hpp"

namespace platform::detail {
namespace {

std::string_view text(const redisReply* r) {
  if (r == nullptr || (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_STATUS)) return {};
  return {r->str, r->len};
}

}  // namespace

redis_subscriber::redis_subscriber(redis_address a, std::chrono::milliseconds connect_timeout, message_fn on_message,
                                   confirmed_fn on_confirmed)
    : addr_(std::move(a)),
      connect_timeout_(connect_timeout),
      on_message_(std::move(on_message)),
      on_confirmed_(std::move(on_confirmed)) {}

redis_subscriber::~redis_subscriber() { stop(); }

void redis_subscriber::start() { thread_ = std::thread([this] { run(); }); }

void redis_subscriber::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  }
  changed_.notify_all();
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // destroyed from its own handler: the loop ends on its own
  } else {
    thread_.join();
  }
}

result<void> redis_subscriber::retain(const std::string& channel, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (stopping_) return fail(api_error::cache_unavailable, "the cache store is shutting down");
  channel_state& c = channels_[channel];
  if (c.refs++ == 0 && fd_ >= 0) {
    ++c.sent;
    send_locked("SUBSCRIBE", {channel});
  }
  if (reader_id_.load() == std::this_thread::get_id()) return {};
  // The entry cannot go away meanwhile: our reference keeps it.
  bool live = changed_.wait_for(lock, timeout, [&] { return stopping_ || c.live(); });
  if (live && !stopping_) return {};
  return fail(api_error::cache_unavailable, "Redis did not confirm a subscription in time");
}

void redis_subscriber::release(const std::string& channel) {
  std::lock_guard lock(mu_);
  auto it = channels_.find(channel);
  if (it == channels_.end() || --it->second.refs > 0) return;
  if (fd_ >= 0 && !stopping_) send_locked("UNSUBSCRIBE", {channel});
  if (it->second.acked >= it->second.sent) channels_.erase(it);
}

void redis_subscriber::run() {
  reader_id_ = std::this_thread::get_id();
  constexpr std::chrono::milliseconds first_backoff{50}, max_backoff{2000};
  auto backoff = first_backoff;
  for (;;) {
    auto c = redis_connect(addr_, connect_timeout_);
    // The handshake had a timeout; the subscriber must block for as long as it takes.
    if (c && redisSetTimeout(c->get(), timeval{0, 0}) == REDIS_OK && attach((*c)->fd)) {
      backoff = first_backoff;
      pump(c->get());
      detach();
    }
    std::unique_lock lock(mu_);
    if (changed_.wait_for(lock, backoff, [&] { return stopping_; })) return;
    backoff = std::min(backoff * 2, max_backoff);
  }
}

// Publishes the new connection and subscribes everything still retained on it.
bool redis_subscriber::attach(int fd) {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  fd_ = fd;
  std::vector<std::string> names;
  for (auto it = channels_.begin(); it != channels_.end();) {
    if (it->second.refs == 0) {
      it = channels_.erase(it);
      continue;
    }
    it->second.sent = 1;
    it->second.acked = 0;
    names.push_back(it->first);
    ++it;
  }
  if (!names.empty()) send_locked("SUBSCRIBE", names);
  return true;
}

// Before the connection is closed, so no thread writes to a reused descriptor.
void redis_subscriber::detach() {
  std::lock_guard lock(mu_);
  fd_ = -1;
  for (auto& [name, c] : channels_) c.sent = c.acked = 0;
}

void redis_subscriber::pump(redisContext* c) {
  for (;;) {
    void* raw = nullptr;
    if (redisGetReply(c, &raw) != REDIS_OK || raw == nullptr) return;
    redis_reply r(static_cast<redisReply*>(raw));
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 3) continue;
    std::string_view kind = text(r->element[0]);
    if (kind == "message") {
      on_message_(text(r->element[1]), text(r->element[2]));
    } else if (kind == "subscribe") {
      confirmed(text(r->element[1]));
    }
  }
}

void redis_subscriber::confirmed(std::string_view channel) {
  {
    std::lock_guard lock(mu_);
    auto it = channels_.find(channel);
    if (it == channels_.end()) return;
    ++it->second.acked;
    if (it->second.refs == 0 && it->second.acked >= it->second.sent) channels_.erase(it);
  }
  changed_.notify_all();
  on_confirmed_(channel);
}

// A write error means the connection is gone; shutting it down makes the reader notice
// now rather than at its next read.
void redis_subscriber::send_locked(std::string_view verb, const std::vector<std::string>& channels) {
  std::vector<const char*> argv{verb.data()};
  std::vector<std::size_t> lens{verb.size()};
  for (const auto& ch : channels) {
    argv.push_back(ch.data());
    lens.push_back(ch.size());
  }
  char* cmd = nullptr;
  int len = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()), argv.data(), lens.data());
  if (len < 0) return;
  const char* p = cmd;
  auto left = static_cast<std::size_t>(len);
  while (left > 0) {
    ssize_t n = ::send(fd_, p, left, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::shutdown(fd_, SHUT_RDWR);
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  redisFreeCommand(cmd);
}

}  // namespace platform::detail
