// Bridge throughput: a runtime transcript built from the fixtures, fed in 64 KiB pieces and
// translated to SSE on one thread. The transcript is produced on the fly from the fixture
// bytes, so resident memory shows what the bridge itself keeps (flat whatever the size).
// Usage: bench_bridge [MB] (default 100)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "platform/bridge.hpp"
#include "platform/runtime_normalizer.hpp"

namespace fs = std::filesystem;

namespace {

std::string corpus(const std::string& runtime) {
  std::string all;
  fs::path dir = fs::path(PLATFORM_TEST_DATA) / "fixtures" / runtime;
  if (!fs::exists(dir)) return all;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    all += ss.str();
    if (!all.empty() && all.back() != '\n') all.push_back('\n');
  }
  return all;
}

long max_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// Only the stream_event lines: the hot path (text, thinking and tool-input deltas), without
// the large init and control frames that are cheap to skip and would flatter the figure.
std::string stream_events_only(const std::string& all) {
  std::string out;
  std::size_t pos = 0;
  while (pos < all.size()) {
    std::size_t nl = all.find('\n', pos);
    if (nl == std::string::npos) nl = all.size();
    std::string_view line(all.data() + pos, nl - pos);
    if (line.rfind("{\"type\":\"stream_event\"", 0) == 0) {
      out.append(line);
      out.push_back('\n');
    }
    pos = nl + 1;
  }
  return out;
}

void run(const std::string& label, const std::string& runtime, const std::string& base,
         std::size_t target_bytes) {
  if (base.empty()) {
    std::printf("%s: no fixtures\n", label.c_str());
    return;
  }
  auto normalizer = platform::make_runtime_normalizer(runtime);
  platform::bridge bridge;
  std::string messages, out;
  constexpr std::size_t piece = 64 * 1024;
  std::size_t fed = 0, out_bytes = 0, events = 0, pos = 0;
  auto t0 = std::chrono::steady_clock::now();
  while (fed < target_bytes) {
    std::size_t n = std::min(piece, base.size() - pos);
    std::string_view chunk(base.data() + pos, n);
    if (runtime == "runtime-a") {
      bridge.feed(chunk, out);  // runtime-a's stream-json is the worker message form
    } else {
      (*normalizer)->feed(chunk, messages);
      bridge.feed(messages, out);
      messages.clear();
    }
    out_bytes += out.size();
    out.clear();
    fed += n;
    pos = (pos + n) % base.size();
  }
  (*normalizer)->finish(messages);
  bridge.feed(messages, out);
  bridge.finish(out);
  out_bytes += out.size();
  auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  events = bridge.outcome().lines;
  std::printf("%s: %.1f MB in %.3f s = %.1f MB/s, %.0f events/s, %zu chunks, %.1f MB SSE out, max RSS %ld KiB\n",
              label.c_str(), fed / 1e6, secs, fed / 1e6 / secs, events / secs, bridge.outcome().chunks,
              out_bytes / 1e6, max_rss_kib());
}

}  // namespace

int main(int argc, char** argv) {
  double mb = argc > 1 ? std::atof(argv[1]) : 100.0;
  auto bytes = static_cast<std::size_t>(mb * 1e6);
  std::string a = corpus("runtime-a");
  run("runtime-a (whole transcripts)", "runtime-a", a, bytes);
  run("runtime-a (stream events only)", "runtime-a", stream_events_only(a), bytes);
  run("runtime-b", "runtime-b", corpus("runtime-b"), bytes);
  run("runtime-c", "runtime-c", corpus("runtime-c"), bytes);
  return 0;
}
