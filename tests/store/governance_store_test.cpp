// The governance store on every backend: SQLite in memory and in a file, PostgreSQL when
// PLATFORM_TEST_PG_URL names a server. Ids carry a per-process random prefix.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adapters/sql_store.hpp"
#include "platform/approval_hash.hpp"
#include "store_backends.hpp"

using namespace platform;
namespace fs = std::filesystem;

namespace {

std::string uid(std::string_view what) { return store_test::uid("g", what); }

using store_test::backend_case;

std::vector<backend_case> backends() { return store_test::backends("platform-gov-"); }

const std::string agents_a = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"p","tools":[]}]})";
// Same policy as agents_a: key order, whitespace and an empty tools list never change the hash.
const std::string agents_a_reordered = R"({ "agents": [ {"systemPrompt":"p","description":"d","name":"A","id":"a"} ] })";
const std::string agents_b = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"changed"}]})";

agents_approval approval_of(const std::string& text, std::string by = "admin1", std::int64_t at = 5000) {
  auto a = approval_hash_v1(text).value();
  return {a.hash, a.normalized_payload_json, std::move(by), at};
}

struct fixture {
  std::unique_ptr<store> db;
  std::string ws = uid("ws");
  std::string app = uid("app");
  explicit fixture(std::unique_ptr<store> s) : db(std::move(s)) {
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
    REQUIRE(db->create_app({app, ws, "App", "u1", "", "", "{}", 1000}));
  }
  governance_store& gov() { return db->governance(); }
  std::optional<std::string> draft_hash() { return gov().head(ws, app, source_scope::draft).value()->agents_hash; }
};

}  // namespace

