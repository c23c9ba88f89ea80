#include "agent_sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "adapters/http_executor.hpp"
#include "adapters/http_transport.hpp"
#include "adapters/sandbox_driver.hpp"
#include "../common/socket_io.hpp"
#include "platform/api_error.hpp"
#include "platform/egress_head.hpp"
#include "platform/internet_door.hpp"
#include "platform/url.hpp"
#include "random_hex.hpp"
#include "worker_config.hpp"
#include "worker_stats.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

// A model turn streams for minutes; a request head arrives at once.
constexpr auto head_timeout = std::chrono::seconds(30);
constexpr auto exchange_timeout = std::chrono::minutes(15);

struct fd_guard {
  int fd = -1;
  explicit fd_guard(int f = -1) : fd(f) {}
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
};

using servers::send_all;

// Bytes from the jail's side, waiting until `deadline`; 0 at its end or on a timeout.
std::size_t recv_some(int fd, char* buf, std::size_t size, clock_type::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
    if (left <= 0) return 0;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 60'000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    if (r < 0) return 0;
    ssize_t n = ::recv(fd, buf, size, 0);
    if (n < 0 && errno == EINTR) continue;
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }
}

void refuse(int fd, int status, std::string_view message) {
  std::string text;
  for (char c : message) {
    if (c == '"' || c == '\\') text += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) text += c;
  }
  std::string body = R"({"error":{"code":"egress_refused","message":")" + text + "\"}}";
  std::string reply = "HTTP/1.1 " + std::to_string(status) +
                      (status == 502 ? " Bad Gateway" : status == 403 ? " Forbidden" : " Bad Request") +
                      "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body;
  send_all(fd, reply);
}

// The provider door: one request per connection (the head says Connection: close), the
// placeholder swapped for the secret, the upstream's answer relayed until it closes.
struct provider_route {
  url upstream;
  std::string path_prefix;
  std::string placeholder;
  std::string secret;
  std::shared_ptr<http_transport::tls_context> tls;
};

// The connection's first request head, within head_timeout; false (answered when too large)
// when there is none to act on.
bool read_head(int fd, egress_head_reader& reader) {
  auto deadline = clock_type::now() + head_timeout;
  char buf[16384];
  while (reader.current() == egress_head_reader::state::need_more) {
    std::size_t n = recv_some(fd, buf, sizeof buf, deadline);
    if (n == 0) return false;
    reader.feed(std::string_view(buf, n));
  }
  if (reader.current() != egress_head_reader::state::too_large) return true;
  refuse(fd, 400, "the request head is too large");
  return false;
}

// Whether the jail's end of a door connection is closed (its process died or hung up).
bool jail_side_gone(int fd) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) return true;
  char c;
  return (p.revents & POLLIN) && ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

