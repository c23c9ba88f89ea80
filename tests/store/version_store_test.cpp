// The version store on every backend (issue 35): numbered versions per app, content stored
// once by digest, unchanged content making no version, deltas read back as whole manifests
// (past the every-32nd full one too), removed files, pages, and two writers at once.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "platform/app_version.hpp"
#include "sql.hpp"
#include "sql_util.hpp"
#include "store_backends.hpp"

using namespace platform;

namespace version_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string vs_uid(std::string_view what) { return store_test::uid("vs", what); }

version_origin turn(std::string run, std::string request) { return {std::move(run), std::move(request), "runtime-a", "u1", std::nullopt}; }


TEST_CASE("versions: recorded per change, deduplicated, read back whole") {
  for (const auto& b : store_test::backends("platform-versions-")) {
    CAPTURE(b.name);
    auto db = b.open();
    auto& vs = db->versions();
    const std::string ws = vs_uid("ws"), app = vs_uid("app"), other = vs_uid("app");
    source_files v1{{"src/App.tsx", "export default 1;\n"}, {"README.md", "# App\n"}};
    auto first_r = vs.record(ws, app, v1, turn("r1", "Make a counter"), std::string("sha256:build1"), 1000);
    if (!first_r) FAIL(std::string(platform::code_name(first_r.error())) << ": " << first_r.error().message);
    auto first = *first_r;
    REQUIRE(first);
    CHECK(first->number == 1);
    CHECK(first->changes.added == 2);
    CHECK(first->file_count == 2);
    // The same content again (a turn that only talked) makes no version.
    CHECK_FALSE(vs.record(ws, app, v1, turn("r1", "Thanks"), std::nullopt, 1100).value());

    source_files v2 = v1;
    v2["src/App.tsx"] = "export default 2;\n";
    v2["src/extra.ts"] = "export const x = 1;\n";
    auto second = vs.record(ws, app, v2, turn("r1", "Count by two"), std::nullopt, 1200).value();
    REQUIRE(second);
    CHECK(second->number == 2);
    CHECK(second->changes.added == 1);
    CHECK(second->changes.modified == 1);
    CHECK(second->changes.removed == 0);
    source_files v3 = v2;
    v3.erase("README.md");
    auto third = vs.record(ws, app, v3, turn("r2", "Drop the readme"), std::nullopt, 1300).value();
    REQUIRE(third);
    CHECK(third->changes.removed == 1);

    // Each version reads back as exactly its files.
    CHECK(vs.files(ws, app, 1).value() == std::optional<source_files>(v1));
    CHECK(vs.files(ws, app, 2).value() == std::optional<source_files>(v2));
    CHECK(vs.files(ws, app, 3).value() == std::optional<source_files>(v3));
    CHECK_FALSE(vs.files(ws, app, 4).value());
    auto got = vs.get(ws, app, 2).value();
    REQUIRE(got);
    CHECK(got->origin.request == "Count by two");
    CHECK(got->sizes.at("src/extra.ts") == 20);
    CHECK(got->manifest.at("src/App.tsx") == version_blob_digest("export default 2;\n"));
    CHECK(vs.get(ws, app, 1).value()->build_digest == std::optional<std::string>("sha256:build1"));

    // Newest first, a page at a time; another app's versions are its own.
    auto page = vs.list(ws, app, {2, std::nullopt}).value();
    REQUIRE(page.size() == 2);
    CHECK(page[0].number == 3);
    CHECK(page[1].number == 2);
    CHECK(page[0].manifest.empty());
    auto rest = vs.list(ws, app, {2, 2}).value();
    REQUIRE(rest.size() == 1);
    CHECK(rest[0].number == 1);
    CHECK(vs.list(ws, other, {}).value().empty());
    CHECK(vs.latest(ws, app).value()->number == 3);

    // A restore is a new version even when its content is the latest's.
    version_origin restore{"", "Restored version 3", "", "u1", 3};
    auto again = vs.record(ws, app, v3, restore, std::nullopt, 1400).value();
    REQUIRE(again);
    CHECK(again->number == 4);
    CHECK(again->origin.restored_from == std::optional<std::int64_t>(3));
    CHECK(again->changes.none());
  }
}

TEST_CASE("versions: storage grows with what changed, and manifests stay whole past a full one") {
  for (const auto& b : store_test::backends("platform-versions-size-", false)) {
    CAPTURE(b.name);
    auto db = b.open();
    auto& vs = db->versions();
    const std::string ws = vs_uid("ws"), app = vs_uid("app");
    source_files files;
    for (int i = 0; i < 200; ++i) files["src/f" + std::to_string(i) + ".ts"] = "export const v" + std::to_string(i) + " = '" + vs_uid("c") + "';\n";
    std::vector<source_files> history;
    for (int n = 1; n <= 40; ++n) {
      files["src/f" + std::to_string(n % 200) + ".ts"] = "changed in version " + std::to_string(n) + " " + vs_uid("c") + "\n";
      if (n == 20) files.erase("src/f150.ts");
      REQUIRE(vs.record(ws, app, files, turn("r", "step " + std::to_string(n)), std::nullopt, 1000 + n).value());
      history.push_back(files);
    }
    // Whole manifests past version 33 (built on the full one of version 33) and before it.
    for (int n : {1, 20, 31, 32, 33, 34, 40}) CHECK(vs.files(ws, app, n).value() == std::optional<source_files>(history[n - 1]));
  }
}

