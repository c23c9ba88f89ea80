// A version's zip and an app's history as a git bundle (issue 35), read back by the real
// tools: Debian's unzip lists and extracts the zip byte for byte; git verifies the bundle,
// clones it, and finds every version a commit with its files, its message and its parent,
// `git fsck` clean. CRC-32 and object names against known values.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "platform/git_bundle.hpp"
#include "platform/zip_archive.hpp"

using namespace platform;
namespace fs = std::filesystem;

namespace {

fs::path archive_scratch() {
  std::random_device rd;
  fs::path dir = fs::temp_directory_path() / ("platform-archives-" + std::to_string(rd()));
  fs::create_directories(dir);
  return dir;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A command's stdout and its exit status.
std::pair<std::string, int> run_command(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = pclose(p);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace

TEST_CASE("zip: CRC-32 and an archive unzip extracts byte for byte") {
  CHECK(crc32_of("") == 0u);
  CHECK(crc32_of("123456789") == 0xcbf43926u);
  const fs::path dir = archive_scratch();
  std::string binary(70000, '\0');
  for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 7);
  std::vector<zip_entry> files{{"src/App.tsx", "export default 1;\n"}, {"README.md", "# Café\n"}, {"data/blob.bin", binary}, {"empty.txt", ""}};
  write_bytes(dir / "v.zip", zip_archive(files, 1764633600 /* 2025-12-02 00:00 UTC */, "my-app-v3"));
  auto [test_out, test_status] = run_command("unzip -t " + (dir / "v.zip").string() + " 2>&1");
  CHECK_MESSAGE(test_status == 0, test_out);
  auto [listing, list_status] = run_command("TZ=UTC unzip -l " + (dir / "v.zip").string());
  CHECK(list_status == 0);
  CHECK(listing.find("2025-12-02 00:00") != std::string::npos);
  REQUIRE(run_command("cd " + dir.string() + " && unzip -q v.zip").second == 0);
  for (const auto& f : files) CHECK(read_bytes(dir / "my-app-v3" / f.path) == f.bytes);
  fs::remove_all(dir);
}

TEST_CASE("git bundle: git verifies and clones it; every version a commit with its files") {
  CHECK(git_object_id("blob", "") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  CHECK(git_object_id("blob", "hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a");
  CHECK(git_bundle({}).empty());
  const fs::path dir = archive_scratch();
  std::string big(200000, 'x');  // past one stored deflate block
  std::vector<git_commit_input> history{
      {{{"src/App.tsx", "one\n"}, {"README.md", "# App\n"}, {"src/lib/a.ts", "a\n"}, {"src.txt", "sorts before src/\n"}},
       "Make a counter", "Ada", "ada@example.com", 1764633600},
      {{{"src/App.tsx", "two\n"}, {"README.md", "# App\n"}, {"src/lib/a.ts", "a\n"}, {"src.txt", "sorts before src/\n"}, {"big.txt", big}},
       "Count by two\n\nsecond line", "Ada", "ada@example.com", 1764633700},
      {{{"src/App.tsx", "one\n"}, {"README.md", "# App\n"}}, "Restored version 1", "Bob <b>", "bob@example.com", 1764633800},
  };
  write_bytes(dir / "app.bundle", git_bundle(history));
  const std::string git = "git -c init.defaultBranch=main -c safe.directory='*' ";
  auto [verify, verify_status] = run_command("cd " + dir.string() + " && " + git + "init -q scratch && cd scratch && " + git +
                                             "bundle verify ../app.bundle 2>&1");
  CHECK_MESSAGE(verify_status == 0, verify);
  auto [clone, clone_status] = run_command(git + "clone -q " + (dir / "app.bundle").string() + " " + (dir / "repo").string() + " 2>&1");
  REQUIRE_MESSAGE(clone_status == 0, clone);
  const std::string in_repo = "cd " + (dir / "repo").string() + " && " + git;
  auto [log, log_status] = run_command(in_repo + "log --format='%s|%an|%ae|%at' main");
  CHECK(log_status == 0);
  CHECK(log == "Restored version 1|Bob  b|bob@example.com|1764633800\nCount by two|Ada|ada@example.com|1764633700\n"
               "Make a counter|Ada|ada@example.com|1764633600\n");
  auto [fsck, fsck_status] = run_command(in_repo + "fsck --strict 2>&1");
  CHECK_MESSAGE(fsck_status == 0, fsck);
  // The checkout is the last version; the one before has its files.
  CHECK(read_bytes(dir / "repo" / "src" / "App.tsx") == "one\n");
  CHECK_FALSE(fs::exists(dir / "repo" / "big.txt"));
  CHECK(run_command(in_repo + "show HEAD~1:big.txt").first == big);
  CHECK(run_command(in_repo + "show HEAD~1:src/lib/a.ts").first == "a\n");
  CHECK(run_command(in_repo + "log -1 --format=%B HEAD~1").first == "Count by two\n\nsecond line\n\n");
  fs::remove_all(dir);
}
