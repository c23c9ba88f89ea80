#include "test_server.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "platform/ascii.hpp"

namespace test_support {
namespace {

constexpr std::size_t three_mib = 3 * 1024 * 1024;

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string query_param(const std::string& target, const std::string& name) {
  auto q = target.find('?');
  if (q == std::string::npos) return {};
  std::string_view rest = std::string_view(target).substr(q + 1);
  while (!rest.empty()) {
    auto amp = rest.find('&');
    auto pair = rest.substr(0, amp);
    if (pair.substr(0, name.size() + 1) == name + "=") return percent_decoded(pair.substr(name.size() + 1));
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return {};
}

std::string response(int status, const std::string& body, const std::string& extra = {},
                     const std::string& type = "application/json") {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: " + type + "\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n" + extra + "\r\n" + body;
}

std::string redirect(int status, const std::string& location) {
  return response(status, "", "Location: " + location + "\r\n", "text/plain");
}

}  // namespace

std::optional<std::string> recorded_request::header(const std::string& name) const {
  for (const auto& [n, v] : headers) {
    if (platform::iequals(n, name)) return v;
  }
  return std::nullopt;
}

struct test_server::connection {
  int fd;
  SSL* ssl = nullptr;

  int read(char* buf, int size) const { return ssl ? SSL_read(ssl, buf, size) : static_cast<int>(::recv(fd, buf, static_cast<std::size_t>(size), 0)); }
  bool write(std::string_view s) const {
    while (!s.empty()) {
      int n = ssl ? SSL_write(ssl, s.data(), static_cast<int>(s.size()))
                  : static_cast<int>(::send(fd, s.data(), s.size(), MSG_NOSIGNAL));
      if (n <= 0) return false;
      s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
};

test_server::test_server(const std::string& cert_file, const std::string& key_file) {
  std::signal(SIGPIPE, SIG_IGN);  // TLS writes to a client that left must fail, not kill the test
  if (!cert_file.empty()) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      throw std::runtime_error("test server: cannot load " + cert_file);
    }
    tls_ = ctx;
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("test server: cannot listen");
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

test_server::~test_server() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  {
    std::lock_guard lock(m_);
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  stopped_.notify_all();
  acceptor_.join();
  for (auto& t : workers_) t.join();
  for (int fd : client_fds_) ::close(fd);
  ::close(listen_fd_);
  if (tls_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(tls_));
}

std::vector<recorded_request> test_server::requests() const {
  std::lock_guard lock(m_);
  return requests_;
}

void test_server::accept_loop() {
  while (!stopping_) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    ++connections_;
    timeval tv{10, 0};  // a stuck test must not hang the run
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::lock_guard lock(m_);
    client_fds_.push_back(fd);
    workers_.emplace_back([this, fd] { serve(fd); });
  }
}

void test_server::wait_until_stopped() {
  std::unique_lock lock(m_);
  stopped_.wait(lock, [this] { return stopping_.load(); });
}

void test_server::serve(int fd) {
  connection c{fd};
  if (tls_ != nullptr) {
    c.ssl = SSL_new(static_cast<SSL_CTX*>(tls_));
    SSL_set_fd(c.ssl, fd);
    if (SSL_accept(c.ssl) != 1) {  // e.g. the client refused the certificate
      SSL_free(c.ssl);
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
  }
  recorded_request r;
  if (c.ssl != nullptr) {
    const char* sni = SSL_get_servername(c.ssl, TLSEXT_NAMETYPE_host_name);
    r.sni = sni != nullptr ? sni : "";
  }
  std::string data;
  char buf[8192];
  std::size_t head_end = std::string::npos;
  while ((head_end = data.find("\r\n\r\n")) == std::string::npos && data.size() < 65536) {
    int n = c.read(buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  if (head_end != std::string::npos) {
    std::string_view head(data.data(), head_end);
    auto line_end = head.find("\r\n");
    std::string_view line = head.substr(0, line_end);
    auto sp1 = line.find(' '), sp2 = line.rfind(' ');
    r.method = std::string(line.substr(0, sp1));
    r.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
    std::string_view rest = line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);
    while (!rest.empty()) {
      auto e = rest.find("\r\n");
      auto h = rest.substr(0, e);
      auto colon = h.find(':');
      if (colon != std::string_view::npos) {
        auto v = h.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
        r.headers.emplace_back(std::string(h.substr(0, colon)), std::string(v));
      }
      if (e == std::string_view::npos) break;
      rest.remove_prefix(e + 2);
    }
    r.body = data.substr(head_end + 4);
    std::size_t want = std::stoul(r.header("content-length").value_or("0"));
    while (r.body.size() < want) {
      int n = c.read(buf, sizeof buf);
      if (n <= 0) break;
      r.body.append(buf, static_cast<std::size_t>(n));
    }
    {
      std::lock_guard lock(m_);
      requests_.push_back(r);
    }
    respond(c, r);
  }
  if (c.ssl != nullptr) {
    SSL_shutdown(c.ssl);
    SSL_free(c.ssl);
  }
  ::shutdown(fd, SHUT_RDWR);
}

void test_server::respond(connection& c, const recorded_request& r) {
  std::string path = r.target.substr(0, r.target.find('?'));
  if (path == "/ok") {
    c.write(response(200, R"({"ok":true,"items":[1,2,3]})"));
  } else if (path == "/echo") {
    nlohmann::json headers = nlohmann::json::object();
    for (const auto& [n, v] : r.headers) headers[platform::ascii_lower(n)] = v;
    nlohmann::json body{{"method", r.method}, {"target", r.target}, {"headers", headers}, {"body", r.body}, {"sni", r.sni}};
    c.write(response(200, body.dump()));
  } else if (path == "/chunked") {
    c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (std::string piece : {R"({"chunked":)", "true,", R"("n":[1,2,3]})"}) {
      char size[16];
      std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
      c.write(size + piece + "\r\n");
    }
    c.write("0\r\n\r\n");
  } else if (path.rfind("/status/", 0) == 0) {
    nlohmann::json body{{"error", "bad key " + r.header("x-api-key").value_or("")}, {"token", "provider-token-1"}};
    c.write(response(std::stoi(path.substr(8)), body.dump()));
  } else if (path == "/slow") {
    wait_until_stopped();
  } else if (path == "/slow-body") {
    c.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
    wait_until_stopped();
  } else if (path == "/huge") {
    c.write("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(three_mib) + "\r\n\r\n");
  } else if (path == "/huge-chunked" || path == "/huge-close") {
    bool chunked = path == "/huge-chunked";
    c.write(std::string("HTTP/1.1 200 OK\r\n") + (chunked ? "Transfer-Encoding: chunked\r\n" : "") + "\r\n");
    std::string block(64 * 1024, 'x');
    std::string framed = chunked ? "10000\r\n" + block + "\r\n" : block;
    for (std::size_t sent = 0; sent < three_mib && !stopping_; sent += block.size()) {
      if (!c.write(framed)) return;
    }
  } else if (path.rfind("/redirect/", 0) == 0) {
    int n = std::stoi(path.substr(10));
    c.write(n == 0 ? response(200, R"({"hops":"done"})") : redirect(302, "/redirect/" + std::to_string(n - 1)));
  } else if (path == "/loop") {
    c.write(redirect(302, "/loop"));
  } else if (path == "/redirect-to") {
    std::string status = query_param(r.target, "status");
    c.write(redirect(status.empty() ? 302 : std::stoi(status), query_param(r.target, "to")));
  } else if (path == "/see-other") {
    c.write(redirect(303, "/echo"));
  } else if (path == "/temporary") {
    c.write(redirect(307, "/echo"));
  } else {
    c.write(response(404, R"({"error":"no route"})"));
  }
}

std::uint16_t unused_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

namespace {

void run(const std::string& command) {
  if (std::system((command + " >/dev/null 2>&1").c_str()) != 0) throw std::runtime_error("failed: " + command);
}

// A key and a certificate for `names` (subjectAltName syntax), signed by the test CA.
void issue(const test_pki& p, const std::string& name, const std::string& alt_names, const std::string& serial) {
  const char* env = std::getenv("OPENSSL");
  std::string openssl = env != nullptr ? env : "openssl";
  std::string base = p.dir + "/" + name;
  std::ofstream(base + ".ext") << "subjectAltName=" << alt_names
                               << "\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n";
  run(openssl + " req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout " + base + ".key -out " + base +
      ".csr -subj /CN=" + name);
  run(openssl + " x509 -req -in " + base + ".csr -CA " + p.ca + " -CAkey " + p.dir + "/ca.key -set_serial " + serial +
      " -days 2 -extfile " + base + ".ext -out " + base + ".pem");
}

struct pki_owner {
  test_pki p;
  pki_owner() {
    char dir[] = "/tmp/http-executor-pki-XXXXXX";
    if (::mkdtemp(dir) == nullptr) throw std::runtime_error("mkdtemp failed");
    p.dir = dir;
    const char* env = std::getenv("OPENSSL");
    std::string openssl = env != nullptr ? env : "openssl";
    p.ca = p.dir + "/ca.pem";
    run(openssl + " req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout " + p.dir + "/ca.key -out " + p.ca +
        " -days 2 -subj '/CN=platform executor test CA' -addext basicConstraints=critical,CA:TRUE"
        " -addext keyUsage=critical,keyCertSign,cRLSign");
    issue(p, "good", "DNS:api.acme.test,DNS:localhost,IP:127.0.0.1", "2");
    issue(p, "other", "DNS:other.test", "3");
    p.good_cert = p.dir + "/good.pem";
    p.good_key = p.dir + "/good.key";
    p.other_cert = p.dir + "/other.pem";
    p.other_key = p.dir + "/other.key";
  }
  ~pki_owner() {
    std::error_code ec;
    std::filesystem::remove_all(p.dir, ec);
  }
};

}  // namespace

const test_pki& pki() {
  static pki_owner owner;
  return owner.p;
}

}  // namespace test_support
