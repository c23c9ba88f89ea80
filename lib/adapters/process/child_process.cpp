#include "adapters/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "platform/api_error.hpp"

namespace platform {

struct child_process::impl {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::string buffer;  // stdout bytes after the last returned line
  bool out_eof = false;
  mutable std::mutex err_mu;
  std::string err_tail;
  std::size_t err_limit = 0;
  std::thread err_reader;
  bool reaped = false;
  int status = 0;

  void drain_stderr() {
    char buf[4096];
    for (;;) {
      ssize_t n = ::read(err, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard lock(err_mu);
      err_tail.append(buf, static_cast<std::size_t>(n));
      if (err_tail.size() > err_limit) err_tail.erase(0, err_tail.size() - err_limit);
    }
  }
};

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

struct pipes {
  int fds[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  ~pipes() {
    for (auto& p : fds) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
  }
};

}  // namespace

result<std::unique_ptr<child_process>> child_process::spawn(const process_spec& spec) {
  pipes p;
  for (auto& fd : p.fds) {
    if (::pipe2(fd, O_CLOEXEC) != 0) return fail(api_error::spawn_failed, std::string("pipe: ") + std::strerror(errno));
  }
  int fd3[2] = {-1, -1};
  if (spec.fd3_input) {
    if (spec.fd3_input->size() > 65536) return fail(api_error::spawn_failed, "fd 3 input over 64 KiB");
    if (::pipe2(fd3, O_CLOEXEC) != 0) return fail(api_error::spawn_failed, std::string("pipe: ") + std::strerror(errno));
    // Written whole before the child starts (it fits the pipe's buffer), then closed: the
    // child reads the bytes and end of file, and nothing of it stays open in the server.
    std::string_view rest = *spec.fd3_input;
    while (!rest.empty()) {
      ssize_t n = ::write(fd3[1], rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close_fd(fd3[0]);
        close_fd(fd3[1]);
        return fail(api_error::spawn_failed, std::string("fd 3 input: ") + std::strerror(errno));
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    close_fd(fd3[1]);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, p.fds[0][0], 0);
  posix_spawn_file_actions_adddup2(&actions, p.fds[1][1], 1);
  posix_spawn_file_actions_adddup2(&actions, p.fds[2][1], 2);
  // Nothing else of the server's: not its listening sockets (a runtime outliving a killed
  // worker would keep the port, and a restarted worker could not bind it), not its client
  // connections, not its database or cache connections.
  if (fd3[0] >= 0) posix_spawn_file_actions_adddup2(&actions, fd3[0], 3);
  posix_spawn_file_actions_addclosefrom_np(&actions, fd3[0] >= 0 ? 4 : 3);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);

  std::vector<char*> argv, envp;
  argv.push_back(const_cast<char*>(spec.program.c_str()));
  for (const auto& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, spec.program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close_fd(fd3[0]);
  if (rc != 0) return fail(api_error::spawn_failed, "cannot start " + spec.program + ": " + std::strerror(rc));

  auto i = std::make_unique<impl>();
  i->pid = pid;
  std::swap(i->in, p.fds[0][1]);
  std::swap(i->out, p.fds[1][0]);
  std::swap(i->err, p.fds[2][0]);
  i->err_limit = spec.stderr_tail_bytes;
  impl* raw = i.get();
  i->err_reader = std::thread([raw] { raw->drain_stderr(); });
  return std::unique_ptr<child_process>(new child_process(std::move(i)));
}

child_process::child_process(std::unique_ptr<impl> i) : impl_(std::move(i)) {}

child_process::~child_process() {
  if (!impl_) return;
  if (!impl_->reaped) kill_group();
  close_fd(impl_->in);
  wait();
  close_fd(impl_->out);
  if (impl_->err_reader.joinable()) impl_->err_reader.join();
  close_fd(impl_->err);
}

result<void> child_process::write_stdin(std::string_view bytes) {
  while (!bytes.empty()) {
    if (impl_->in < 0) return fail(api_error::stdin_closed, "the process's stdin is closed");
    ssize_t n = ::write(impl_->in, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(api_error::stdin_closed, std::string("write to the process failed: ") + std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

void child_process::close_stdin() { close_fd(impl_->in); }

bool child_process::read_line(std::string& line, std::size_t max_line) {
  for (;;) {
    std::size_t nl = impl_->buffer.find('\n');
    if (nl != std::string::npos || impl_->buffer.size() >= max_line) {
      std::size_t n = nl != std::string::npos ? nl : max_line;
      line.assign(impl_->buffer, 0, n);
      impl_->buffer.erase(0, nl != std::string::npos ? n + 1 : n);
      return true;
    }
    if (impl_->out_eof) {
      if (impl_->buffer.empty()) return false;
      line = std::move(impl_->buffer);
      impl_->buffer.clear();
      return true;
    }
    char buf[65536];
    ssize_t n = ::read(impl_->out, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) impl_->out_eof = true;
    else impl_->buffer.append(buf, static_cast<std::size_t>(n));
  }
}

void child_process::kill_group() {
  if (impl_->pid > 0 && !impl_->reaped) ::kill(-impl_->pid, SIGKILL);
}

int child_process::wait() {
  if (impl_->reaped) return impl_->status;
  int st = 0;
  while (::waitpid(impl_->pid, &st, 0) < 0 && errno == EINTR) {
  }
  impl_->reaped = true;
  impl_->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return impl_->status;
}

std::string child_process::stderr_tail() const {
  std::lock_guard lock(impl_->err_mu);
  return impl_->err_tail;
}

int child_process::pid() const { return impl_->pid; }

}  // namespace platform
