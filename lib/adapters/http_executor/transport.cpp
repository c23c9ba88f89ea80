// Non-blocking sockets driven by poll() against one deadline. TLS runs over a BIO pair, so
// OpenSSL never touches the socket: every byte goes through send()/recv() here, with
// MSG_NOSIGNAL (no SIGPIPE in a library) and the same deadline as plain HTTP.
#include "adapters/http_transport.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace platform::http_transport {
namespace {

using F = integration_error;

tl::unexpected<io_failure> failed(F kind, std::string message) {
  return tl::unexpected<io_failure>(io_failure{kind, std::move(message)});
}

std::string system_error(int err) { return std::strerror(err); }

class fd_guard {
 public:
  explicit fd_guard(int fd = -1) : fd_(fd) {}
  fd_guard(fd_guard&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  fd_guard& operator=(fd_guard&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

int remaining_ms(clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
  if (left <= 0) return 0;
  return left > INT_MAX ? INT_MAX : static_cast<int>(left);
}

io_result<void> wait_for(int fd, short events, clock::time_point deadline) {
  while (true) {
    int ms = remaining_ms(deadline);
    if (ms == 0) return failed(F::timeout, "timed out");
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, ms);
    if (r > 0) return {};
    if (r < 0 && errno != EINTR) return failed(F::connection_lost, "poll: " + system_error(errno));
  }
}

io_result<void> send_all(int fd, std::string_view bytes, clock::time_point deadline) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n >= 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (auto w = wait_for(fd, POLLOUT, deadline); !w) return w;
    } else if (errno != EINTR) {
      return failed(F::connection_lost, "send: " + system_error(errno));
    }
  }
  return {};
}

io_result<std::size_t> recv_some(int fd, char* buf, std::size_t size, clock::time_point deadline) {
  while (true) {
    ssize_t n = ::recv(fd, buf, size, 0);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (auto w = wait_for(fd, POLLIN, deadline); !w) return tl::unexpected(w.error());
    } else if (errno != EINTR) {
      return failed(F::connection_lost, "recv: " + system_error(errno));
    }
  }
}

socklen_t to_sockaddr(const ip_address& a, std::uint16_t port, sockaddr_storage& ss) {
  ss = {};
  if (a.is_v4()) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    std::memcpy(&sin->sin_addr, a.bytes.data(), 4);
    return sizeof(sockaddr_in);
  }
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
  sin6->sin6_family = AF_INET6;
  sin6->sin6_port = htons(port);
  std::memcpy(&sin6->sin6_addr, a.bytes.data(), 16);
  return sizeof(sockaddr_in6);
}

io_result<fd_guard> connect_one(const ip_address& a, std::uint16_t port, clock::time_point deadline) {
  fd_guard fd(::socket(a.is_v4() ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return failed(F::connect_failed, "socket: " + system_error(errno));
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_storage ss;
  socklen_t len = to_sockaddr(a, port, ss);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) == 0) return fd;
  if (errno != EINPROGRESS) return failed(F::connect_failed, system_error(errno));
  if (auto w = wait_for(fd.get(), POLLOUT, deadline); !w) return tl::unexpected(w.error());
  int err = 0;
  socklen_t err_len = sizeof err;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &err_len);
  if (err != 0) return failed(F::connect_failed, system_error(err));
  return fd;
}

// Tries the addresses in order; each but the last gets an equal share of the time left (at
// least a second), so one black-holed address cannot use up the whole deadline.
io_result<fd_guard> connect_any(const std::vector<ip_address>& addresses, std::uint16_t port, std::string_view host,
                                clock::time_point deadline) {
  std::string last = "no address to connect to";
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    auto now = clock::now();
    if (now >= deadline) break;
    auto share = std::max<clock::duration>((deadline - now) / static_cast<long>(addresses.size() - i), std::chrono::seconds(1));
    auto attempt = i + 1 == addresses.size() ? deadline : std::min(deadline, now + share);
    auto fd = connect_one(addresses[i], port, attempt);
    if (fd) return fd;
    last = fd.error().message;
  }
  if (clock::now() >= deadline) return failed(F::timeout, "timed out while connecting");
  return failed(F::connect_failed, "could not connect to " + std::string(host) + " port " + std::to_string(port) + " (" + last + ")");
}

