#include "web_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace platform::web {
namespace {

// Where a handler on this thread may leave a hand-over (web_server::hand_over).
thread_local std::function<void(int)>* current_hand_over = nullptr;

// Waits until `fd` is ready for `events` or `stop_fd` fires; -1 ms waits without end.
bool wait_for(int fd, short events, int stop_fd, int timeout_ms) {
  pollfd p[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    int n = ::poll(p, stop_fd >= 0 ? 2 : 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (stop_fd >= 0 && (p[1].revents & POLLIN)) return false;
    return (p[0].revents & (events | POLLHUP | POLLERR)) != 0;
  }
}

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  int r = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) : ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  if (r != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    port = ntohs(in6->sin6_port);
  }
  ip = text;
}

// A connection's socket as cpp-httplib's Stream, reading through a buffer (its request
// reader takes a byte at a time), with the server's read and write timeouts.
class socket_stream final : public httplib::Stream {
 public:
  socket_stream(int fd, int read_timeout_ms, int write_timeout_ms)
      : fd_(fd), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  bool is_readable() const override { return pos_ < len_ || wait_for(fd_, POLLIN, -1, read_timeout_ms_); }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, -1, write_timeout_ms_); }

  ssize_t read(char* ptr, size_t size) override {
    if (pos_ == len_) {
      if (!is_readable()) return -1;
      ssize_t n;
      do n = ::recv(fd_, buf_, sizeof buf_, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      pos_ = 0;
      len_ = static_cast<std::size_t>(n);
    }
    std::size_t n = std::min(size, len_ - pos_);
    std::memcpy(ptr, buf_ + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(fd_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(fd_, false, ip, port); }
  socket_t socket() const override { return fd_; }

  // Forgets what was read past the request: as cpp-httplib's own stream per request, so the
  // unread rest of a body a handler refused before reading it is never taken for the next
  // request (a pipelining client, which browsers are not, loses its next request).
  void forget_read_ahead() { pos_ = len_ = 0; }

 private:
  int fd_;
  int read_timeout_ms_;
  int write_timeout_ms_;
  char buf_[4096];
  std::size_t pos_ = 0, len_ = 0;
};

}  // namespace

web_server::web_server() : stop_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

web_server::~web_server() {
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void web_server::halt() {
  stop();
  std::uint64_t one = 1;
  if (stop_fd_ >= 0) (void)!::write(stop_fd_, &one, sizeof one);
}

bool web_server::hand_over(std::function<void(int fd)> take) {
  if (!current_hand_over) return false;
  *current_hand_over = std::move(take);
  return true;
}

bool web_server::can_hand_over() { return current_hand_over != nullptr; }

bool web_server::process_and_close_socket(socket_t sock) {
  const int read_ms = static_cast<int>(read_timeout_sec_ * 1000 + read_timeout_usec_ / 1000);
  const int write_ms = static_cast<int>(write_timeout_sec_ * 1000 + write_timeout_usec_ / 1000);
  const int keep_alive_ms = static_cast<int>(keep_alive_timeout_sec_ * 1000);
  // Stream events are small writes one after another: Nagle would hold one back until the
  // client acknowledged the last, which a client's delayed ACK makes tens of milliseconds.
  int one = 1;
  (void)::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  socket_stream strm(sock, read_ms, write_ms);
  std::function<void(int)> taken;
  for (std::size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    if (!wait_for(sock, POLLIN, stop_fd_, keep_alive_ms)) break;
    bool connection_closed = false;
    current_hand_over = &taken;
    bool ok = process_request(strm, left == 1, connection_closed, nullptr);
    current_hand_over = nullptr;
    if (taken) {
      taken(sock);  // the socket is the taker's now
      return true;
    }
    if (!ok || connection_closed) break;
    strm.forget_read_ahead();
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

}  // namespace platform::web
