// The agent sandbox's costs (docs/security.md): the time a jail adds to starting a process (a
// turn's first output waits for it; goal <= 20 ms), a template build inside a jail against one
// outside (goal <= 5 % slower), and the memory a jail's own processes hold (bwrap's two and the
// relay) while the command runs.
//
//   bench_sandbox <relay> <template dir> [starts] [builds]
//
// Runs as root (the driver needs it). Prints one line per figure: min / median / max.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/child_process.hpp"
#include "adapters/sandbox_driver.hpp"

namespace fs = std::filesystem;
using namespace platform;
using clock_type = std::chrono::steady_clock;

namespace {

struct stats {
  double min, median, max;
};

stats of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

// Runs `spec` to its end; the wall time in ms, -1 on failure. `on_start` sees the running process.
template <class F>
double timed(const process_spec& spec, F on_start) {
  auto t0 = clock_type::now();
  auto p = child_process::spawn(spec);
  if (!p) return -1;
  (*p)->close_stdin();
  std::string line;
  bool first = true;
  while ((*p)->read_line(line, 1 << 16)) {
    if (first) on_start((*p)->pid());
    first = false;
  }
  int code = (*p)->wait();
  if (code != 0) {
    std::fprintf(stderr, "exit %d: %s\n", code, (*p)->stderr_tail().c_str());
    return -1;
  }
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// The resident memory of `pid`'s process group's members other than the command itself, in KiB:
// what the jail adds (bwrap outside and inside the namespace, the relay).
long jail_rss_kib(int group, const std::string& command_name) {
  long total = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream stat(e.path() / "stat");
    std::string s((std::istreambuf_iterator<char>(stat)), {});
    auto close = s.rfind(')');
    if (close == std::string::npos) continue;
    std::string comm = s.substr(s.find('(') + 1, close - s.find('(') - 1);
    std::istringstream rest(s.substr(close + 2));
    std::string state;
    long ppid = 0, pgrp = 0, session = 0;
    rest >> state >> ppid >> pgrp >> session;
    bool ours = std::stol(name) == group || ppid == group;
    if (!ours) {
      // bwrap's child in the namespace, and its children (the relay, then the command).
      std::ifstream status(e.path() / "status");
      for (std::string line; std::getline(status, line);) {
        if (line.rfind("NSpid:", 0) == 0 && std::count(line.begin(), line.end(), '\t') >= 2) ours = true;
      }
    }
    if (!ours || comm == command_name) continue;
    std::ifstream status(e.path() / "status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmRSS:", 0) == 0) total += std::stol(line.substr(6));
    }
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_sandbox <relay> <template dir> [starts] [builds]\n");
    return 2;
  }
  if (::geteuid() != 0) {
    std::printf("sandbox bench: skipped (not root)\n");
    return 0;
  }
  std::string relay = argv[1];
  fs::path tmpl = fs::canonical(argv[2]);
  int starts = argc > 3 ? std::atoi(argv[3]) : 50;
  int builds = argc > 4 ? std::atoi(argv[4]) : 3;
  auto tools = find_bubblewrap_tools("/usr/bin:/bin", relay);
  if (!tools) {
    std::fprintf(stderr, "%s\n", tools.error().message.c_str());
    return 1;
  }
  auto driver = make_bubblewrap_driver(*tools);
  fs::path root = fs::temp_directory_path() / ("bench-sandbox-" + std::to_string(::getpid()));
  fs::path ws = root / "ws", home = root / "t/home", tmp = root / "t/tmp", doors = root / "t/doors";
  for (const auto& d : {ws, home, tmp, doors}) fs::create_directories(d);
  // A workspace as the worker makes one: the template's files, its node_modules linked.
  for (const char* f : {"index.html", "package.json", "tsconfig.json", "vite.config.ts"}) fs::copy_file(tmpl / f, ws / f);
  fs::copy(tmpl / "src", ws / "src", fs::copy_options::recursive);
  fs::create_directory_symlink(fs::canonical(tmpl / "node_modules"), ws / "node_modules");
  sandbox_identity who{61999, 61999};
  for (const auto& p : fs::recursive_directory_iterator(root)) (void)::lchown(p.path().c_str(), who.uid, who.gid);
  (void)::chown(root.c_str(), who.uid, who.gid);
  ::chmod(root.c_str(), 0755);

  std::string node = fs::exists("/usr/local/bin/node") ? "/usr/local/bin/node" : "/usr/bin/node";
  std::vector<std::string> env = {"PATH=" + fs::path(node).parent_path().string() + ":/usr/bin:/bin", "HOME=" + home.string(),
                                  "TMPDIR=" + tmp.string(), "LANG=C.UTF-8", "CI=1", "NO_COLOR=1"};
  sandbox_request r;
  r.identity = who;
  r.workspace = ws.string();
  r.home = home.string();
  r.tmp = tmp.string();
  r.doors_dir = doors.string();
  r.read_only = {fs::canonical(tmpl / "node_modules").string()};
  r.egress = {sandbox_egress::provider, sandbox_egress::broker};
  r.env = env;
  r.cwd = ws.string();
  auto jail = jail_for(r);
  if (!jail) {
    std::fprintf(stderr, "%s\n", jail.error().message.c_str());
    return 1;
  }
  auto jailed = [&](process_spec inner) { return *driver->wrap(inner, *jail); };

  // 1. Start-up: a process that prints one line, plain against jailed.
  process_spec echo{"/bin/echo", {"first output"}, env, ws.string()};
  std::vector<double> plain_ms, jail_ms;
  long rss = 0;
  for (int i = 0; i < starts; ++i) {
    plain_ms.push_back(timed(echo, [](int) {}));
    jail_ms.push_back(timed(jailed(echo), [](int) {}));
  }
  // Memory: a jailed command that waits, measured while it waits.
  process_spec wait_spec{"/bin/sh", {"-c", "echo up; read x"}, env, ws.string()};
  {
    auto p = child_process::spawn(jailed(wait_spec));
    std::string line;
    if (p && (*p)->read_line(line)) rss = jail_rss_kib((*p)->pid(), "sh");
    if (p) (*p)->close_stdin();
  }
  auto ps = of(plain_ms), js = of(jail_ms);
  std::printf("sandbox start: plain %.2f / %.2f / %.2f ms, jailed %.2f / %.2f / %.2f ms, added (median) %.2f ms (goal <= 20)\n",
              ps.min, ps.median, ps.max, js.min, js.median, js.max, js.median - ps.median);
  std::printf("sandbox memory: the jail's own processes (bwrap x2, relay) %.1f MiB while its command runs\n", rss / 1024.0);

  // 2. The template's vite build, plain against jailed (alternating, so drift hits both).
  process_spec build{node, {"node_modules/vite/bin/vite.js", "build", "--configLoader", "runner", "--logLevel", "error"},
                     env, ws.string()};
  std::vector<double> plain_b, jail_b;
  for (int i = 0; i < builds; ++i) {
    plain_b.push_back(timed(build, [](int) {}));
    for (const auto& p : fs::recursive_directory_iterator(ws / "dist")) (void)::lchown(p.path().c_str(), who.uid, who.gid);
    (void)::lchown((ws / "dist").c_str(), who.uid, who.gid);
    jail_b.push_back(timed(jailed(build), [](int) {}));
  }
  auto pb = of(plain_b), jb = of(jail_b);
  std::printf("sandbox build: plain %.0f / %.0f / %.0f ms, jailed %.0f / %.0f / %.0f ms, jailed/plain (median) %.3f (goal <= 1.05)\n",
              pb.min, pb.median, pb.max, jb.min, jb.median, jb.max, jb.median / pb.median);
  std::error_code ec;
  fs::remove_all(root, ec);
  return 0;
}