void serve_provider(int fd, const provider_route& route) {
  egress_head_reader reader;
  if (!read_head(fd, reader)) return;
  char buf[65536];
  egress_head_rules rules{route.placeholder, route.secret, route.upstream.authority(), route.path_prefix};
  auto request = rewrite_egress_request(reader.head(), rules);
  if (!request) return refuse(fd, 400, "the request breaks the provider door's rules");
  // One request, then the answer, over one upstream stream (TLS cannot read and write at once
  // from two threads): the body's end must be known, so a chunked body is refused.
  if (!request->content_length) return refuse(fd, 400, "the provider door takes bodies with a Content-Length only");
  auto exchange_deadline = clock_type::now() + exchange_timeout;
  std::vector<ip_address> addresses;
  if (auto literal = route.upstream.address()) {
    addresses.push_back(*literal);
  } else {
    auto found = system_resolve(route.upstream.host, std::chrono::seconds(10));
    if (!found) return refuse(fd, 502, "the provider's host does not resolve");
    addresses = std::move(*found);
  }
  auto up = route.upstream.scheme == "https"
                ? http_transport::connect_tls(*route.tls, addresses, route.upstream.port, route.upstream.host,
                                              route.upstream.kind != host_kind::name, exchange_deadline)
                : http_transport::connect_plain(addresses, route.upstream.port, route.upstream.host, exchange_deadline);
  if (!up) return refuse(fd, 502, "the provider is unreachable");
  std::string first = std::move(request->head);
  std::string_view rest = reader.rest();
  std::uint64_t body_left = *request->content_length;
  std::size_t now = static_cast<std::size_t>(std::min<std::uint64_t>(rest.size(), body_left));
  first.append(rest.substr(0, now));
  body_left -= now;
  if (!(*up)->write_all(first, exchange_deadline)) return;
  while (body_left > 0) {
    auto want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, body_left));
    std::size_t n = recv_some(fd, buf, want, exchange_deadline);
    if (n == 0) return;
    if (!(*up)->write_all(std::string_view(buf, n), exchange_deadline)) return;
    body_left -= n;
  }
  // Waits on both sides: a jail that is gone (a stopped
  // turn) closes the upstream request at once, so the provider stops generating, and billing,
  // instead of when its reply ends.
  for (;;) {
    // What TLS already holds first (a read that would wait ends at once), then a wait on both.
    auto n = (*up)->read_some(buf, sizeof buf, clock_type::now());
    if (!n && n.error().kind == integration_error::timeout) {
      if (clock_type::now() >= exchange_deadline) break;
      pollfd p[2] = {{(*up)->native_handle(), POLLIN, 0}, {fd, POLLRDHUP, 0}};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(exchange_deadline - clock_type::now()).count();
      int r = ::poll(p, 2, static_cast<int>(std::clamp<long long>(left, 1, 60'000)));
      if (r < 0 && errno != EINTR) break;
      if (p[1].revents != 0 && jail_side_gone(fd)) break;
      continue;
    }
    if (!n || *n == 0) break;
    if (!send_all(fd, std::string_view(buf, *n))) break;
  }
  ::shutdown(fd, SHUT_WR);
}

// Bytes both ways between the jail's side and `up` until both ends are done.
void relay_both(int fd, int up) {
  pollfd p[2] = {{fd, POLLIN | POLLRDHUP, 0}, {up, POLLIN, 0}};
  bool open[2] = {true, true};
  char buf[65536];
  while (open[0] || open[1]) {
    int r = ::poll(p, 2, 600'000);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    for (int i = 0; i < 2; ++i) {
      if (!open[i] || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::recv(p[i].fd, buf, sizeof buf, 0);
      int other = i == 0 ? up : fd;
      if (n <= 0) {
        // The jail's side hung up whole (its process is gone): nothing more to relay either way.
        if (i == 0 && (p[0].revents & (POLLHUP | POLLERR))) return;
        open[i] = false;
        p[i].fd = -1;
        ::shutdown(other, SHUT_WR);
        continue;
      }
      if (!send_all(other, std::string_view(buf, static_cast<std::size_t>(n)))) return;
    }
  }
}

// A TCP connection to the first of `addresses` that answers within `deadline`; -1 when none.
int connect_any(const std::vector<ip_address>& addresses, std::uint16_t port, clock_type::time_point deadline) {
  for (const auto& a : addresses) {
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (a.is_v4()) {
      auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
      v4->sin_family = AF_INET;
      v4->sin_port = htons(port);
      std::memcpy(&v4->sin_addr, a.bytes.data(), 4);
      len = sizeof *v4;
    } else {
      auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
      v6->sin6_family = AF_INET6;
      v6->sin6_port = htons(port);
      std::memcpy(&v6->sin6_addr, a.bytes.data(), 16);
      len = sizeof *v6;
    }
    int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    int r = ::connect(fd, reinterpret_cast<sockaddr*>(&ss), len);
    if (r != 0 && errno == EINPROGRESS) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t el = sizeof err;
      if (left > 0 && ::poll(&p, 1, static_cast<int>(left)) == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0) r = 0;
    }
    if (r == 0) {
      int flags = ::fcntl(fd, F_GETFL);
      ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
      return fd;
    }
    ::close(fd);
  }
  return -1;
}

// The broker door: bytes both ways to the broker's own listener, which answers /mcp/* only.
void serve_broker(int fd, int port) {
  if (port <= 0) return;
  int up = connect_any({ip_address::v4(0x7f000001)}, static_cast<std::uint16_t>(port), clock_type::now() + std::chrono::seconds(5));
  if (up < 0) return;
  fd_guard guard(up);
  relay_both(fd, up);
}

// The internet door (platform/internet_door.hpp): one CONNECT per connection, to an address the
// guard allows, then bytes both ways; TLS runs end to end through it.
void serve_internet(int fd, const address_allow_list& allow) {
  egress_head_reader reader(16 * 1024);
  if (!read_head(fd, reader)) return;
  auto target = parse_connect_head(reader.head());
  if (!target) return refuse(fd, 403, target.error().message);
  std::vector<ip_address> resolved;
  if (target->address) {
    resolved.push_back(*target->address);
  } else {
    auto found = system_resolve(target->host, std::chrono::seconds(10));
    if (found) resolved = std::move(*found);
  }
  auto addresses = internet_door_addresses(*target, resolved, allow);
  if (!addresses) return refuse(fd, 403, addresses.error().message);
  int up = connect_any(*addresses, target->port, clock_type::now() + std::chrono::seconds(15));
  if (up < 0) return refuse(fd, 502, "the host " + target->host + " did not answer on port " + std::to_string(target->port));
  fd_guard guard(up);
  if (!send_all(fd, "HTTP/1.1 200 Connection established\r\n\r\n")) return;
  if (!reader.rest().empty() && !send_all(up, reader.rest())) return;
  relay_both(fd, up);
}

// A socket in the jail's doors directory and the thread accepting on it; every connection on a
// thread of its own, holding what it serves by shared pointer, so a door may close first.
class door {
 public:
  using handler = std::function<void(int)>;
  static result<std::unique_ptr<door>> open(const std::string& path, const sandbox_identity& who, handler h) {
    if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
      return fail(api_error::sandbox_unavailable, "the sandbox dir's path is too long for a socket: set PLATFORM_SANDBOX_DIR shorter");
    }
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail(api_error::sandbox_unavailable, "cannot create a door socket");
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    ::unlink(path.c_str());
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0 ||
        ::chown(path.c_str(), who.uid, who.gid) != 0 || ::chmod(path.c_str(), 0600) != 0) {
      ::close(fd);
      return fail(api_error::sandbox_unavailable, std::string("cannot open a door socket: ") + std::strerror(errno));
    }
    std::unique_ptr<door> d(new door(fd, std::move(h)));
    if (d->wake_[0] < 0) return fail(api_error::sandbox_unavailable, "cannot open a door's wake pipe");
    d->thread_ = std::thread([raw = d.get()] { raw->accept_loop(); });
    return d;
  }
  ~door() {
    // A Unix listener's accept() does not wake for shutdown(): the loop polls a pipe beside it.
    char one = 1;
    while (::write(wake_[1], &one, 1) < 0 && errno == EINTR) {
    }
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

 private:
  door(int fd, handler h) : fd_(fd), handler_(std::make_shared<handler>(std::move(h))) {
    if (::pipe2(wake_, O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
  }
  void accept_loop() {
    for (;;) {
      pollfd p[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      int r = ::poll(p, 2, -1);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 || p[1].revents != 0) return;
      if (!(p[0].revents & POLLIN)) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) {
        if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
        return;
      }
      std::thread([c, h = handler_] {
        (*h)(c);
        ::close(c);
      }).detach();
    }
  }
  int fd_;
  int wake_[2] = {-1, -1};
  std::shared_ptr<handler> handler_;
  std::thread thread_;
};

// Gives everything under the directory open at `dir` to `who`, by descriptors and without
// following a link: a jailed process of the same app may swap a directory for a link meanwhile,
// and a walk by path would then hand a host file to the app's uid.
void own_at(int dir, const sandbox_identity& who, int depth, bool skip_node_modules) {
  if (depth > 64) return;
  int listing = ::dup(dir);
  if (listing < 0) return;
  DIR* d = ::fdopendir(listing);
  if (!d) {
    ::close(listing);
    return;
  }
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    // A file with another link lives elsewhere too (a read-only package cache linked in): giving
    // it away here would give it away there.
    bool linked_elsewhere = !S_ISDIR(st.st_mode) && st.st_nlink > 1;
    if (!linked_elsewhere && (st.st_uid != who.uid || st.st_gid != who.gid)) {
      (void)::fchownat(dir, e->d_name, who.uid, who.gid, AT_SYMLINK_NOFOLLOW);
    }
    // node_modules is mounted read-only over the workspace's: not the jail's to own.
    if (!S_ISDIR(st.st_mode) || (skip_node_modules && depth == 0 && name == "node_modules")) continue;
    int sub = ::openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    own_at(sub, who, depth + 1, false);
    ::close(sub);
  }
  ::closedir(d);
}

void own_path(const std::string& root, const sandbox_identity& who, bool skip_node_modules) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && (st.st_uid != who.uid || st.st_gid != who.gid)) (void)::fchown(fd, who.uid, who.gid);
  own_at(fd, who, 0, skip_node_modules);
  ::close(fd);
}

