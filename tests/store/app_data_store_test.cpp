// The app data store on every backend: SQLite in memory and in a file, PostgreSQL when
// PLATFORM_TEST_PG_URL names a server. Ids carry a per-process random prefix so runs against a
// shared server never collide.
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
#include "platform/api_error.hpp"
#include "platform/app_data_store.hpp"
#include "store_backends.hpp"

using namespace platform;
namespace fs = std::filesystem;

namespace app_data_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string uid(std::string_view what) { return store_test::uid("d", what); }

using data_backend = store_test::backend_case;

std::vector<data_backend> data_backends() { return store_test::backends("platform-app-data-"); }

collection_ref todos(data_scope scope = data_scope::published, std::string ws = "w", std::string app = "a") {
  return {std::move(ws), std::move(app), scope, "todos"};
}

data_write write(std::string id, std::string data = "{}", std::optional<std::int64_t> expected = std::nullopt,
                 std::int64_t now = 1000) {
  data_write w;
  w.doc_id = std::move(id);
  w.data_json = std::move(data);
  w.expected_version = expected;
  w.now = now;
  return w;
}


TEST_CASE("app data rules: names, cursors, merge patch") {
  CHECK(valid_collection_name("todos"));
  CHECK(valid_collection_name("Todo_items-2"));
  CHECK_FALSE(valid_collection_name(""));
  CHECK_FALSE(valid_collection_name("2todos"));
  CHECK_FALSE(valid_collection_name("to dos"));
  CHECK_FALSE(valid_collection_name("a.b"));
  CHECK_FALSE(valid_collection_name(std::string(65, 'a')));
  CHECK(data_scope_from("draft") == data_scope::draft);
  CHECK_FALSE(data_scope_from("Draft"));

  app_document d{"doc_1", "{}", 1, 42, 42};
  auto at = parse_page_cursor(page_cursor(d));
  REQUIRE(at);
  CHECK(at->created_at == 42);
  CHECK(at->id == "doc_1");
  CHECK_FALSE(parse_page_cursor("x.doc"));
  CHECK_FALSE(parse_page_cursor("42"));
  CHECK_FALSE(parse_page_cursor("42.a b"));

  app_data_limits limits;
  CHECK(merge_document(R"({"a":{"b":1,"c":2},"d":[1,2],"e":1})", R"({"a":{"b":9,"c":null},"d":[3],"f":"x"})", limits)
            .value() == R"({"a":{"b":9},"d":[3],"e":1,"f":"x"})");
  CHECK(merge_document("{}", "[1]", limits).error().code == platform::api_error::invalid_data);
  CHECK(normalize_document("[]", limits).error().code == platform::api_error::invalid_data);
  CHECK(normalize_document("{", limits).error().code == platform::api_error::invalid_data);
  CHECK(normalize_document(std::string(100, '[') + std::string(100, ']'), limits).error().code == platform::api_error::invalid_data);
  CHECK(normalize_document(R"({ "a" : 1 })", limits).value() == R"({"a":1})");
  limits.max_document_bytes = 10;
  CHECK(normalize_document(R"({"a":"0123456789"})", limits).error().code == platform::api_error::document_too_large);
}