TEST_CASE("versions: two writers at once get consecutive numbers, none lost") {
  for (const auto& b : store_test::backends("platform-versions-race-", false)) {
    CAPTURE(b.name);
    auto db = b.open();
    const std::string ws = vs_uid("ws"), app = vs_uid("app");
    constexpr int each = 8;
    std::vector<std::thread> writers;
    std::atomic<int> failures{0};
    for (int w = 0; w < 2; ++w) {
      writers.emplace_back([&, w] {
        for (int i = 0; i < each; ++i) {
          source_files f{{"src/App.tsx", "writer " + std::to_string(w) + " step " + std::to_string(i)}};
          auto r = db->versions().record(ws, app, f, turn("r" + std::to_string(w), "step"), std::nullopt, 1000 + i);
          if (!r || !*r) failures.fetch_add(1);
        }
      });
    }
    for (auto& t : writers) t.join();
    CHECK(failures.load() == 0);
    auto all = db->versions().list(ws, app, {100, std::nullopt}).value();
    REQUIRE(all.size() == 2 * each);
    std::set<std::int64_t> numbers;
    for (const auto& v : all) numbers.insert(v.number);
    CHECK(numbers.size() == 2 * each);
    CHECK(*numbers.begin() == 1);
    CHECK(*numbers.rbegin() == 2 * each);
  }
}

TEST_CASE("versions: retention prunes by count and age, never the latest or a released one; the rest stay whole") {
  for (const auto& b : store_test::backends("platform-versions-prune-")) {
    CAPTURE(b.name);
    auto db = b.open();
    const std::string ws = vs_uid("ws"), app = vs_uid("app");
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
    REQUIRE(db->create_app({app, ws, "App", "u1", "", "", "{}", 1000}));
    auto& vs = db->versions();
    std::vector<source_files> history;
    source_files files{{"src/shared.ts", "the same in every version"}};
    for (int n = 1; n <= 10; ++n) {
      files["src/App.tsx"] = "version " + std::to_string(n) + " " + vs_uid("c");
      if (n == 2) files["src/only-two.ts"] = "only in version 2 " + vs_uid("c");
      if (n == 3) files.erase("src/only-two.ts");
      REQUIRE(vs.record(ws, app, files, turn("r", "step " + std::to_string(n)), std::nullopt, n * 1000).value());
      history.push_back(files);
    }
    // Version 3 goes live: a release names it.
    REQUIRE(db->governance().replace_draft(ws, app, history[2], 20000));
    REQUIRE(db->previews().put_build("sha256:prune-build", {{"index.html", "x"}}, 20000));
    REQUIRE(db->previews().set_app_preview(ws, app, source_scope::draft, "sha256:prune-build", 20000));
    REQUIRE(db->governance().publish(ws, app, "admin1", 20000).value() == publish_outcome::published);
    REQUIRE(db->previews().publish_preview(ws, app, 20000).value());
    REQUIRE(db->releases().record_publish(ws, app, {"admin1", 20000, release_via::publish, ""}).value()->version == 3);
    const std::string only_two = version_blob_digest(history[1].at("src/only-two.ts"));
    REQUIRE(vs.blob(only_two).value());

    CHECK(vs.prune(ws, app, {}, 30000).value().empty());  // no rule: every version stays
    CHECK(vs.prune(ws, app, {4, std::nullopt}, 30000).value() == std::vector<std::int64_t>{1, 2, 4, 5, 6});
    std::vector<std::int64_t> left;
    const auto listed = vs.list(ws, app, {100, std::nullopt}).value();
    for (const auto& v : listed) left.push_back(v.number);
    CHECK(left == std::vector<std::int64_t>{10, 9, 8, 7, 3});
    for (int n : {3, 7, 8, 9, 10}) CHECK(vs.files(ws, app, n).value() == std::optional<source_files>(history[n - 1]));
    CHECK_FALSE(vs.files(ws, app, 2).value());
    CHECK_FALSE(vs.blob(only_two).value());  // held by version 2 only
    CHECK(vs.blob(version_blob_digest("the same in every version")).value());
    // By age: versions older than 2.5 s at 10 s go (7 at 7 s stays), the latest and 3 stay.
    CHECK(vs.prune(ws, app, {std::nullopt, 2500}, 10000).value() == std::vector<std::int64_t>{7});
    // A new version after pruning still reads whole and numbers on.
    files["src/App.tsx"] = "version 11";
    REQUIRE(vs.record(ws, app, files, turn("r", "step 11"), std::nullopt, 11000).value()->number == 11);
    CHECK(vs.files(ws, app, 11).value() == std::optional<source_files>(files));
    CHECK(vs.files(ws, app, 8).value() == std::optional<source_files>(history[7]));
  }
}

}  // namespace version_store_test
