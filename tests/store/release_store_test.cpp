// The release store on every backend (issue 35): a publish recorded as what went live (the
// version with the published source, the published build, the approved payload), a publish of
// edits no version has recording that version first, a rollback publishing an earlier release
// exactly while the draft and its approval stay, refusals, and two replicas recording at once.
#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "platform/approval_hash.hpp"
#include "store_backends.hpp"

using namespace platform;

namespace release_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string rs_uid(std::string_view what) { return store_test::uid("rs", what); }

std::string agents_with(std::string_view prompt) {
  return R"({"agents":[{"id":"helper","name":"Helper","description":"d","systemPrompt":")" + std::string(prompt) + R"("}]})";
}

struct release_fixture {
  std::unique_ptr<store> db;
  std::string ws = rs_uid("ws");
  std::string app = rs_uid("app");
  explicit release_fixture(std::unique_ptr<store> s) : db(std::move(s)) {
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
    REQUIRE(db->create_app({app, ws, "App", "u1", "", "", "{}", 1000}));
  }

  // A builder turn: the draft becomes `files`, a version records them with `build`, and the
  // draft preview shows that build.
  void turn(const source_files& files, const std::string& build, std::int64_t now) {
    REQUIRE(db->governance().replace_draft(ws, app, files, now));
    REQUIRE(db->versions().record(ws, app, files, {"run1", "turn at " + std::to_string(now), "runtime-a", "u1", std::nullopt}, build, now));
    REQUIRE(db->previews().put_build(build, {{"index.html", build}}, now));
    REQUIRE(db->previews().set_app_preview(ws, app, source_scope::draft, build, now));
  }

  // An admin approves the draft's agents.json and publishes it, as the publish route does.
  std::optional<app_release> publish(std::int64_t now, release_via via = release_via::publish) {
    auto text = db->governance().snapshot_file(ws, app, source_scope::draft, agents_json_path).value();
    if (text) {
      auto a = approval_hash_v1(*text).value();
      REQUIRE(db->governance().approve(ws, app, {a.hash, a.normalized_payload_json, "admin1", now}).value() == approve_outcome::approved);
    }
    REQUIRE(db->governance().publish(ws, app, "admin1", now).value() == publish_outcome::published);
    REQUIRE(db->previews().publish_preview(ws, app, now).value());
    auto r = db->releases().record_publish(ws, app, {"admin1", now, via, via == release_via::review ? "rev_1" : ""});
    REQUIRE(r);
    return *r;
  }

  std::string published_digest() { return db->previews().app_preview_of(ws, app, source_scope::published).value()->digest; }
  std::string published_hash() { return db->governance().publication(ws, app).value()->approval.hash; }
};


TEST_CASE("releases: every publish recorded as what went live; a rollback publishes one again exactly") {
  for (const auto& b : store_test::backends("platform-releases-")) {
    CAPTURE(b.name);
    release_fixture f(b.open());
    auto& releases = f.db->releases();
    // Nothing published yet: nothing to record.
    CHECK_FALSE(releases.record_publish(f.ws, f.app, {"admin1", 1500, release_via::publish, ""}).value());

    const source_files v1{{"src/App.tsx", "one"}, {"agents.json", agents_with("first")}};
    f.turn(v1, "sha256:build-one", 2000);
    auto r1 = f.publish(2100);
    REQUIRE(r1);
    CHECK(r1->number == 1);
    CHECK(r1->version == 1);
    CHECK(r1->build_digest == "sha256:build-one");
    REQUIRE(r1->approval);
    CHECK(r1->approval->hash == approval_hash_v1(agents_with("first"))->hash);
    CHECK(r1->published_by == "admin1");
    CHECK(r1->via == release_via::publish);

    const source_files v2{{"src/App.tsx", "two"}, {"agents.json", agents_with("second")}};
    f.turn(v2, "sha256:build-two", 3000);
    auto r2 = f.publish(3100, release_via::review);
    CHECK(r2->number == 2);
    CHECK(r2->version == 2);
    CHECK(r2->via == release_via::review);
    CHECK(r2->review_id == "rev_1");

    // An edit outside a turn (a PATCH of agents.json) published: its source becomes version 3.
    REQUIRE(f.db->governance().put_draft_file(f.ws, f.app, agents_json_path, agents_with("third"), 3500));
    auto r3 = f.publish(3600);
    CHECK(r3->number == 3);
    CHECK(r3->version == 3);
    CHECK(r3->build_digest == "sha256:build-two");
    auto v3 = f.db->versions().get(f.ws, f.app, 3).value();
    REQUIRE(v3);
    CHECK(v3->origin.asked_by == "admin1");
    CHECK(v3->origin.run_id.empty());
    const auto draft_approval = f.db->governance().approval(f.ws, f.app).value();

    // Roll back to release 1: its source, build and approved payload are live again.
    std::optional<app_release> made;
    REQUIRE(releases.roll_back(f.ws, f.app, 1, {"owner1", 4000, release_via::rollback, ""}, made).value() == rollback_outcome::rolled_back);
    REQUIRE(made);
    CHECK(made->number == 4);
    CHECK(made->version == 1);
    CHECK(made->via == release_via::rollback);
    CHECK(made->rolled_back_from == std::optional<std::int64_t>(1));
    CHECK(made->published_by == "owner1");
    CHECK(f.db->governance().snapshot_files(f.ws, f.app, source_scope::published).value() == v1);
    CHECK(f.published_digest() == "sha256:build-one");
    CHECK(f.published_hash() == r1->approval->hash);
    CHECK(f.db->governance().publication(f.ws, f.app).value()->published_by == "owner1");
    auto published_head = f.db->governance().head(f.ws, f.app, source_scope::published).value();
    REQUIRE(published_head);
    CHECK(published_head->agents_hash == r1->approval->hash);
    // The draft and its approval are the builder's and the approver's still.
    auto draft = f.db->governance().snapshot_files(f.ws, f.app, source_scope::draft).value();
    CHECK(draft.at("agents.json") == agents_with("third"));
    CHECK(f.db->governance().approval(f.ws, f.app).value()->hash == draft_approval->hash);
    CHECK(f.db->previews().app_preview_of(f.ws, f.app, source_scope::draft).value()->digest == "sha256:build-two");

    // Newest first, a page at a time.
    auto page = releases.list(f.ws, f.app, {2, std::nullopt}).value();
    REQUIRE(page.size() == 2);
    CHECK(page[0].number == 4);
    CHECK(page[1].number == 3);
    auto rest = releases.list(f.ws, f.app, {10, 3}).value();
    REQUIRE(rest.size() == 2);
    CHECK(rest[1].number == 1);
    CHECK(releases.get(f.ws, f.app, 2).value()->build_digest == "sha256:build-two");
    CHECK_FALSE(releases.get(f.ws, f.app, 9).value());

    // Refusals change nothing.
    CHECK(releases.roll_back(f.ws, f.app, 9, {"owner1", 4100, release_via::rollback, ""}, made).value() == rollback_outcome::no_release);
    CHECK_FALSE(made);
    CHECK(releases.list(f.ws, f.app, {10, std::nullopt}).value().size() == 4);
  }
}

