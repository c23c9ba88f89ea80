// platform-sandbox-relay: runs inside a network-less sandbox (bwrap --unshare-net)
// as the command bubblewrap starts. Agent CLIs only speak TCP to 127.0.0.1, while
// the outside services are reachable only through bind-mounted Unix sockets, so
// this listens on loopback ports, forwards each connection to its Unix socket and
// runs the real program, exiting with that program's status.
//
// Usage: platform-sandbox-relay [PORT=SOCKET_PATH ...] -- PROGRAM [ARGS...]

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {

constexpr const char* kName = "platform-sandbox-relay";
constexpr int kUsageExit = 125;  // like env(1)/timeout(1): the relay itself failed

class Fd {
 public:
  explicit Fd(int fd = -1) noexcept : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(std::exchange(o.fd_, -1));
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_;
};

struct Relay {
  int port = 0;
  std::string socket_path;
  Fd listener;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", kName, message.c_str());
  std::fflush(stderr);
  _exit(kUsageExit);
}

std::string errno_text() { return std::strerror(errno); }

Relay parse_spec(std::string_view spec) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos) fail("bad relay spec '" + std::string(spec) + "' (want PORT=SOCKET_PATH)");
  const auto port_text = spec.substr(0, eq);
  const auto path = spec.substr(eq + 1);
  int port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() || port < 1 ||
      port > 65535)
    fail("bad port in relay spec '" + std::string(spec) + "' (want 1..65535)");
  if (path.empty() || path.front() != '/')
    fail("bad socket path in relay spec '" + std::string(spec) + "' (want an absolute path)");
  if (path.size() >= sizeof(sockaddr_un{}.sun_path))
    fail("socket path too long in relay spec '" + std::string(spec) + "'");
  return Relay{port, std::string(path), Fd{}};
}

void listen_on(Relay& relay) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) fail("cannot create a socket: " + errno_text());
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(relay.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    fail("cannot listen on 127.0.0.1:" + std::to_string(relay.port) + ": " + errno_text());
  if (::listen(fd.get(), 128) != 0)
    fail("cannot listen on 127.0.0.1:" + std::to_string(relay.port) + ": " + errno_text());
  relay.listener = std::move(fd);
}

Fd connect_unix(const std::string& path) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  int rc;
  do rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int saved = errno;  // the caller reports why connect failed, not close
    fd.reset();
    errno = saved;
  }
  return fd;
}

// Copies one direction; on EOF half-closes the destination so the peer sees the end of
// the request while the answer can still flow back. Returns false on error.
bool pump(int from, int to) {
  std::vector<char> buffer(64 * 1024);
  for (;;) {
    const ssize_t n = ::recv(from, buffer.data(), buffer.size(), 0);
    if (n == 0) {
      ::shutdown(to, SHUT_WR);
      return true;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::send(to, buffer.data() + done, static_cast<size_t>(n - done), MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      done += w;
    }
  }
}

void serve(Fd tcp, const std::string& path) {
  Fd unix_fd = connect_unix(path);
  if (!unix_fd) {
    std::fprintf(stderr, "%s: cannot connect to %s: %s\n", kName, path.c_str(), errno_text().c_str());
    return;
  }
  // On an error in one direction, wake the other one (blocked in recv) so both fds close.
  const auto abort_both = [&] {
    ::shutdown(tcp.get(), SHUT_RDWR);
    ::shutdown(unix_fd.get(), SHUT_RDWR);
  };
  std::thread back([&] {
    if (!pump(unix_fd.get(), tcp.get())) abort_both();
  });
  if (!pump(tcp.get(), unix_fd.get())) abort_both();
  back.join();
}

void accept_loop(const Relay& relay) {
  for (;;) {
    Fd conn(::accept4(relay.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        ::poll(nullptr, 0, 100);  // out of resources: back off instead of spinning
      } else if (errno != EINTR && errno != ECONNABORTED && errno != EPROTO) {
        std::fprintf(stderr, "%s: accept on port %d failed: %s\n", kName, relay.port, errno_text().c_str());
        return;
      }
      continue;
    }
    try {
      std::thread(serve, std::move(conn), std::cref(relay.socket_path)).detach();
    } catch (const std::exception&) {
      // No thread to serve it: the connection closed with the thread's copy of it.
    }
  }
}

int exit_code_of(const siginfo_t& info) {
  if (info.si_code == CLD_EXITED) return info.si_status;
  return 128 + info.si_status;
}

[[noreturn]] void run_child(char** argv) {
  // The program must not inherit the relay's ignored SIGPIPE nor its blocked signals.
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  sigset_t empty;
  sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  ::execvp(argv[0], argv);
  std::fprintf(stderr, "%s: cannot start %s: %s\n", kName, argv[0], std::strerror(errno));
  _exit(127);
}

[[noreturn]] void run(int argc, char** argv) {
  int dashes = 1;
  while (dashes < argc && std::string_view(argv[dashes]) != "--") ++dashes;
  if (dashes >= argc) fail("missing '--' (usage: " + std::string(kName) + " [PORT=SOCKET_PATH ...] -- PROGRAM [ARGS...])");
  if (dashes + 1 >= argc) fail("missing PROGRAM after '--'");

  std::vector<Relay> relays;
  relays.reserve(static_cast<size_t>(dashes - 1));
  for (int i = 1; i < dashes; ++i) relays.push_back(parse_spec(argv[i]));
  // Listen before the program exists, so it can never try to connect too early.
  for (auto& relay : relays) listen_on(relay);

  // Blocked before fork so a signal arriving before the forwarder runs is kept, not lost
  // or fatal to the relay; the forwarder then collects it with sigwait.
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&forwarded, sig);
  ::sigprocmask(SIG_BLOCK, &forwarded, nullptr);

  const pid_t child = ::fork();
  if (child < 0) fail("cannot fork: " + errno_text());
  if (child == 0) run_child(argv + dashes + 1);

  ::signal(SIGPIPE, SIG_IGN);
  try {
    std::thread([forwarded, child] {
      for (;;) {
        int sig = 0;
        if (sigwait(&forwarded, &sig) == 0) ::kill(child, sig);
      }
    }).detach();
    for (const auto& relay : relays) std::thread(accept_loop, std::cref(relay)).detach();
  } catch (const std::exception& e) {
    ::kill(child, SIGKILL);
    fail(std::string("cannot start threads: ") + e.what());
  }

  // WNOWAIT leaves the child a zombie until we exit, so its pid cannot be reused and
  // hit by a late forwarded signal. Only our own child is waited for: reaping others
  // is the sandbox init's job.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) != 0) {
    if (errno != EINTR) fail("cannot wait for the program: " + errno_text());
  }
  std::fflush(stderr);
  _exit(exit_code_of(info));  // open relay connections die with us, by design
}

}  // namespace

int main(int argc, char** argv) {
  try {
    run(argc, argv);
  } catch (...) {
    std::fprintf(stderr, "%s: unexpected failure\n", kName);
    return kUsageExit;
  }
}