TEST_CASE("app data store backends") {
  for (const auto& b : data_backends()) {
    CAPTURE(b.name);
    auto db = b.open();
    auto& data = db->app_data();
    const std::string ws = uid("ws"), app = uid("app"), other_app = uid("app");

    SUBCASE("insert, get, merge update, remove; versions grow with every write") {
      auto c = todos(data_scope::published, ws, app);
      auto made = data.insert(c, write("doc1", R"({"title":"milk","meta":{"tags":["a"],"n":1}})"));
      REQUIRE_MESSAGE(made, made.error().message);
      CHECK(made->version == 1);
      CHECK(made->created_at == 1000);
      auto got = data.get(c, "doc1").value();
      REQUIRE(got);
      CHECK(got->data_json == R"({"meta":{"n":1,"tags":["a"]},"title":"milk"})");
      auto up = data.update(c, write("doc1", R"({"done":true,"meta":{"n":null,"by":"x"}})", std::nullopt, 2000));
      REQUIRE_MESSAGE(up, up.error().message);
      CHECK(up->version == 2);
      CHECK(up->updated_at == 2000);
      CHECK(up->created_at == 1000);
      CHECK(up->data_json == R"({"done":true,"meta":{"by":"x","tags":["a"]},"title":"milk"})");
      CHECK(data.get(c, "doc1").value()->data_json == up->data_json);
      auto gone = data.remove(c, write("doc1", "", std::nullopt, 3000));
      REQUIRE(gone);
      CHECK(gone->version == 3);
      CHECK_FALSE(data.get(c, "doc1").value());
      CHECK(data.update(c, write("doc1", "{}")).error().code == platform::api_error::data_not_found);
      CHECK(data.remove(c, write("doc1")).error().code == platform::api_error::data_not_found);
      CHECK(data.insert(c, write("doc2")).value().version == 1);
      CHECK(data.insert(c, write("doc2")).error().code == platform::api_error::store_conflict);  // ids are never reused silently
    }

    SUBCASE("expected versions: a stale writer gets version_conflict, nothing changes") {
      auto c = todos(data_scope::published, ws, app);
      REQUIRE(data.insert(c, write("d", R"({"n":1})")));
      REQUIRE(data.update(c, write("d", R"({"n":2})", 1)));
      auto stale = data.update(c, write("d", R"({"n":3})", 1));
      REQUIRE_FALSE(stale);
      CHECK(stale.error().code == platform::api_error::version_conflict);
      CHECK(data.remove(c, write("d", "", 1)).error().code == platform::api_error::version_conflict);
      CHECK(data.get(c, "d").value()->data_json == R"({"n":2})");
      CHECK(data.remove(c, write("d", "", 2)).value().version == 3);
    }

    SUBCASE("draft and published scopes, and apps, never see each other's documents") {
      auto pub = todos(data_scope::published, ws, app);
      auto draft = todos(data_scope::draft, ws, app);
      auto other = todos(data_scope::published, ws, other_app);
      REQUIRE(data.insert(pub, write("same", R"({"s":"pub"})")));
      REQUIRE(data.insert(draft, write("same", R"({"s":"draft"})")));
      CHECK(data.get(pub, "same").value()->data_json == R"({"s":"pub"})");
      CHECK(data.get(draft, "same").value()->data_json == R"({"s":"draft"})");
      CHECK_FALSE(data.get(other, "same").value());
      CHECK(data.list(other, {}).value().documents.empty());
      CHECK(data.update(other, write("same", "{}")).error().code == platform::api_error::data_not_found);
      REQUIRE(data.remove(draft, write("same")));
      CHECK(data.get(pub, "same").value());
    }

    SUBCASE("list: oldest first, pages by cursor, bounded limit") {
      auto c = todos(data_scope::published, ws, app);
      for (int i = 0; i < 5; ++i) {
        REQUIRE(data.insert(c, write("doc" + std::to_string(i), "{}", std::nullopt, 1000 + (i / 2))));
      }
      std::vector<std::string> seen;
      page_request page{2, ""};
      int pages = 0;
      while (true) {
        auto p = data.list(c, page);
        REQUIRE_MESSAGE(p, p.error().message);
        ++pages;
        for (const auto& d : p->documents) seen.push_back(d.id);
        if (!p->next_cursor) break;
        page.cursor = *p->next_cursor;
      }
      CHECK(pages == 3);
      CHECK(seen == std::vector<std::string>{"doc0", "doc1", "doc2", "doc3", "doc4"});
      CHECK(data.list(c, {0, ""}).error().code == platform::api_error::invalid_data);
      CHECK(data.list(c, {201, ""}).error().code == platform::api_error::invalid_data);
      CHECK(data.list(c, {200, ""}).value().documents.size() == 5);
      CHECK(data.list(c, {10, "nonsense"}).error().code == platform::api_error::invalid_cursor);
    }

    SUBCASE("bad input and limits") {
      auto c = todos(data_scope::published, ws, app);
      CHECK(data.insert({ws, app, data_scope::published, "no way"}, write("d")).error().code == platform::api_error::invalid_collection);
      CHECK(data.insert(c, write("bad id")).error().code == platform::api_error::invalid_document_id);
      CHECK(data.insert(c, write("d", "[1,2]")).error().code == platform::api_error::invalid_data);
      data_write big = write("big", R"({"blob":")" + std::string(300 * 1024, 'x') + R"("})");
      CHECK(data.insert(c, big).error().code == platform::api_error::document_too_large);
      REQUIRE(data.insert(c, write("grow", R"({"blob":""})")));
      data_write grow = write("grow", big.data_json);
      CHECK(data.update(c, grow).error().code == platform::api_error::document_too_large);
      CHECK(data.get(c, "grow").value()->version == 1);

      auto small = todos(data_scope::draft, ws, app);
      data_write w = write("x1");
      w.limits.max_documents_per_collection = 2;
      REQUIRE(data.insert(small, w));
      w.doc_id = "x2";
      REQUIRE(data.insert(small, w));
      w.doc_id = "x3";
      CHECK(data.insert(small, w).error().code == platform::api_error::collection_full);
      CHECK_FALSE(data.get(small, "x3").value());
      REQUIRE(data.remove(small, write("x1")));
      CHECK(data.insert(small, w));  // a removal frees its place
    }

    SUBCASE("concurrent merges without expected versions lose no change") {
      auto c = todos(data_scope::published, ws, app);
      REQUIRE(data.insert(c, write("hot")));
      std::vector<std::thread> threads;
      std::atomic<int> ok{0};
      for (int i = 0; i < 6; ++i) {
        threads.emplace_back([&, i] {
          if (data.update(c, write("hot", R"({"k)" + std::to_string(i) + R"(":true})"))) ++ok;
        });
      }
      for (auto& t : threads) t.join();
      auto hot = data.get(c, "hot").value();
      REQUIRE(hot);
      CHECK(ok.load() == 6);
      CHECK(hot->version == 1 + ok.load());
      for (int i = 0; i < 6; ++i) CHECK(hot->data_json.find("\"k" + std::to_string(i) + "\":true") != std::string::npos);
    }

    SUBCASE("the collection limit holds under concurrent inserts") {
      auto c = todos(data_scope::draft, ws, other_app);
      std::vector<std::thread> threads;
      std::atomic<int> ok{0};
      for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&, i] {
          data_write w = write("c" + std::to_string(i));
          w.limits.max_documents_per_collection = 3;
          if (data.insert(c, w)) ++ok;
        });
      }
      for (auto& t : threads) t.join();
      CHECK(ok.load() == 3);
      CHECK(data.list(c, {}).value().documents.size() == 3);
    }
  }
}

}  // namespace app_data_store_test
