#include "http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace platform::servers {
namespace {

// Where a handler on this thread may leave a hand-over (http_server::hand_over).
thread_local std::function<void(int)>* current_hand_over = nullptr;
// Where a handler on this thread may ask for the connection to end (close_after_reply).
thread_local bool* current_close_after = nullptr;

// A pool thread between connections needs little stack: what its last connection touched below
// the current frame goes back to the kernel (zero pages on the next touch). Two thousand
// viewers arriving at once are each served by a pool thread until the viewer hub takes them,
// and each of those threads kept its touched stack, most of an idle viewer's memory.
// Not inlined: its frame must be the lowest live one, and small.
[[gnu::noinline]] void release_idle_stack() {
  thread_local std::uintptr_t low = [] {
    pthread_attr_t attr;
    void* addr = nullptr;
    std::size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return std::uintptr_t{0};
    (void)pthread_attr_getstack(&attr, &addr, &size);
    (void)pthread_attr_destroy(&attr);
    return reinterpret_cast<std::uintptr_t>(addr);
  }();
  if (low == 0) return;
  const std::uintptr_t page = 4096;
  volatile char here = 0;
  // A margin for this function's own frame and the system call's.
  std::uintptr_t top = (reinterpret_cast<std::uintptr_t>(&here) - 4 * page) & ~(page - 1);
  std::uintptr_t bottom = (low + page - 1) & ~(page - 1);
  if (top > bottom) (void)::madvise(reinterpret_cast<void*>(bottom), top - bottom, MADV_DONTNEED);
}

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

// The most a request's head (request line and header lines) may take. cpp-httplib 0.11 caps
// each line but not how many there are: 21 MB of header lines took platform-web from 39 MB to
// 89 MB resident, and the request was answered. Browsers send a few KiB; nginx's default cap is
// 32 KiB.
constexpr std::size_t max_head_bytes = 64 * 1024;

// A connection's socket as cpp-httplib's Stream, reading through a buffer (its request
// reader takes a byte at a time), with the server's read and write timeouts. Reads fail once a
// request's head runs past max_head_bytes without its blank line, and stay failed: cpp-httplib
// answers 400 and the connection is closed.
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
    if (!count_head(buf_ + pos_, n)) return -1;
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

  // A head ran past max_head_bytes: the rest of the connection is that flood, not requests.
  [[nodiscard]] bool head_refused() const { return head_refused_; }

  // Forgets what was read past the request: as cpp-httplib's own stream per request, so the
  // unread rest of a body a handler refused before reading it is never taken for the next
  // request (a pipelining client, which browsers are not, loses its next request).
  void forget_read_ahead() {
    pos_ = len_ = 0;
    head_bytes_ = 0;
    head_match_ = 0;
  }

 private:
  // Counts the bytes handed out until the head's "\r\n\r\n"; false once over the cap.
  bool count_head(const char* p, std::size_t n) {
    static constexpr char blank_line[] = "\r\n\r\n";
    for (std::size_t i = 0; i < n && head_match_ < 4; ++i) {
      if (++head_bytes_ > max_head_bytes) {
        head_refused_ = true;
        return false;
      }
      head_match_ = p[i] == blank_line[head_match_] ? head_match_ + 1 : (p[i] == '\r' ? 1 : 0);
    }
    return true;
  }

  int fd_;
  int read_timeout_ms_;
  int write_timeout_ms_;
  char buf_[4096];
  std::size_t pos_ = 0, len_ = 0;
  std::size_t head_bytes_ = 0;  // of this request's head so far; not counted past its end
  int head_match_ = 0;          // how much of "\r\n\r\n" the last bytes matched
  bool head_refused_ = false;
};

}  // namespace

http_server::http_server() : stop_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

http_server::~http_server() {
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void http_server::halt() {
  stop();
  std::uint64_t one = 1;
  if (stop_fd_ >= 0) (void)!::write(stop_fd_, &one, sizeof one);
}

namespace {

// Replaces whatever the handler said (a stream's headers say keep-alive).
void say_close(httplib::Response& res) {
  res.headers.erase("Connection");
  res.set_header("Connection", "close");
}

}  // namespace

bool http_server::hand_over(httplib::Response& res, std::function<void(int fd)> take) {
  if (!current_hand_over) return false;
  say_close(res);
  *current_hand_over = std::move(take);
  return true;
}

bool http_server::can_hand_over() { return current_hand_over != nullptr; }

void http_server::close_after_reply(httplib::Response& res) {
  say_close(res);
  if (current_close_after) *current_close_after = true;
}

namespace {

// Ends a connection whose client may still be sending (a body refused unread, a head cut
// off). Closing with unread bytes makes the kernel send a reset, which can destroy the reply
// before the client read it (node's fetch then sees EPIPE, not the 413). So: the reply is
// followed by a FIN, and what still arrives is discarded (never kept) until the client closes
// or is quiet for 200 ms, for at most 2 s; then the close.
void linger_close(int sock, int stop_fd) {
  using clock = std::chrono::steady_clock;
  ::shutdown(sock, SHUT_WR);
  const auto deadline = clock::now() + std::chrono::seconds(2);
  char scratch[16384];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0 || !wait_for(sock, POLLIN, stop_fd, static_cast<int>(std::min<long long>(left, 200)))) break;
    ssize_t n = ::recv(sock, scratch, sizeof scratch, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;
  }
  ::close(sock);
}

}  // namespace

bool http_server::process_and_close_socket(socket_t sock) {
  serve_connection(sock);
  release_idle_stack();
  return true;
}

void http_server::serve_connection(socket_t sock) {
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
    bool close_after = false;
    current_hand_over = &taken;
    current_close_after = &close_after;
    bool ok = process_request(strm, left == 1, connection_closed, nullptr);
    current_hand_over = nullptr;
    current_close_after = nullptr;
    if (taken) {
      taken(sock);  // the socket is the taker's now
      return;
    }
    // Only a refusal lingers: after a failed read or write the client is gone or broken, and
    // the immediate close it always had stays.
    if (ok && (close_after || strm.head_refused())) {
      linger_close(sock, stop_fd_);
      return;
    }
    if (!ok || connection_closed) break;
    strm.forget_read_ahead();
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace platform::servers