void own_tree(const std::string& root, const sandbox_identity& who) { own_path(root, who, false); }

// Everything under the workspace (but node_modules, mounted read-only) belongs to the app's
// jail identity: files the worker wrote (a restored draft, an agents.json PATCH) stay
// editable by the app's agents.
void own_workspace(const std::string& workspace, const sandbox_identity& who) { own_path(workspace, who, true); }

std::string absolute(const std::string& p) {
  std::error_code ec;
  auto abs = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? std::string() : abs.string();
}

// What a runtime's CLI needs read-only: its install, found from the path it is started by (the
// node_modules tree it lives in, else its directory); nothing under /usr, mounted anyway.
void add_install(std::vector<std::string>& out, const std::string& program) {
  if (program.empty()) return;
  for (const std::string& p : {absolute(program), [&] {
         std::error_code ec;
         auto c = fs::canonical(program, ec);
         return ec ? std::string() : c.string();
       }()}) {
    if (p.empty() || p.starts_with("/usr/")) continue;
    std::string dir;
    if (auto at = p.rfind("/node_modules/"); at != std::string::npos) dir = p.substr(0, at + 13);
    else dir = fs::path(p).parent_path().string();
    if (!dir.empty() && std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
  }
}

}  // namespace

bool links_to_template_tree(const config& cfg, const std::string& workspace) {
  std::error_code ec;
  fs::path nm = fs::path(workspace) / "node_modules";
  if (!fs::is_symlink(fs::symlink_status(nm, ec))) return false;
  fs::path link = fs::read_symlink(nm, ec);
  return !ec && fs::equivalent(link, fs::path(cfg.app_template_dir) / "node_modules", ec);
}

