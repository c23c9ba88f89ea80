// Resume and viewer benchmarks of platform-web (not tests: they print numbers).
//
//   resume:  a run whose producing replica died mid-stream left a 10,000-chunk backlog in
//            Redis; a viewer on another replica (a platform-web process started here) resumes
//            it: time from sending the GET to the last byte of the backlog, over HTTP.
//   viewers: 2,000 concurrent viewer streams held open on one platform-web process; its RSS
//            growth per viewer, and one event reaching all of them.
//   --sse-peer: the same viewer measurement, by the same client, against another SSE server
//            (tests/bench/peers/sse-server.mjs, a node:http server): GET /events on PORT, RSS of
//            process PID; the event is published on the Redis channel platform:ch:CHANNEL,
//            which that server subscribes to (ours gets it from Redis too: an append).
//
// Needs PLATFORM_TEST_PG_URL and PLATFORM_TEST_REDIS_URL (scripts/services.sh start); the peer
// mode only the latter.
// Usage: bench_resume WEB_BINARY [viewers=2000] [rounds=200]
//        bench_resume --sse-peer PORT PID CHANNEL [viewers=2000] [events=1000]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "adapters/cache_store.hpp"
#include "adapters/sql_store.hpp"

using namespace platform;
using clock_type = std::chrono::steady_clock;

namespace {

// Events timed one after another on the held viewers: a p99 of 100 would be the second-slowest.
constexpr int fanout_events = 1000;

struct web_process {
  pid_t pid = -1;
  int port = 0;
};

web_process start_web(const char* binary, const std::string& pg, const std::string& redis) {
  int out[2];
  if (pipe(out) != 0) std::exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    setenv("PLATFORM_WEB_PORT", "0", 1);
    setenv("PLATFORM_DATABASE_URL", pg.c_str(), 1);
    setenv("PLATFORM_REDIS_URL", redis.c_str(), 1);
    setenv("PLATFORM_WORKER_URL", "http://127.0.0.1:1", 1);
    setenv("PLATFORM_SSE_HEARTBEAT_MS", "60000", 1);
    execl(binary, binary, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  close(out[0]);
  auto colon = line.rfind(':');
  if (colon == std::string::npos) {
    std::fprintf(stderr, "platform-web did not start: %s\n", line.c_str());
    std::exit(2);
  }
  return {pid, std::atoi(line.c_str() + colon + 1)};
}

long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long value = 0;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> value;
      return value;
    }
    in.ignore(4096, '\n');
  }
  return 0;
}

int connect_to(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool send_get(int fd, const std::string& path) {
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  return write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size());
}

// A streaming run on `key` with `chunks` events in its replay buffer, as a producer that then
// died would leave it (lease still running).
std::string seed_run(store& db, cache_store& cache, const run_key& key, int chunks) {
  builder_run_record r;
  r.key = key;
  r.created_at = 1;
  if (!db.create_builder_run(r)) std::exit(2);
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (db.claim_builder_run(key, {1, "dead-producer", now, now + 3600000, std::nullopt}).value() != claim_outcome::claimed) std::exit(2);
  std::string stream = "bench-" + key.run_id;
  if (!cache.create(stream)) std::exit(2);
  for (int i = 0; i < chunks; ++i) {
    std::string ev = "data: {\"type\":\"text-delta\",\"id\":\"m:1\",\"delta\":\"chunk " + std::to_string(i) +
                     " of the backlog, about a line of model output\"}\n\n";
    if (!cache.append(stream, ev)) std::exit(2);
  }
  if (!db.set_active_stream(key, "dead-producer", stream, now).value()) std::exit(2);
  return stream;
}

