#pragma once
// A small HTTP/1.1 provider stand-in on 127.0.0.1 (plain, or TLS with a given certificate) for
// the executor test. One thread per connection, one request per connection; it records every
// request and counts accepted connections, so a test can prove that nothing was connected.
//
// Routes: /ok, /echo (method, target, headers, body, SNI as JSON), /chunked, /status/<code>
// (echoes the X-Api-Key header in its error body), /slow (never answers), /slow-body (stops
// mid-body), /huge (declares 3 MiB), /huge-chunked and /huge-close (stream 3 MiB),
// /redirect/<n> (n hops, then /ok), /loop, /redirect-to?to=<url>&status=<code>,
// /see-other and /temporary (303 and 307 to /echo).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace test_support {

struct recorded_request {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string sni;

  [[nodiscard]] std::optional<std::string> header(const std::string& name) const;
};

class test_server {
 public:
  // Plain HTTP without a certificate; TLS with one.
  explicit test_server(const std::string& cert_file = {}, const std::string& key_file = {});
  ~test_server();
  test_server(const test_server&) = delete;
  test_server& operator=(const test_server&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] int connections() const { return connections_.load(); }
  [[nodiscard]] std::vector<recorded_request> requests() const;

 private:
  struct connection;
  void accept_loop();
  void serve(int fd);
  void respond(connection& c, const recorded_request& r);
  void wait_until_stopped();

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  void* tls_ = nullptr;  // SSL_CTX*
  std::atomic<int> connections_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex m_;
  std::condition_variable stopped_;
  std::vector<recorded_request> requests_;
  std::vector<std::thread> workers_;
  std::vector<int> client_fds_;
  std::thread acceptor_;
};

// A port on 127.0.0.1 that nothing listens on (bound, read, closed).
std::uint16_t unused_port();

// A test CA and two server certificates made with the openssl CLI in a temp dir (removed at
// exit): `good` for api.acme.test, localhost and IP 127.0.0.1; `other` for other.test only.
struct test_pki {
  std::string dir, ca, good_cert, good_key, other_cert, other_key;
};
const test_pki& pki();

}  // namespace test_support
