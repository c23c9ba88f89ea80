#pragma once
// Sockets and TLS for the HTTP executor (and the worker's provider door), everything bounded by one deadline. Only what the
// executor needs: connect to checked addresses, then a byte stream (plain or TLS) to write a
// request into and read a response from. OpenSSL stays inside transport.cpp.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "platform/http_action_result.hpp"
#include "platform/ip_address.hpp"

namespace platform::http_transport {

using clock = std::chrono::steady_clock;

struct io_failure {
  integration_error kind;  // timeout, connect_failed, connection_lost, tls_failed, internal
  std::string message;       // names hosts and system errors, never request content
};

template <class T>
using io_result = tl::expected<T, io_failure>;

class stream {
 public:
  virtual ~stream() = default;
  virtual io_result<void> write_all(std::string_view bytes, clock::time_point deadline) = 0;
  // Bytes read into `buf`; 0 when the peer closed the connection.
  virtual io_result<std::size_t> read_some(char* buf, std::size_t size, clock::time_point deadline) = 0;
  // The socket, to wait on it beside another descriptor (poll for POLLIN, then read_some).
  [[nodiscard]] virtual int native_handle() const = 0;
};

// TLS client settings shared by every connection: peer verification on, TLS 1.2 or newer,
// the system CA store and/or an extra PEM file.
class tls_context {
 public:
  static tl::expected<std::shared_ptr<tls_context>, std::string> create(bool system_ca, const std::string& extra_ca_file);
  ~tls_context();
  tls_context(const tls_context&) = delete;
  tls_context& operator=(const tls_context&) = delete;
  [[nodiscard]] void* native() const { return ctx_; }  // SSL_CTX*

 private:
  explicit tls_context(void* ctx) : ctx_(ctx) {}
  void* ctx_;
};

// A TCP connection to the first of `addresses` that accepts, tried in order. `host` and port
// only name the peer in messages.
io_result<std::unique_ptr<stream>> connect_plain(const std::vector<ip_address>& addresses, std::uint16_t port,
                                                 std::string_view host, clock::time_point deadline);

// The same, then a TLS handshake that sends `host` as SNI (names only) and verifies the
// certificate for `host` (a name or an IP literal).
io_result<std::unique_ptr<stream>> connect_tls(const tls_context& tls, const std::vector<ip_address>& addresses,
                                               std::uint16_t port, const std::string& host, bool host_is_ip,
                                               clock::time_point deadline);

}  // namespace platform::http_transport
