// Chunk latency benchmark of platform-web (not a test: it prints numbers), issue 17: how long a
// builder turn's chunk takes from the worker writing it to a browser client reading it, with
// `turns` turns streaming at once.
//
// The worker here is this program's own HTTP server speaking the worker protocol
// (POST /sessions/{appId}/messages, docs/http-api.md): each turn streams runtime-a worker lines,
// a text delta every `interval` ms whose text is the time it was written (CLOCK_MONOTONIC,
// ns). platform-web (started here, SQLite and in-process pub/sub, or Redis with
// PLATFORM_TEST_REDIS_URL) bridges them to UI message chunks and streams them on the chat POSTs
// this program opened, read with epoll as a browser's fetch would. A chunk's latency is the time
// read minus the time written: worker -> web (bridge, replay buffer, its follower) -> client.
//
// Usage: bench_chunk_latency WEB_BINARY [turns=100] [deltas=200] [interval_ms=10]
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

long long now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

std::string stream_event(const std::string& event) {
  return R"({"type":"stream_event","event":)" + event + R"(,"session_id":"bench","parent_tool_use_id":null})";
}

int connect_to(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
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

// CPU seconds (user + system) a process has used so far.
double cpu_seconds(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (f == nullptr) return 0;
  char buf[1024];
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces
  unsigned long long utime = 0, stime = 0;
  if (p == nullptr || std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return 0;
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct web_process {
  pid_t pid = -1;
  int port = 0;
};

web_process start_web(const char* binary, const std::string& worker_url, const std::string& data_dir) {
  int out[2];
  if (pipe(out) != 0) std::exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    setenv("PLATFORM_WEB_PORT", "0", 1);
    setenv("PLATFORM_DATA_DIR", data_dir.c_str(), 1);
    setenv("PLATFORM_WORKER_URL", worker_url.c_str(), 1);
    if (const char* redis = std::getenv("PLATFORM_TEST_REDIS_URL")) setenv("PLATFORM_REDIS_URL", redis, 1);
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_chunk_latency WEB_BINARY [turns] [deltas] [interval_ms]\n");
    return 2;
  }
  const int turns = argc > 2 ? std::atoi(argv[2]) : 100;
  const int deltas = argc > 3 ? std::atoi(argv[3]) : 200;
  const int interval_ms = argc > 4 ? std::atoi(argv[4]) : 10;

  // The worker: every turn's lines, a delta every interval, each stamped when written.
  httplib::Server worker;
  worker.new_task_queue = [turns] { return new httplib::ThreadPool(static_cast<std::size_t>(turns) + 16); };
  worker.Post(R"(/sessions/([A-Za-z0-9_-]+)/messages)", [&](const httplib::Request&, httplib::Response& res) {
    auto sent = std::make_shared<int>(-1);
    res.set_chunked_content_provider("text/event-stream", [sent, deltas, interval_ms](std::size_t, httplib::DataSink& sink) {
      auto line = [&](const std::string& l) {
        std::string out = "data: " + l + "\n\n";
        return sink.write(out.data(), out.size());
      };
      if (*sent == -1) {
        *sent = 0;
        return line(stream_event(R"({"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}})")) &&
               line(stream_event(R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"));
      }
      if (*sent < deltas) {
        std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
        ++*sent;
        return line(stream_event(R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"t)" +
                                 std::to_string(now_ns()) + R"(;"}})"));
      }
      bool ok = line(stream_event(R"({"type":"content_block_stop","index":0})")) &&
                line(stream_event(R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}})")) &&
                line(stream_event(R"({"type":"message_stop"})")) &&
                line(R"({"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":1,"result":"","session_id":"bench","total_cost_usd":0,"usage":{"input_tokens":10,"output_tokens":5}})");
      std::string done = "data: [DONE]\n\n";
      ok = ok && sink.write(done.data(), done.size());
      sink.done();
      return ok;
    });
  });
  int worker_port = worker.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { worker.listen_after_bind(); });

  auto data_dir = std::filesystem::temp_directory_path() / ("bench-chunk-latency-" + std::to_string(getpid()));
  std::filesystem::create_directories(data_dir);
  auto web = start_web(argv[1], "http://127.0.0.1:" + std::to_string(worker_port), data_dir.string());
  httplib::Client api("127.0.0.1", web.port);

  // One app and one run per turn, so every turn streams on its own.
  std::vector<std::string> run_paths;
  for (int i = 0; i < turns; ++i) {
    auto app = api.Post("/api/workspaces/default/apps", R"({"name":"Latency"})", "application/json");
    if (!app || app->status != 201) {
      std::fprintf(stderr, "creating an app failed: %d\n", app ? app->status : -1);
      return 1;
    }
    auto app_id = app->body.substr(app->body.find("\"id\":\"") + 6);
    app_id = app_id.substr(0, app_id.find('"'));
    auto run = api.Post("/api/workspaces/default/apps/" + app_id + "/runs", "{}", "application/json");
    auto run_id = run->body.substr(run->body.find("\"id\":\"") + 6);
    run_id = run_id.substr(0, run_id.find('"'));
    run_paths.push_back("/api/workspaces/default/apps/" + app_id + "/runs/" + run_id + "/chat");
  }

  const std::string body =
      R"({"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"Count."}]}],"runtimeModel":"claude-sonnet-4-5-20250929"})";
  // Where the time goes on a machine this small: the CPU each side used while the turns streamed.
  const double web_cpu_before = cpu_seconds(web.pid), bench_cpu_before = cpu_seconds(getpid());
  const long long streaming_from = now_ns();
  int ep = epoll_create1(EPOLL_CLOEXEC);
  std::vector<int> fds;
  for (int i = 0; i < turns; ++i) {
    int fd = connect_to(web.port);
    std::string req = "POST " + run_paths[static_cast<std::size_t>(i)] +
                      " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(web.port) + "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                      "\r\nConnection: close\r\n\r\n" + body;
    if (fd < 0 || write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) return 1;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = static_cast<std::uint64_t>(i);
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    fds.push_back(fd);
  }
  std::vector<std::string> pending(fds.size());
  std::vector<int> got(fds.size(), 0);
  std::vector<double> latency_ms;
  latency_ms.reserve(static_cast<std::size_t>(turns) * static_cast<std::size_t>(deltas));
  std::size_t open = fds.size();
  std::vector<epoll_event> evs(256);
  const std::string mark = "\"delta\":\"t";
  while (open > 0) {
    int n = epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 30000);
    if (n <= 0) break;
    long long read_at = now_ns();
    for (int k = 0; k < n; ++k) {
      auto i = evs[k].data.u64;
      char buf[16384];
      ssize_t r = read(fds[i], buf, sizeof buf);
      if (r <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], nullptr);
        --open;
        if (got[i] != deltas) std::fprintf(stderr, "stream %zu ended after %d chunks: %.300s\n", static_cast<std::size_t>(i), got[i], pending[i].c_str());
        continue;
      }
      auto& p = pending[i];
      p.append(buf, static_cast<std::size_t>(r));
      std::size_t at;
      while ((at = p.find(mark)) != std::string::npos) {
        std::size_t end = p.find(';', at);
        if (end == std::string::npos) break;
        long long written = std::atoll(p.c_str() + at + mark.size());
        latency_ms.push_back(static_cast<double>(read_at - written) / 1e6);
        ++got[i];
        p.erase(0, end + 1);
      }
    }
  }
  const double wall = static_cast<double>(now_ns() - streaming_from) / 1e9;
  const double web_cpu = cpu_seconds(web.pid) - web_cpu_before, bench_cpu = cpu_seconds(getpid()) - bench_cpu_before;
  kill(web.pid, SIGTERM);
  waitpid(web.pid, nullptr, 0);
  worker.stop();
  serving.join();
  std::filesystem::remove_all(data_dir);
  std::sort(latency_ms.begin(), latency_ms.end());
  auto at = [&](double q) {
    return latency_ms.empty() ? 0.0 : latency_ms[std::min(latency_ms.size() - 1, static_cast<std::size_t>(q * static_cast<double>(latency_ms.size())))];
  };
  std::printf("chunk latency, worker -> platform-web -> client, %d turns at once, a chunk every %d ms each (%s): "
              "%zu of %d chunks, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              turns, interval_ms, std::getenv("PLATFORM_TEST_REDIS_URL") ? "Redis" : "in-process pub/sub", latency_ms.size(),
              turns * deltas, at(0.5), at(0.99), latency_ms.empty() ? 0.0 : latency_ms.back());
  std::printf("  CPU while streaming (%.2f s on %ld cores): platform-web %.2f s (%.0f us a chunk), this bench's worker and "
              "client %.2f s\n",
              wall, sysconf(_SC_NPROCESSORS_ONLN), web_cpu, latency_ms.empty() ? 0.0 : web_cpu * 1e6 / static_cast<double>(latency_ms.size()),
              bench_cpu);
  return latency_ms.size() == static_cast<std::size_t>(turns) * static_cast<std::size_t>(deltas) ? 0 : 1;
}
