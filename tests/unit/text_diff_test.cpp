// Unified diffs of two texts: hunks as diff -u prints them, counts, context merging, and the
// refusal past the comparison limit.
#include <doctest/doctest.h>

#include <string>

#include "platform/app_version.hpp"
#include "platform/text_diff.hpp"

namespace text_diff_test {

using platform::unified_diff;

std::string numbered(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

TEST_CASE("the same text has no hunks") {
  auto d = unified_diff("a\nb\n", "a\nb\n");
  CHECK(d.hunks.empty());
  CHECK(d.additions == 0);
  CHECK(d.deletions == 0);
}

TEST_CASE("one changed line in the middle: three lines of context either side") {
  std::string before = numbered(1, 10);
  std::string after = before;
  after.replace(after.find("line 5\n"), 7, "line five\n");
  auto d = unified_diff(before, after);
  CHECK(d.hunks == "@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n");
  CHECK(d.additions == 1);
  CHECK(d.deletions == 1);
}

TEST_CASE("a new file and a removed file") {
  auto added = unified_diff("", "a\nb\n");
  CHECK(added.hunks == "@@ -0,0 +1,2 @@\n+a\n+b\n");
  CHECK(added.additions == 2);
  auto removed = unified_diff("only\n", "");
  CHECK(removed.hunks == "@@ -1 +0,0 @@\n-only\n");
  CHECK(removed.deletions == 1);
}

TEST_CASE("changes far apart are two hunks; near ones share one") {
  std::string before = numbered(1, 30);
  std::string far = before;
  far.replace(far.find("line 2\n"), 7, "LINE 2\n");
  far.replace(far.find("line 28\n"), 8, "LINE 28\n");
  auto d = unified_diff(before, far);
  CHECK(d.hunks.find("@@ -1,5 +1,5 @@") == 0);
  CHECK(d.hunks.find("@@ -25,6 +25,6 @@") != std::string::npos);
  std::string near = before;
  near.replace(near.find("line 10\n"), 8, "LINE 10\n");
  near.replace(near.find("line 16\n"), 8, "LINE 16\n");
  auto one = unified_diff(before, near);
  CHECK(one.hunks.find("@@ -7,13 +7,13 @@") == 0);
  CHECK(one.hunks.find("\n@@") == std::string::npos);
}

TEST_CASE("an insertion at the end of a file without a final newline") {
  auto d = unified_diff("a\nb", "a\nb\nc");
  CHECK(d.hunks == "@@ -1,2 +1,3 @@\n a\n b\n+c\n");
}

TEST_CASE("past the limit the diff is refused, not slow") {
  std::string before, after;
  for (int i = 0; i < 3000; ++i) before += "a" + std::to_string(i) + "\n", after += "b" + std::to_string(i) + "\n";
  auto d = unified_diff(before, after, 3, 1'000'000);
  CHECK(d.too_large);
  CHECK(d.hunks.empty());
  // A small change in a big file sets the common part aside and stays cheap.
  std::string big = numbered(1, 50000);
  std::string edited = big;
  edited.replace(edited.find("line 25000\n"), 11, "line 25000!\n");
  auto e = unified_diff(big, edited, 3, 1'000'000);
  CHECK_FALSE(e.too_large);
  CHECK(e.additions == 1);
}

TEST_CASE("manifests compared: added, removed, modified") {
  platform::version_manifest a{{"x", "sha256:1"}, {"y", "sha256:2"}, {"z", "sha256:3"}};
  platform::version_manifest b{{"x", "sha256:1"}, {"y", "sha256:9"}, {"w", "sha256:4"}};
  auto c = platform::compare_manifests(a, b);
  CHECK(c.added == 1);
  CHECK(c.removed == 1);
  CHECK(c.modified == 1);
  CHECK(platform::compare_manifests(a, a).none());
  CHECK(platform::version_blob_digest("hello") == "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
}

}  // namespace text_diff_test