std::string jail_node_modules(const config& cfg, const std::string& workspace) {
  std::error_code ec;
  fs::path nm = fs::path(workspace) / "node_modules";
  auto st = fs::symlink_status(nm, ec);
  if (fs::is_symlink(st)) {
    if (!links_to_template_tree(cfg, workspace)) return {};
    return absolute((fs::path(cfg.app_template_dir) / "node_modules").string());
  }
  return fs::is_directory(st) ? absolute(nm.string()) : std::string();
}

struct turn_jail::doors {
  std::vector<std::unique_ptr<door>> open;
};

struct agent_sandbox::impl {
  const config* cfg = nullptr;
  std::unique_ptr<sandbox_driver> driver;  // null: the development switch is off
  std::string root;
  std::vector<std::string> installs;  // the runtimes' CLIs, read-only in every jail
  std::shared_ptr<http_transport::tls_context> tls;
  std::shared_ptr<const address_allow_list> internet_allow;
  std::string description;
};

agent_sandbox::~agent_sandbox() = default;

result<std::shared_ptr<agent_sandbox>> agent_sandbox::create(const config& cfg, const std::string& relay_path) {
  std::shared_ptr<agent_sandbox> s(new agent_sandbox());
  s->impl_ = std::make_unique<impl>();
  auto& i = *s->impl_;
  i.cfg = &cfg;
  std::error_code ec;
  fs::create_directories(cfg.sandbox_dir, ec);
  i.root = absolute(cfg.sandbox_dir);
  if (ec || i.root.empty()) return fail(api_error::sandbox_unavailable, "cannot create the sandbox dir " + cfg.sandbox_dir);
  // The jails' identities pass through to reach their own dirs; nothing here is listable.
  ::chmod(i.root.c_str(), 0711);
  for (const auto* p : {&cfg.claude_path, &cfg.codex_path, &cfg.opencode_path}) add_install(i.installs, *p);
  auto allow = address_allow_list::parse(cfg.sandbox_internet_allow);
  if (!allow) return fail(api_error::invalid_config, "PLATFORM_SANDBOX_INTERNET_ALLOW: " + allow.error().message);
  i.internet_allow = std::make_shared<const address_allow_list>(std::move(*allow));
  if (cfg.sandbox_mode == "off") {
    i.description = "off (PLATFORM_SANDBOX=off: every agent runs as the worker's own user, with all it can reach)";
    return s;
  }
  if (::geteuid() != 0) {
    return fail(api_error::sandbox_unavailable,
                "the worker is not root, so it cannot give its agents a uid of their own: run platform-worker as root "
                "(its jails drop to PLATFORM_SANDBOX_UID_BASE and up), or PLATFORM_SANDBOX=off on a development machine");
  }
  auto tools = find_bubblewrap_tools("/usr/bin:/bin:/usr/sbin:/sbin", relay_path);
  if (!tools) return tl::unexpected(tools.error());
  i.driver = make_bubblewrap_driver(*tools);
  auto tls = http_transport::tls_context::create(true, "");
  if (!tls) return fail(api_error::sandbox_unavailable, "the provider door has no TLS: " + tls.error());
  i.tls = *tls;
  std::string scratch = i.root + "/probe-" + random_hex(6);
  sandbox_identity probe_id{cfg.sandbox_uid_base, cfg.sandbox_uid_base};
  auto probed = probe_sandbox(*i.driver, probe_id, scratch);
  fs::remove_all(scratch, ec);
  if (!probed) return tl::unexpected(probed.error());
  i.description = i.driver->describe() + ", uids " + std::to_string(cfg.sandbox_uid_base) + "+" +
                  std::to_string(cfg.sandbox_uid_count);
  if (cfg.sandbox_test_open.any()) i.description += " WITH WALLS OPENED FOR A TEST (PLATFORM_SANDBOX_TEST_OPEN)";
  return s;
}