class plain_stream final : public stream {
 public:
  explicit plain_stream(fd_guard fd) : fd_(std::move(fd)) {}
  io_result<void> write_all(std::string_view bytes, clock::time_point deadline) override {
    return send_all(fd_.get(), bytes, deadline);
  }
  io_result<std::size_t> read_some(char* buf, std::size_t size, clock::time_point deadline) override {
    return recv_some(fd_.get(), buf, size, deadline);
  }
  [[nodiscard]] int native_handle() const override { return fd_.get(); }

 private:
  fd_guard fd_;
};

constexpr std::size_t io_chunk = 16 * 1024;

class tls_stream final : public stream {
 public:
  tls_stream(fd_guard fd, SSL* ssl, BIO* net) : fd_(std::move(fd)), ssl_(ssl), net_(net) {}
  ~tls_stream() override {
    SSL_free(ssl_);  // frees the SSL side of the pair
    BIO_free(net_);
  }
  tls_stream(const tls_stream&) = delete;
  tls_stream& operator=(const tls_stream&) = delete;

  io_result<void> handshake(clock::time_point deadline) {
    auto r = drive([this] { return SSL_connect(ssl_); }, deadline, F::tls_failed);
    if (!r) return tl::unexpected(r.error());
    if (*r == 0) return failed(F::tls_failed, "the server closed the connection during the TLS handshake");
    return {};
  }

  io_result<void> write_all(std::string_view bytes, clock::time_point deadline) override {
    while (!bytes.empty()) {
      int size = static_cast<int>(std::min<std::size_t>(bytes.size(), INT_MAX));
      auto r = drive([&] { return SSL_write(ssl_, bytes.data(), size); }, deadline, F::connection_lost);
      if (!r) return tl::unexpected(r.error());
      if (*r == 0) return failed(F::connection_lost, "the server closed the connection while the request was sent");
      bytes.remove_prefix(static_cast<std::size_t>(*r));
    }
    return {};
  }

  io_result<std::size_t> read_some(char* buf, std::size_t size, clock::time_point deadline) override {
    int want = static_cast<int>(std::min<std::size_t>(size, INT_MAX));
    auto r = drive([&] { return SSL_read(ssl_, buf, want); }, deadline, F::connection_lost);
    if (!r) return tl::unexpected(r.error());
    return static_cast<std::size_t>(*r);
  }
  [[nodiscard]] int native_handle() const override { return fd_.get(); }

 private:
  // Runs one OpenSSL call to completion, moving bytes between the BIO pair and the socket.
  // Returns the call's positive result, or 0 when the peer closed the TLS session.
  template <class Op>
  io_result<int> drive(Op op, clock::time_point deadline, F kind) {
    while (true) {
      ERR_clear_error();
      int r = op();
      int e = r > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_, r);
      std::string why = e == SSL_ERROR_SSL || e == SSL_ERROR_SYSCALL ? error_text() : "";
      if (auto f = flush(deadline); !f) return tl::unexpected(f.error());
      switch (e) {
        case SSL_ERROR_NONE: return r;
        case SSL_ERROR_ZERO_RETURN: return 0;
        case SSL_ERROR_WANT_WRITE: continue;  // flushed above
        case SSL_ERROR_WANT_READ:
          if (auto f = fill(deadline); !f) return tl::unexpected(f.error());
          continue;
        default: return failed(kind, why.empty() ? "TLS error" : why);
      }
    }
  }

  std::string error_text() const {
    long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK) return std::string("certificate verification failed: ") + X509_verify_cert_error_string(verify);
    if (unsigned long e = ERR_peek_last_error(); e != 0) {
      char buf[256];
      ERR_error_string_n(e, buf, sizeof buf);
      return buf;
    }
    return eof_ ? "the server closed the connection" : "";
  }

  io_result<void> flush(clock::time_point deadline) {
    char buf[io_chunk];
    while (BIO_ctrl_pending(net_) > 0) {
      int n = BIO_read(net_, buf, sizeof buf);
      if (n <= 0) break;
      if (auto s = send_all(fd_.get(), std::string_view(buf, static_cast<std::size_t>(n)), deadline); !s) return s;
    }
    return {};
  }

  io_result<void> fill(clock::time_point deadline) {
    std::size_t room = std::min(BIO_ctrl_get_write_guarantee(net_), io_chunk);
    if (eof_ || room == 0) return failed(F::connection_lost, "the TLS session stalled");
    char buf[io_chunk];
    auto n = recv_some(fd_.get(), buf, room, deadline);
    if (!n) return tl::unexpected(n.error());
    if (*n == 0) {
      eof_ = true;
      BIO_shutdown_wr(net_);  // the SSL side now reads end-of-file
      return {};
    }
    BIO_write(net_, buf, static_cast<int>(*n));  // fits: at most the write guarantee
    return {};
  }

  fd_guard fd_;
  SSL* ssl_;
  BIO* net_;
  bool eof_ = false;
};

