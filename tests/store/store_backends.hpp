#pragma once
// The backends every store suite runs on: SQLite in memory and in a file always, PostgreSQL
// when PLATFORM_TEST_PG_URL is set (scripts/services.sh starts one). Ids are unique per test
// process, so suites sharing one PostgreSQL database never see each other's rows.
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/sql_store.hpp"

namespace store_test {

// `tag` + a per-process random prefix + `what` + a counter.
inline std::string uid(std::string_view tag, std::string_view what) {
  static const std::string process = [] {
    std::random_device rd;
    return std::to_string(rd()) + "-";
  }();
  static std::atomic<int> n{0};
  return std::string(tag) + process + std::string(what) + std::to_string(++n);
}

struct backend_case {
  std::string name;
  std::function<std::unique_ptr<platform::store>()> open;
  std::string sqlite_file;  // the file backend's database file (bytes at rest can be checked)
};

// `file_prefix` names the SQLite file backend's temp directory.
inline std::vector<backend_case> backends(std::string_view file_prefix, bool with_memory = true) {
  namespace fs = std::filesystem;
  std::vector<backend_case> out;
  if (with_memory) out.push_back({"sqlite-memory", [] { return platform::open_sqlite_store(":memory:").value(); }, ""});
  fs::path dir = fs::temp_directory_path() / uid("", file_prefix);
  fs::create_directories(dir);
  std::string file = (dir / "platform.db").string();
  out.push_back({"sqlite-file", [file] { return platform::open_sqlite_store(file).value(); }, file});
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  if (pg && *pg) {
    std::string url = pg;
    out.push_back({"postgres", [url] { return platform::open_postgres_store(url, 8).value(); }, ""});
  }
  return out;
}

}  // namespace store_test