bool agent_sandbox::enabled() const { return impl_->driver != nullptr; }
std::string agent_sandbox::describe() const { return impl_->description; }

// Counted and timed for GET /metrics (worker_stats.hpp).
result<std::unique_ptr<turn_jail>> agent_sandbox::open(const jail_plan& plan) const {
  auto since = std::chrono::steady_clock::now();
  auto j = open_jail(plan);
  worker_stats.sandbox_open.observe_since(since);
  (j ? worker_stats.sandbox_starts : worker_stats.sandbox_failures).fetch_add(1, std::memory_order_relaxed);
  return j;
}

result<std::unique_ptr<turn_jail>> agent_sandbox::open_jail(const jail_plan& plan) const {
  std::unique_ptr<turn_jail> j(new turn_jail());
  j->owner_ = this;
  j->jailed_ = enabled();
  j->identity_ = sandbox_identity_for(plan.app_id, impl_->cfg->sandbox_uid_base, impl_->cfg->sandbox_uid_count);
  j->workspace_ = absolute(plan.workspace);
  j->node_modules_ = plan.node_modules.empty() ? std::string() : absolute(plan.node_modules);
  j->provider_ = plan.provider;
  j->broker_ = plan.broker;
  j->internet_ = plan.internet;
  j->broker_token_var_ = plan.broker_token_var;
  j->placeholder_ = "platform-sandbox-" + random_hex(16);
  j->read_only_ = impl_->installs;
  for (const auto& p : plan.read_only) {
    std::string a = absolute(p);
    if (!a.empty() && std::find(j->read_only_.begin(), j->read_only_.end(), a) == j->read_only_.end()) j->read_only_.push_back(a);
  }
  if (!j->node_modules_.empty() && j->node_modules_ != j->workspace_ + "/node_modules") {
    // The workspace links to the template's tree: that tree read-only where the link points (a
    // link is no mount point). The jail may re-point its link, but the worker puts it back
    // before every jail (ensure_node_modules, jail_node_modules), so no build runs another tree.
    if (std::find(j->read_only_.begin(), j->read_only_.end(), j->node_modules_) == j->read_only_.end()) {
      j->read_only_.push_back(j->node_modules_);
    }
    j->node_modules_.clear();
  }
  std::string name = random_hex(8);
  if (name.empty() || j->workspace_.empty()) return fail(api_error::sandbox_unavailable, "cannot name the turn's sandbox");
  j->root_ = impl_->root + "/" + name;
  j->home_ = j->root_ + "/home";
  j->tmp_ = j->root_ + "/tmp";
  j->doors_dir_ = j->root_ + "/doors";
  for (const auto* d : {&j->root_, &j->home_, &j->tmp_, &j->doors_dir_}) {
    if (::mkdir(d->c_str(), 0700) != 0) return fail(api_error::sandbox_unavailable, "cannot create the turn's sandbox dirs");
    if (j->jailed_ && ::chown(d->c_str(), j->identity_.uid, j->identity_.gid) != 0) {
      return fail(api_error::sandbox_unavailable, "cannot give the turn's sandbox dirs to its uid");
    }
  }
  if (!j->jailed_) return j;
  own_path(j->workspace_, j->identity_, !plan.own_node_modules);
  j->doors_ = std::make_unique<turn_jail::doors>();
  if (plan.provider) {
    auto target = parse_url(plan.provider->upstream);
    if (!target) return fail(api_error::sandbox_unavailable, "the runtime's provider URL is not an http(s) URL");
    auto route = std::make_shared<provider_route>();
    route->upstream = *target;
    std::string path = target->target.substr(0, target->target.find('?'));
    while (!path.empty() && path.back() == '/') path.pop_back();
    route->path_prefix = path;
    bool open = impl_->cfg->sandbox_test_open.credentials;
    route->placeholder = plan.provider->secret.empty() || open ? std::string() : j->placeholder_;
    route->secret = plan.provider->secret;
    route->tls = impl_->tls;
    auto d = door::open(j->doors_dir_ + "/provider.sock", j->identity_, [route](int fd) { serve_provider(fd, *route); });
    if (!d) return tl::unexpected(d.error());
    j->doors_->open.push_back(std::move(*d));
  }
  if (plan.internet) {
    auto allow = impl_->internet_allow;
    auto d = door::open(j->doors_dir_ + "/internet.sock", j->identity_, [allow](int fd) { serve_internet(fd, *allow); });
    if (!d) return tl::unexpected(d.error());
    j->doors_->open.push_back(std::move(*d));
  }
  if (plan.broker) {
    int port = broker_port_;
    auto d = door::open(j->doors_dir_ + "/broker.sock", j->identity_, [port](int fd) { serve_broker(fd, port); });
    if (!d) return tl::unexpected(d.error());
    j->doors_->open.push_back(std::move(*d));
  }
  return j;
}

