// The runtime process runner: a credential given on fd 3 reaches the child there and nowhere
// else (not its environment, not a grandchild), and nothing else of the parent's stays open.
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include <doctest/doctest.h>

#include "adapters/child_process.hpp"

using platform::child_process;
using platform::process_spec;

namespace {

std::string run(process_spec spec) {
  auto p = child_process::spawn(spec);
  REQUIRE(p);
  (*p)->close_stdin();
  std::string out, line;
  while ((*p)->read_line(line)) out += line + "\n";
  CHECK((*p)->wait() == 0);
  return out;
}

}  // namespace

TEST_CASE("fd 3 carries the given bytes, then end of file") {
  process_spec s{"/bin/sh", {"-c", "cat <&3; echo; echo env=$(env | grep -c s3cr3t)"}, {"PATH=/usr/bin:/bin"}, "/"};
  s.fd3_input = "s3cr3t-token";
  CHECK(run(s) == "s3cr3t-token\nenv=0\n");
}

TEST_CASE("without fd 3 input, no descriptor above 2 is open in the child") {
  int stray = ::open("/dev/null", O_RDONLY);  // not close-on-exec: the runner must still close it
  REQUIRE(stray > 2);
  process_spec s{"/bin/sh", {"-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '"}, {"PATH=/usr/bin:/bin"}, "/"};
  std::string fds = run(s);
  ::close(stray);
  // 0-2, and the descriptor ls itself opened to read the directory.
  CHECK(fds.rfind("0 1 2 3 ", 0) == 0);
  CHECK(fds.find(" 4 ") == std::string::npos);
}

TEST_CASE("with fd 3 input, fd 3 is the pipe and nothing else of the parent is open") {
  int stray = ::open("/dev/null", O_RDONLY);
  REQUIRE(stray > 2);
  // ls replaces the shell (no pipeline of the shell's own in the listing): it sees what the
  // child was given, plus the directory it opened itself to list them (4).
  process_spec s{"/bin/sh", {"-c", "cat <&3 >/dev/null; exec ls /proc/self/fd"}, {"PATH=/usr/bin:/bin"}, "/"};
  s.fd3_input = std::string(60000, 'k');
  std::string out = run(s);
  ::close(stray);
  CHECK(out == "0\n1\n2\n3\n4\n");
}

TEST_CASE("fd 3 input over a pipe's buffer is refused before anything starts") {
  process_spec s{"/bin/true", {}, {}, "/"};
  s.fd3_input = std::string(70000, 'k');
  auto p = child_process::spawn(s);
  REQUIRE_FALSE(p);
  CHECK(p.error().code == platform::api_error::spawn_failed);
}
