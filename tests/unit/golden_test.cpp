// Golden files: every fixture transcript translates to its checked-in SSE body, whatever the
// input chunking (whole, every single split point, random pieces).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "platform/bridge.hpp"
#include "platform/runtime_normalizer.hpp"

namespace golden_test {

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Translates `input` fed in the given pieces (sizes), as the worker and web server would.
std::string translate(const std::string& runtime, const std::string& name, const std::string& input,
                      const std::vector<std::size_t>& cuts) {
  auto normalizer = platform::make_runtime_normalizer(runtime);
  REQUIRE(normalizer);
  platform::bridge_options opt;
  opt.message_id = "msg-" + name;
  platform::bridge b(opt);
  std::string messages, out;
  std::size_t pos = 0;
  for (std::size_t cut : cuts) {
    (*normalizer)->feed(std::string_view(input).substr(pos, cut - pos), messages);
    b.feed(messages, out);
    messages.clear();
    pos = cut;
  }
  (*normalizer)->feed(std::string_view(input).substr(pos), messages);
  (*normalizer)->finish(messages);
  b.feed(messages, out);
  b.finish(out);
  return out;
}

struct fixture {
  std::string runtime, name;
  fs::path input, golden;
};

std::vector<fixture> fixtures() {
  std::vector<fixture> all;
  fs::path root = PLATFORM_TEST_DATA;
  for (const char* runtime : {"runtime-a", "runtime-b", "runtime-c"}) {
    fs::path dir = root / "fixtures" / runtime;
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".jsonl") continue;
      std::string name = e.path().stem().string();
      all.push_back({runtime, name, e.path(), root / ".." / "golden" / runtime / (name + ".sse")});
    }
  }
  return all;
}

}  // namespace

TEST_CASE("every fixture has a golden SSE body and translates to it") {
  auto all = fixtures();
  CHECK(all.size() >= 18);
  for (const auto& f : all) {
    CAPTURE(f.input.string());
    REQUIRE_MESSAGE(fs::exists(f.golden), "missing golden file " << f.golden.string());
    std::string input = slurp(f.input);
    std::string expected = slurp(f.golden);
    CHECK(translate(f.runtime, f.name, input, {}) == expected);
  }
}

TEST_CASE("output does not depend on how the input is split") {
  std::mt19937 rng(20261122);
  for (const auto& f : fixtures()) {
    CAPTURE(f.input.string());
    std::string input = slurp(f.input);
    std::string expected = slurp(f.golden);
    // Every single split point (bounded so large fixtures stay quick: every byte of the first
    // 4 KiB, then every 7th byte).
    for (std::size_t cut = 1; cut < input.size(); cut += cut < 4096 ? 1 : 7) {
      std::string got = translate(f.runtime, f.name, input, {cut});
      if (got != expected) {
        FAIL("differs when split at byte " << cut);
        break;
      }
    }
    for (int round = 0; round < 20; ++round) {
      std::vector<std::size_t> cuts;
      std::size_t pos = 0;
      while (true) {
        pos += 1 + rng() % 300;
        if (pos >= input.size()) break;
        cuts.push_back(pos);
      }
      CHECK(translate(f.runtime, f.name, input, cuts) == expected);
    }
  }
}

}  // namespace golden_test