turn_jail::~turn_jail() {
  doors_.reset();
  std::error_code ec;
  if (!root_.empty()) fs::remove_all(root_, ec);
}

std::string turn_jail::provider_url() const {
  if (!provider_) return {};
  return jailed_ ? sandbox_door_url(sandbox_egress::provider) : provider_->upstream;
}

std::string turn_jail::provider_credential() const {
  if (!provider_) return {};
  bool open = owner_->impl_->cfg->sandbox_test_open.credentials;
  return jailed_ && !open && !provider_->secret.empty() ? placeholder_ : provider_->secret;
}

std::string turn_jail::broker_url() const {
  return jailed_ ? sandbox_door_url(sandbox_egress::broker) : owner_->impl_->cfg->broker_base_url;
}

void turn_jail::own(const std::string& path) const {
  if (!jailed_ || !sandbox_path_within(path, home_)) return;
  own_tree(path, identity_);
}

result<process_spec> turn_jail::wrap(process_spec inner) const {
  std::erase_if(inner.env, [](const std::string& e) { return e.starts_with("HOME=") || e.starts_with("TMPDIR="); });
  inner.env.push_back("HOME=" + home_);
  inner.env.push_back("TMPDIR=" + tmp_);
  if (!jailed_) return inner;
  // What the worker wrote for the runtime (its config, a restored session) is the jail's own.
  own_tree(home_, identity_);
  own_tree(tmp_, identity_);
  sandbox_request r;
  r.identity = identity_;
  r.workspace = workspace_;
  r.home = home_;
  r.tmp = tmp_;
  r.doors_dir = doors_dir_;
  r.read_only = read_only_;
  r.node_modules = node_modules_;
  if (provider_) r.egress.push_back(sandbox_egress::provider);
  if (broker_) r.egress.push_back(sandbox_egress::broker);
  if (internet_) r.egress.push_back(sandbox_egress::internet);
  r.env = std::move(inner.env);
  r.placeholder = placeholder_;
  r.broker_token_var = broker_token_var_;
  r.open = owner_->impl_->cfg->sandbox_test_open;
  r.cwd = inner.cwd.empty() ? workspace_ : absolute(inner.cwd);
  auto jail = jail_for(r);
  auto wrapped = jail ? owner_->impl_->driver->wrap(inner, *jail) : result<process_spec>(tl::unexpected(jail.error()));
  if (!wrapped) worker_stats.sandbox_failures.fetch_add(1, std::memory_order_relaxed);
  return wrapped;
}

}  // namespace platform::worker
