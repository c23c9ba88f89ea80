// Benchmark: what recording a version costs a builder turn (issue 35, goal: <= 50 ms at a
// 500-file workspace) and what it adds to the store (goal: grows with what changed, not with
// the workspace). A 500-file workspace of 1-4 KB files in a SQLite file: the first version, then
// `turns` versions that each change `changed` files; min/median/max ms per record() and the
// database file's growth per version; then what a publish's release, a rollback and retention
// cost at that size. Bounded: turns x one record, one of each of the rest.
//
// Usage: bench_version [turns=50] [files=500] [changed=3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "adapters/sql_store.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const int turns = argc > 1 ? std::atoi(argv[1]) : 50;
  const int files = argc > 2 ? std::atoi(argv[2]) : 500;
  const int changed = argc > 3 ? std::atoi(argv[3]) : 3;
  fs::path dir = fs::temp_directory_path() / ("platform-version-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path db_file = dir / "platform.db";
  auto db = platform::open_sqlite_store(db_file.string()).value();
  platform::source_files ws;
  std::size_t bytes = 0;
  for (int i = 0; i < files; ++i) {
    std::string body;
    for (int line = 0; line < 20 + (i % 60); ++line) body += "export const value" + std::to_string(i) + "_" + std::to_string(line) + " = " + std::to_string(i * line) + ";\n";
    bytes += body.size();
    ws["src/module" + std::to_string(i / 50) + "/file" + std::to_string(i) + ".ts"] = std::move(body);
  }
  // The database file once closed (its write-ahead log folded in): what the store holds.
  auto size_of = [&] {
    db.reset();
    auto n = fs::file_size(db_file);
    db = platform::open_sqlite_store(db_file.string()).value();
    return n;
  };
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  auto first = db->versions().record("ws", "app", ws, {"run", "first", "runtime-a", "u", std::nullopt}, std::nullopt, 1);
  double first_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  if (!first || !*first) return std::fprintf(stderr, "first record failed\n"), 1;
  const auto after_first = size_of();
  std::vector<double> ms;
  for (int t = 0; t < turns; ++t) {
    for (int c = 0; c < changed; ++c) {
      auto it = std::next(ws.begin(), (t * changed + c) * 7 % files);
      it->second += "// turn " + std::to_string(t) + "\n";
    }
    auto s = clock::now();
    auto v = db->versions().record("ws", "app", ws, {"run", "turn", "runtime-a", "u", std::nullopt}, std::nullopt, 2 + t);
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - s).count());
    if (!v || !*v) return std::fprintf(stderr, "record %d failed\n", t), 1;
  }
  const auto after_all = size_of();
  std::sort(ms.begin(), ms.end());
  // What the turns changed, for the growth to be read against.
  const std::size_t changed_bytes = [&] {
    std::size_t n = 0;
    for (int t = 0; t < turns; ++t)
      for (int c = 0; c < changed; ++c) n += std::next(ws.begin(), (t * changed + c) * 7 % files)->second.size();
    return n / static_cast<std::size_t>(turns);
  }();
  std::printf("version record: workspace %d files, %zu bytes; first version %.2f ms, %ju bytes of store\n", files, bytes,
              first_ms, after_first);
  std::printf("version record: %d turns changing %d files each: %.2f / %.2f / %.2f ms min/median/max (goal <= 50)\n", turns,
              changed, ms.front(), ms[ms.size() / 2], ms.back());
  std::printf("version record: store growth %.0f bytes per version; the changed files are about %zu bytes, the workspace %zu\n",
              static_cast<double>(after_all - after_first) / turns, changed_bytes, bytes);

  // A publish's release and a rollback to it, and retention pruning all but the newest 10.
  auto ms_of = [](auto&& fn) {
    auto s = clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(clock::now() - s).count();
  };
  auto publish = [&](std::int64_t now) {
    (void)db->governance().replace_draft("ws", "app", ws, now);
    const std::string build = "sha256:bench-build-" + std::to_string(now);
    (void)db->previews().put_build(build, {{"index.html", build}}, now);
    (void)db->previews().set_app_preview("ws", "app", platform::source_scope::draft, build, now);
    (void)db->governance().publish("ws", "app", "admin", now);
    (void)db->previews().publish_preview("ws", "app", now);
  };
  publish(1000);
  std::optional<platform::app_release> first_release;
  const double release_ms = ms_of([&] { first_release = db->releases().record_publish("ws", "app", {"admin", 1000, platform::release_via::publish, ""}).value(); });
  ws.begin()->second += "// after the first release\n";
  publish(2000);
  (void)db->releases().record_publish("ws", "app", {"admin", 2000, platform::release_via::publish, ""});
  std::optional<platform::app_release> made;
  const double rollback_ms = ms_of([&] { (void)db->releases().roll_back("ws", "app", first_release->number, {"admin", 3000, platform::release_via::rollback, ""}, made); });
  if (!first_release || !made) return std::fprintf(stderr, "release or rollback failed\n"), 1;
  std::vector<std::int64_t> pruned;
  const double prune_ms = ms_of([&] { pruned = db->versions().prune("ws", "app", {10, std::nullopt}, 4000).value(); });
  std::printf("release: recording a publish %.2f ms; a rollback republishing %d files %.2f ms; pruning %zu of %d versions %.2f ms\n",
              release_ms, files, rollback_ms, pruned.size(), turns + 2, prune_ms);
  db.reset();
  fs::remove_all(dir);
  return 0;
}