TEST_CASE("releases: an app without agents.json; a release whose build is gone cannot be published again") {
  for (const auto& b : store_test::backends("platform-releases-plain-")) {
    CAPTURE(b.name);
    release_fixture f(b.open());
    f.turn({{"index.html", "plain"}}, "sha256:plain-one", 2000);
    auto r1 = f.publish(2100);
    CHECK_FALSE(r1->approval);
    // A published page whose build was never stored (only the digest was recorded).
    REQUIRE(f.db->governance().replace_draft(f.ws, f.app, {{"index.html", "two"}}, 3000));
    REQUIRE(f.db->previews().set_app_preview(f.ws, f.app, source_scope::draft, "sha256:never-stored", 3000));
    REQUIRE(f.db->governance().publish(f.ws, f.app, "admin1", 3100).value() == publish_outcome::published);
    REQUIRE(f.db->previews().publish_preview(f.ws, f.app, 3100).value());
    auto r2 = f.db->releases().record_publish(f.ws, f.app, {"admin1", 3100, release_via::publish, ""}).value();
    REQUIRE(r2);
    std::optional<app_release> made;
    CHECK(f.db->releases().roll_back(f.ws, f.app, r2->number, {"admin1", 3200, release_via::rollback, ""}, made).value() ==
          rollback_outcome::build_missing);
    CHECK(f.published_digest() == "sha256:never-stored");
    // Release 1 (no agents.json) rolls back with no publication.
    CHECK(f.db->releases().roll_back(f.ws, f.app, 1, {"admin1", 3300, release_via::rollback, ""}, made).value() ==
          rollback_outcome::rolled_back);
    CHECK_FALSE(f.db->governance().publication(f.ws, f.app).value());
    CHECK(f.published_digest() == "sha256:plain-one");
    CHECK(f.db->governance().snapshot_files(f.ws, f.app, source_scope::published).value() == source_files{{"index.html", "plain"}});
  }
}

TEST_CASE("releases: two replicas recording and rolling back at once get consecutive numbers, none lost") {
  for (const auto& b : store_test::backends("platform-releases-race-", false)) {
    CAPTURE(b.name);
    release_fixture f(b.open());
    f.turn({{"index.html", "one"}}, "sha256:race-one", 2000);
    f.publish(2100);
    auto second = b.open();  // another replica: its own pool on the same database
    constexpr int each = 6;
    std::atomic<int> failures{0};
    std::vector<std::thread> replicas;
    for (store* db : {f.db.get(), second.get()}) {
      replicas.emplace_back([&, db] {
        for (int i = 0; i < each; ++i) {
          if (i % 2 == 0) {
            auto r = db->releases().record_publish(f.ws, f.app, {"admin1", 3000 + i, release_via::publish, ""});
            if (!r || !*r) failures.fetch_add(1);
          } else {
            std::optional<app_release> made;
            auto r = db->releases().roll_back(f.ws, f.app, 1, {"admin1", 3000 + i, release_via::rollback, ""}, made);
            if (!r || *r != rollback_outcome::rolled_back) failures.fetch_add(1);
          }
        }
      });
    }
    for (auto& t : replicas) t.join();
    CHECK(failures.load() == 0);
    auto all = f.db->releases().list(f.ws, f.app, {100, std::nullopt}).value();
    REQUIRE(all.size() == 1 + 2 * each);
    std::set<std::int64_t> numbers;
    for (const auto& r : all) numbers.insert(r.number);
    CHECK(numbers.size() == all.size());
    CHECK(*numbers.rbegin() == static_cast<std::int64_t>(all.size()));
  }
}

}  // namespace release_store_test