bool configure_peer_name(SSL* ssl, const std::string& host, bool host_is_ip) {
  SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  if (host_is_ip) return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str()) == 1;
  // SNI only for names: RFC 6066 does not allow IP literals there.
  return SSL_set_tlsext_host_name(ssl, host.c_str()) == 1 && SSL_set1_host(ssl, host.c_str()) == 1;
}

}  // namespace

tl::expected<std::shared_ptr<tls_context>, std::string> tls_context::create(bool system_ca, const std::string& extra_ca_file) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return tl::unexpected<std::string>("cannot create a TLS context");
  std::shared_ptr<tls_context> owner(new tls_context(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  // A body that ends with the connection is accepted without close_notify, as browsers do;
  // Content-Length and chunked bodies are checked for completeness by the parser.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  if (system_ca && SSL_CTX_set_default_verify_paths(ctx) != 1) {
    return tl::unexpected<std::string>("cannot load the system CA store");
  }
  if (!extra_ca_file.empty() && SSL_CTX_load_verify_locations(ctx, extra_ca_file.c_str(), nullptr) != 1) {
    return tl::unexpected<std::string>("cannot load the CA file " + extra_ca_file);
  }
  return owner;
}

tls_context::~tls_context() { SSL_CTX_free(static_cast<SSL_CTX*>(ctx_)); }

io_result<std::unique_ptr<stream>> connect_plain(const std::vector<ip_address>& addresses, std::uint16_t port,
                                                 std::string_view host, clock::time_point deadline) {
  auto fd = connect_any(addresses, port, host, deadline);
  if (!fd) return tl::unexpected(fd.error());
  return std::make_unique<plain_stream>(std::move(*fd));
}

io_result<std::unique_ptr<stream>> connect_tls(const tls_context& tls, const std::vector<ip_address>& addresses,
                                               std::uint16_t port, const std::string& host, bool host_is_ip,
                                               clock::time_point deadline) {
  auto fd = connect_any(addresses, port, host, deadline);
  if (!fd) return tl::unexpected(fd.error());
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(tls.native()));
  if (ssl == nullptr) return failed(F::internal_error, "cannot create a TLS session");
  BIO* inner = nullptr;
  BIO* net = nullptr;
  if (BIO_new_bio_pair(&inner, 0, &net, 0) != 1) {
    SSL_free(ssl);
    return failed(F::internal_error, "cannot create a TLS session");
  }
  SSL_set_bio(ssl, inner, inner);
  auto s = std::make_unique<tls_stream>(std::move(*fd), ssl, net);
  if (!configure_peer_name(ssl, host, host_is_ip)) return failed(F::tls_failed, "cannot set the host name to verify");
  if (auto h = s->handshake(deadline); !h) return tl::unexpected(h.error());
  return s;
}

}  // namespace platform::http_transport
