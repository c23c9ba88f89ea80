#include "cli_probe.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace platform::worker {

result<cli_output> run_cli(const process_spec& spec, std::chrono::milliseconds timeout, std::size_t max_out_bytes) {
  auto proc = child_process::spawn(spec);
  if (!proc) return tl::unexpected(proc.error());
  (*proc)->close_stdin();
  cli_output o;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  // The watchdog may only signal while the child is still unreaped: `done` is set before wait().
  std::thread watchdog([&] {
    std::unique_lock lock(mu);
    if (!cv.wait_for(lock, timeout, [&] { return done; })) {
      o.timed_out = true;
      (*proc)->kill_group();
    }
  });
  std::string line;
  while ((*proc)->read_line(line)) {
    if (o.out.size() + line.size() + 1 > max_out_bytes) continue;  // keep reading: the child must not block
    o.out.append(line).push_back('\n');
  }
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  o.exit_code = (*proc)->wait();
  o.err = (*proc)->stderr_tail();
  return o;
}

std::string version_token(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    // A version starts a word ("1.2.3", "v1.2.3"), never inside one ("x86_64").
    bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                      (text[i - 1] == 'v' && (i == 1 || !std::isalnum(static_cast<unsigned char>(text[i - 2]))));
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || !word_start) continue;
    std::size_t j = i;
    int dots = 0;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) {
      dots += text[j] == '.';
      ++j;
    }
    while (j > i && text[j - 1] == '.') {
      --j;
      --dots;
    }
    if (dots >= 1) {
      // Pre-release suffixes (1.0.0-beta.2) stay part of the version.
      if (j < text.size() && text[j] == '-') {
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '-' || text[j] == '.') && j - i < 64) ++j;
        while (text[j - 1] == '.' || text[j - 1] == '-') --j;
      }
      return text.substr(i, j - i);
    }
    i = j;
  }
  return {};
}

bool executable(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace platform::worker