double resume_once(int port, const std::string& path, int chunks) {
  auto t0 = clock_type::now();
  int fd = connect_to(port);
  if (fd < 0 || !send_get(fd, path)) std::exit(2);
  // Counts event terminators ("\n\n") as they arrive; a terminator split across reads is
  // caught by carrying the previous read's last byte.
  static char buf[1 << 20];
  std::size_t events = 0;
  char last = 0;
  bool past_headers = false;
  std::string head;
  while (events < static_cast<std::size_t>(chunks)) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    std::string_view got(buf, static_cast<std::size_t>(n));
    if (!past_headers) {
      head.append(got);
      auto end = head.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      past_headers = true;
      got.remove_prefix(got.size() - (head.size() - end - 4));
    }
    if (got.empty()) continue;
    if (last == '\n' && got.front() == '\n') ++events;
    for (auto at = got.find("\n\n"); at != std::string_view::npos; at = got.find("\n\n", at + 2)) ++events;
    last = got.back();
  }
  auto t1 = clock_type::now();
  close(fd);
  if (events < static_cast<std::size_t>(chunks)) {
    std::fprintf(stderr, "resume returned %zu of %d chunks\n", events, chunks);
    std::exit(1);
  }
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// `viewers` streams GET `path` on 127.0.0.1:`port` at once; each must show its backlog event
// ("chunk 0 of the backlog") before the server's RSS (process `pid`) is read; then
// `broadcast(k)` makes the server send event k, `events` times one after the other, and the
// time until every viewer has it is printed (the first event, then median and p99). The client
// reads with epoll, so its own share stays small and the same for every server measured.
bool hold_viewers(const char* label, const char* server, int port, pid_t pid, const std::string& path, int viewers,
                  int events, const std::function<void(int)>& broadcast) {
  long rss_before = rss_kib(pid);
  std::vector<int> fds;
  for (int i = 0; i < viewers; ++i) {
    int fd = connect_to(port);
    if (fd < 0 || !send_get(fd, path)) break;
    fds.push_back(fd);
  }
  int ep = epoll_create1(EPOLL_CLOEXEC);
  for (std::size_t i = 0; i < fds.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
  }
  // What each viewer received since its last match.
  std::vector<std::string> got(fds.size());
  auto wait_all = [&](const std::string& needle) {
    std::size_t ready = 0;
    std::vector<char> done(fds.size(), 0);
    std::vector<epoll_event> evs(1024);
    auto deadline = clock_type::now() + std::chrono::seconds(60);
    while (ready < fds.size() && clock_type::now() < deadline) {
      int n = epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 1000);
      for (int k = 0; k < n; ++k) {
        std::size_t i = evs[k].data.u64;
        char buf[4096];
        ssize_t r = read(fds[i], buf, sizeof buf);
        if (r <= 0) {
          epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], nullptr);
          continue;
        }
        got[i].append(buf, static_cast<std::size_t>(r));
        if (!done[i] && got[i].find(needle) != std::string::npos) {
          done[i] = 1;
          ++ready;
          got[i].clear();
        }
      }
    }
    return ready;
  };
  std::size_t attached = wait_all("chunk 0 of the backlog");
  long rss_held = rss_kib(pid);
  std::vector<double> ms;
  std::size_t reached = attached;
  for (int k = 0; k < events && reached == attached; ++k) {
    auto t0 = clock_type::now();
    broadcast(k);
    reached = wait_all("broadcast " + std::to_string(k) + "\"");
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  double first = ms.empty() ? 0 : ms.front();
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms.empty() ? 0.0 : ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * static_cast<double>(ms.size())))]; };
  std::printf("%s: %zu of %d streams held by one %s; RSS %ld KiB -> %ld KiB = %.1f KiB per viewer; "
              "one event reached %zu viewers in %.1f ms; over %zu events median %.1f ms, p99 %.1f ms\n",
              label, attached, viewers, server, rss_before, rss_held,
              attached ? static_cast<double>(rss_held - rss_before) / static_cast<double>(attached) : 0.0, reached,
              first, ms.size(), at(0.5), at(0.99));
  close(ep);
  for (int fd : fds) close(fd);
  return attached == static_cast<std::size_t>(viewers) && reached == attached;
}

}  // namespace