TEST_CASE("governance store backends") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);

    SUBCASE("an app starts with no snapshots, approval or publication") {
      fixture f(b.open());
      CHECK_FALSE(f.gov().head(f.ws, f.app, source_scope::draft).value());
      CHECK_FALSE(f.gov().head(f.ws, f.app, source_scope::published).value());
      CHECK(f.gov().snapshot_files(f.ws, f.app, source_scope::draft).value().empty());
      CHECK_FALSE(f.gov().snapshot_file(f.ws, f.app, source_scope::draft, "agents.json").value());
      CHECK_FALSE(f.gov().approval(f.ws, f.app).value());
      CHECK_FALSE(f.gov().publication(f.ws, f.app).value());
      CHECK(f.gov().approve(f.ws, f.app, approval_of(agents_a)).value() == approve_outcome::no_draft);
      CHECK(f.gov().publish(f.ws, f.app, "admin1", 6000).value() == publish_outcome::no_draft);
    }

    SUBCASE("publish reviews: one pending per app; approval publishes the reviewed draft only; rejection records") {
      fixture f(b.open());
      auto ask = [&](std::string id, std::int64_t at) {
        publish_review r;
        r.id = std::move(id);
        r.workspace_id = f.ws;
        r.app_id = f.app;
        r.requested_by = "collab1";
        r.note = "Ready for the team";
        r.created_at = at;
        auto out = f.gov().request_review(r).value();
        return std::pair{out, r};
      };
      CHECK(ask(uid("rv"), 1500).first == review_request_outcome::no_draft);
      REQUIRE(f.gov().replace_draft(f.ws, f.app, {{"agents.json", agents_a}}, 2000));
      REQUIRE(f.gov().approve(f.ws, f.app, approval_of(agents_a)).value() == approve_outcome::approved);
      auto [made, first] = ask(uid("rv"), 3000);
      REQUIRE(made == review_request_outcome::created);
      CHECK(first.draft_version == 1);
      CHECK(ask(uid("rv"), 3100).first == review_request_outcome::already_pending);
      CHECK(f.gov().decide_review(f.ws, f.app, uid("nope"), true, "admin1", "", 3200).value() ==
            review_decision_outcome::not_found);
      CHECK(f.gov().decide_review(uid("ws"), f.app, first.id, true, "admin1", "", 3200).value() ==
            review_decision_outcome::not_found);
      // The draft changed after the request: approving would publish what nobody reviewed.
      REQUIRE(f.gov().replace_draft(f.ws, f.app, {{"agents.json", agents_a}, {"src/x.ts", "1"}}, 3300));
      CHECK(f.gov().decide_review(f.ws, f.app, first.id, true, "admin1", "", 3400).value() ==
            review_decision_outcome::draft_changed);
      CHECK_FALSE(f.gov().head(f.ws, f.app, source_scope::published).value());
      CHECK(f.gov().decide_review(f.ws, f.app, first.id, false, "admin1", "Please re-request", 3500).value() ==
            review_decision_outcome::decided);
      CHECK(f.gov().decide_review(f.ws, f.app, first.id, true, "admin1", "", 3600).value() ==
            review_decision_outcome::not_pending);
      auto [again, second] = ask(uid("rv"), 4000);
      REQUIRE(again == review_request_outcome::created);
      CHECK(second.draft_version == 2);
      CHECK(f.gov().decide_review(f.ws, f.app, second.id, true, "admin1", "Ship it", 4100).value() ==
            review_decision_outcome::decided);
      auto pub = f.gov().publication(f.ws, f.app).value();
      REQUIRE(pub);
      CHECK(pub->published_by == "admin1");
      CHECK(pub->snapshot_version == 2);
      CHECK(f.gov().snapshot_file(f.ws, f.app, source_scope::published, "src/x.ts").value() == std::optional<std::string>("1"));
      auto all = f.gov().reviews(f.ws, f.app, 10).value();
      REQUIRE(all.size() == 2);
      CHECK(all[0].id == second.id);
      CHECK(all[0].status == review_status::approved);
      CHECK(all[0].decided_by == "admin1");
      CHECK(all[0].decision_note == "Ship it");
      CHECK(all[1].status == review_status::rejected);
      CHECK(all[1].note == "Ready for the team");
      // A stale approval blocks an approving review like a direct publish.
      REQUIRE(f.gov().replace_draft(f.ws, f.app, {{"agents.json", agents_b}}, 5000));
      auto [third_made, third] = ask(uid("rv"), 5100);
      REQUIRE(third_made == review_request_outcome::created);
      CHECK(f.gov().decide_review(f.ws, f.app, third.id, true, "admin1", "", 5200).value() == review_decision_outcome::stale);
      CHECK(f.gov().reviews(f.ws, f.app, 10).value()[0].status == review_status::pending);
    }

    SUBCASE("replace_draft keeps the version when nothing changed and hashes agents.json") {
      fixture f(b.open());
      source_files files{{"agents.json", agents_a}, {"src/App.tsx", "export default 1;\n"}};
      auto h1 = f.gov().replace_draft(f.ws, f.app, files, 2000).value();
      CHECK(h1.version == 1);
      CHECK(h1.agents_hash == approval_hash_v1(agents_a).value().hash);
      CHECK(f.gov().replace_draft(f.ws, f.app, files, 2100).value().version == 1);
      // A semantically equal agents.json is a change of the file, not of the hash.
      files["agents.json"] = agents_a_reordered;
      auto h2 = f.gov().replace_draft(f.ws, f.app, files, 2200).value();
      CHECK(h2.version == 2);
      CHECK(h2.agents_hash == h1.agents_hash);
      // Files missing from the new snapshot are removed; agents.json missing -> no hash.
      auto h3 = f.gov().replace_draft(f.ws, f.app, {{"src/App.tsx", "x"}}, 2300).value();
      CHECK(h3.version == 3);
      CHECK_FALSE(h3.agents_hash);
      CHECK(f.gov().snapshot_files(f.ws, f.app, source_scope::draft).value() == source_files{{"src/App.tsx", "x"}});
      // Not JSON: stored as is, but no hash.
      auto h4 = f.gov().put_draft_file(f.ws, f.app, "agents.json", "{not json", 2400).value();
      CHECK(h4.version == 4);
      CHECK_FALSE(h4.agents_hash);
      CHECK(f.gov().snapshot_file(f.ws, f.app, source_scope::draft, "agents.json").value() == "{not json");
    }

    SUBCASE("snapshots of many files go in batches; content is kept byte for byte") {
      fixture f(b.open());
      source_files files;
      for (int i = 0; i < 250; ++i) files["src/f" + std::to_string(i) + ".ts"] = "// é ✓ \"quoted\" \\ " + std::to_string(i);
      files["agents.json"] = agents_a;
      f.gov().replace_draft(f.ws, f.app, files, 2000).value();
      CHECK(f.gov().snapshot_files(f.ws, f.app, source_scope::draft).value() == files);
    }

    SUBCASE("put_draft_file of another file keeps the agents hash; apps do not share snapshots") {
      fixture f(b.open());
      f.gov().put_draft_file(f.ws, f.app, "agents.json", agents_a, 2000).value();
      auto h = f.gov().put_draft_file(f.ws, f.app, "integration-setup.json", "{}", 2100).value();
      CHECK(h.version == 2);
      CHECK(h.agents_hash == approval_hash_v1(agents_a).value().hash);
      CHECK_FALSE(f.gov().head(f.ws, uid("other-app"), source_scope::draft).value());
      CHECK_FALSE(f.gov().snapshot_file(uid("other-ws"), f.app, source_scope::draft, "agents.json").value());
    }

    SUBCASE("approval is of the exact draft payload; edits make it stale; re-approval; publish") {
      fixture f(b.open());
      f.gov().put_draft_file(f.ws, f.app, "agents.json", agents_a, 2000).value();
      CHECK(f.gov().publish(f.ws, f.app, "admin1", 2500).value() == publish_outcome::unapproved);
      // The approver saw agents_b, but the draft holds agents_a.
      CHECK(f.gov().approve(f.ws, f.app, approval_of(agents_b)).value() == approve_outcome::draft_changed);
      CHECK_FALSE(f.gov().approval(f.ws, f.app).value());
      CHECK(f.gov().approve(f.ws, f.app, approval_of(agents_a)).value() == approve_outcome::approved);
      auto a = f.gov().approval(f.ws, f.app).value();
      REQUIRE(a);
      CHECK(a->hash == approval_hash_v1(agents_a).value().hash);
      CHECK(a->normalized_payload_json == approval_hash_v1(agents_a).value().normalized_payload_json);
      CHECK(a->approved_by == "admin1");
      CHECK(a->approved_at == 5000);

      // An edit that keeps the policy keeps the approval valid; one that changes it is stale.
      f.gov().put_draft_file(f.ws, f.app, "agents.json", agents_a_reordered, 3000).value();
      CHECK(f.draft_hash() == a->hash);
      f.gov().put_draft_file(f.ws, f.app, "agents.json", agents_b, 3100).value();
      CHECK(f.draft_hash() != a->hash);
      CHECK(f.gov().publish(f.ws, f.app, "admin1", 3200).value() == publish_outcome::stale);
      CHECK_FALSE(f.gov().publication(f.ws, f.app).value());

      // Re-approve the new payload; then publish copies the draft.
      CHECK(f.gov().approve(f.ws, f.app, approval_of(agents_b, "owner1", 4000)).value() == approve_outcome::approved);
      f.gov().put_draft_file(f.ws, f.app, "src/App.tsx", "v1", 4100).value();
      CHECK(f.gov().publish(f.ws, f.app, "owner1", 4200).value() == publish_outcome::published);
      auto p = f.gov().publication(f.ws, f.app).value();
      REQUIRE(p);
      CHECK(p->approval.hash == approval_hash_v1(agents_b).value().hash);
      CHECK(p->approval.approved_by == "owner1");
      CHECK(p->published_by == "owner1");
      CHECK(p->published_at == 4200);
      auto draft_head = f.gov().head(f.ws, f.app, source_scope::draft).value();
      CHECK(p->snapshot_version == draft_head->version);
      auto published = f.gov().snapshot_files(f.ws, f.app, source_scope::published).value();
      CHECK(published == source_files{{"agents.json", agents_b}, {"src/App.tsx", "v1"}});
      CHECK(f.gov().head(f.ws, f.app, source_scope::published).value()->agents_hash == p->approval.hash);

      // Later draft edits never touch the published snapshot; republishing replaces it whole.
      f.gov().replace_draft(f.ws, f.app, {{"agents.json", agents_b}, {"src/New.tsx", "n"}}, 5000).value();
      CHECK(f.gov().snapshot_file(f.ws, f.app, source_scope::published, "src/App.tsx").value() == "v1");
      CHECK(f.gov().publish(f.ws, f.app, "admin1", 5100).value() == publish_outcome::published);
      CHECK(f.gov().snapshot_files(f.ws, f.app, source_scope::published).value() ==
            source_files{{"agents.json", agents_b}, {"src/New.tsx", "n"}});
      CHECK(f.gov().publication(f.ws, f.app).value()->published_by == "admin1");
    }

    SUBCASE("an app without agents.json publishes its source with no governed payload") {
      fixture f(b.open());
      f.gov().replace_draft(f.ws, f.app, {{"src/App.tsx", "plain"}}, 2000).value();
      CHECK(f.gov().publish(f.ws, f.app, "owner1", 2100).value() == publish_outcome::published);
      CHECK_FALSE(f.gov().publication(f.ws, f.app).value());
      CHECK(f.gov().snapshot_files(f.ws, f.app, source_scope::published).value() == source_files{{"src/App.tsx", "plain"}});
      // Once agents.json appears, publishing needs an approval again.
      f.gov().put_draft_file(f.ws, f.app, "agents.json", agents_a, 2200).value();
      CHECK(f.gov().publish(f.ws, f.app, "owner1", 2300).value() == publish_outcome::unapproved);
    }

    SUBCASE("concurrent edits and approvals: an approval never records a hash the draft did not have") {
      fixture f(b.open());
      f.gov().put_draft_file(f.ws, f.app, "agents.json", agents_a, 2000).value();
      std::atomic<int> approved{0};
      std::vector<std::thread> threads;
      for (int i = 0; i < 6; ++i) {
        threads.emplace_back([&, i] {
          if (i % 2 == 0) {
            (void)f.gov().put_draft_file(f.ws, f.app, "agents.json", i % 4 == 0 ? agents_b : agents_a, 3000 + i);
          } else {
            auto r = f.gov().approve(f.ws, f.app, approval_of(i % 4 == 1 ? agents_a : agents_b));
            if (r && *r == approve_outcome::approved) ++approved;
          }
        });
      }
      for (auto& t : threads) t.join();
      auto a = f.gov().approval(f.ws, f.app).value();
      CHECK((approved == 0) == !a.has_value());
      auto outcome = f.gov().publish(f.ws, f.app, "admin1", 9000).value();
      bool approved_now = a && f.draft_hash() == a->hash;
      CHECK((outcome == publish_outcome::published) == approved_now);
    }
  }
}
