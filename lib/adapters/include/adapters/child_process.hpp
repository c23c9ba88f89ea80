#pragma once
// The runtime process runner: one child process with piped stdin/stdout/stderr, an explicit
// environment (nothing inherited: runtimes get only what the worker chose to give them) and
// its own process group, so killing it also kills what it spawned.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct process_spec {
  std::string program;             // absolute path, or a name looked up in the given PATH
  std::vector<std::string> args;   // argv[1..]
  std::vector<std::string> env;    // "NAME=value", the whole environment
  std::string cwd;
  std::size_t stderr_tail_bytes = 64 * 1024;  // stderr kept for error messages
  // Given, the child reads these bytes on file descriptor 3 (a pipe, closed after them): how a
  // credential reaches a runtime without being in its environment, where its own children and
  // /proc/<pid>/environ would see it. At most a pipe's buffer (64 KiB).
  std::optional<std::string> fd3_input{};
};

class child_process {
 public:
  static result<std::unique_ptr<child_process>> spawn(const process_spec& spec);
  ~child_process();  // kills the process group if still running, then reaps
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  result<void> write_stdin(std::string_view bytes);
  void close_stdin();
  // Next stdout line without its '\n'; false at end of output. Lines longer than
  // `max_line` are cut into pieces of that size.
  bool read_line(std::string& line, std::size_t max_line = 64u << 20);
  void kill_group();
  int wait();  // exit code, or 128 + signal
  [[nodiscard]] std::string stderr_tail() const;
  [[nodiscard]] int pid() const;

 private:
  struct impl;
  explicit child_process(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

}  // namespace platform