// bench_resume --sse-peer PORT PID CHANNEL [viewers]
int peer_viewers(int argc, char** argv, const char* redis) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: bench_resume --sse-peer PORT PID CHANNEL [viewers]\n");
    return 2;
  }
  redis_cache_options co;
  co.url = redis;
  auto cache = make_redis_cache_store(co).value();
  std::string channel = argv[4];
  bool ok = hold_viewers("peer viewers", "node:http SSE server", std::atoi(argv[2]), std::atoi(argv[3]), "/events",
                         argc > 5 ? std::atoi(argv[5]) : 2000, argc > 6 ? std::atoi(argv[6]) : fanout_events, [&](int k) {
    (void)cache->publish(channel, "data: {\"type\":\"text-delta\",\"id\":\"m:1\",\"delta\":\"broadcast " + std::to_string(k) + "\"}\n\n");
  });
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_resume WEB_BINARY [viewers] [rounds]\n       bench_resume --sse-peer PORT PID CHANNEL [viewers]\n");
    return 2;
  }
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  const char* redis = std::getenv("PLATFORM_TEST_REDIS_URL");
  bool peer = std::string_view(argv[1]) == "--sse-peer";
  if (!redis || (!pg && !peer)) {
    std::printf("resume bench: skipped (PLATFORM_TEST_PG_URL / PLATFORM_TEST_REDIS_URL not set)\n");
    return 0;
  }
  // 2,000 viewers need more descriptors than the usual soft limit, here and in platform-web.
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
  if (peer) return peer_viewers(argc, argv, redis);
  int viewers = argc > 2 ? std::atoi(argv[2]) : 2000;
  int rounds = argc > 3 ? std::atoi(argv[3]) : 200;
  auto db = open_postgres_store(pg, 2).value();
  redis_cache_options co;
  co.url = redis;
  co.limits.max_chunks = 131072;
  co.limits.max_bytes = 64u << 20;
  auto cache = make_redis_cache_store(co).value();
  std::string suffix = std::to_string(getpid()) + "-" + std::to_string(clock_type::now().time_since_epoch().count());
  std::string ws = "bench-ws-" + suffix, app = "bench-app-" + suffix;
  if (!db->put_workspace(ws, "bench", 1) || !db->create_app({app, ws, "bench", "u", "", "", "{}", 1})) return 2;
  // The viewer's replica authenticates as the local owner; make it a member of the workspace.
  if (!db->put_user({"local-owner", "", ""}) || !db->set_membership(ws, "local-owner", workspace_role::owner)) return 2;

  constexpr int backlog = 10000;
  run_key key{ws, app, "bench-run-" + suffix};
  seed_run(*db, *cache, key, backlog);
  web_process web = start_web(argv[1], pg, redis);
  std::string path = "/api/workspaces/" + ws + "/apps/" + app + "/runs/" + key.run_id + "/chat/stream";

  std::vector<double> ms;
  resume_once(web.port, path, backlog);  // warm the replica's pools
  for (int i = 0; i < rounds; ++i) ms.push_back(resume_once(web.port, path, backlog));
  std::sort(ms.begin(), ms.end());
  std::printf("resume: %d-chunk backlog of a dead producer, another replica, first to last byte over HTTP: "
              "median %.2f ms, p95 %.2f ms, min %.2f ms (%d rounds)\n",
              backlog, ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 95 / 100)], ms.front(), rounds);

  // Ten times the backlog (7.6 MB of events), past the default replay window: seeded with a
  // window that holds it.
  constexpr int big_backlog = 100000;
  run_key big{ws, app, "bench-big-" + suffix};
  seed_run(*db, *cache, big, big_backlog);
  std::string big_path = "/api/workspaces/" + ws + "/apps/" + app + "/runs/" + big.run_id + "/chat/stream";
  std::vector<double> big_ms;
  resume_once(web.port, big_path, big_backlog);
  for (int i = 0; i < std::max(3, rounds / 4); ++i) big_ms.push_back(resume_once(web.port, big_path, big_backlog));
  std::sort(big_ms.begin(), big_ms.end());
  std::printf("resume: %d-chunk backlog, the same way: median %.2f ms, min %.2f ms (%zu rounds)\n", big_backlog,
              big_ms[big_ms.size() / 2], big_ms.front(), big_ms.size());

  // Viewers: a small backlog, then `viewers` streams held open at once.
  run_key vkey{ws, app, "bench-viewers-" + suffix};
  std::string vstream = seed_run(*db, *cache, vkey, 1);
  std::string vpath = "/api/workspaces/" + ws + "/apps/" + app + "/runs/" + vkey.run_id + "/chat/stream";
  bool ok = hold_viewers("viewers", "platform-web", web.port, web.pid, vpath, viewers, fanout_events, [&](int k) {
    (void)cache->append(vstream, "data: {\"type\":\"text-delta\",\"id\":\"m:1\",\"delta\":\"broadcast " + std::to_string(k) + "\"}\n\n");
  });
  kill(web.pid, SIGTERM);
  waitpid(web.pid, nullptr, 0);
  return ok ? 0 : 1;
}
