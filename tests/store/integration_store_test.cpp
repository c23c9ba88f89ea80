// The integration store on every backend (SQLite always, PostgreSQL with
// PLATFORM_TEST_PG_URL): app-scoped grants, values sealed at rest, OAuth providers, accounts
// with conditional refresh and revocation, one-time connect states, requirement sets.
#include <doctest/doctest.h>

#include <libpq-fe.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "adapters/sql_store.hpp"

using namespace platform;
namespace fs = std::filesystem;

namespace integration_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string in_uid(std::string_view what) {
  static const std::string prefix = [] {
    std::random_device rd;
    return "in" + std::to_string(rd()) + "-";
  }();
  static std::atomic<int> n{0};
  return prefix + std::string(what) + std::to_string(++n);
}

secrets_key test_key(char fill) {
  secrets_key k;
  k.bytes.fill(static_cast<std::uint8_t>(fill));
  return k;
}

struct in_backend {
  std::string name;
  std::function<std::unique_ptr<store>()> open;
  std::string sqlite_file;  // set for the file backend: the bytes at rest are checked
};

fs::path sqlite_dir() {
  static fs::path dir = fs::temp_directory_path() / in_uid("platform-integrations-");
  fs::create_directories(dir);
  return dir;
}

std::vector<in_backend> in_backends() {
  std::vector<in_backend> out;
  out.push_back({"sqlite-memory", [] { return open_sqlite_store(":memory:").value(); }, ""});
  auto file = (sqlite_dir() / "platform.db").string();
  out.push_back({"sqlite-file", [file] { return open_sqlite_store(file).value(); }, file});
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  if (pg && *pg) {
    std::string url = pg;
    out.push_back({"postgres", [url] { return open_postgres_store(url, 8).value(); }, ""});
  }
  return out;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every stored column of the integration tables as PostgreSQL holds it.
std::string postgres_rows_text() {
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  PGconn* raw = PQconnectdb(pg);
  std::string all;
  for (const char* q : {"SELECT value_sealed FROM integration_secrets", "SELECT client_secret_sealed FROM oauth_providers",
                        "SELECT access_token_sealed || coalesce(refresh_token_sealed, '') FROM oauth_accounts"}) {
    PGresult* res = PQexec(raw, q);
    for (int i = 0; i < PQntuples(res); ++i) all.append(PQgetvalue(res, i, 0));
    PQclear(res);
  }
  PQfinish(raw);
  return all;
}

struct in_fixture {
  std::unique_ptr<store> db;
  std::string ws = in_uid("ws");
  std::string app = in_uid("app");
  std::string other_app = in_uid("app");
  explicit in_fixture(std::unique_ptr<store> s) : db(std::move(s)) {
    db->integrations().install_secrets_key(test_key('k'));
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
  }
  integration_store& in() { return db->integrations(); }
  grant_key grant(const std::string& a, std::string domain = "api.example.com") { return {ws, a, std::move(domain), "default"}; }
  oauth_account_key account(const std::string& a, std::string user = "u1") { return {ws, a, "acme", std::move(user)}; }
};


TEST_CASE("integration store backends") {
  for (const auto& b : in_backends()) {
    CAPTURE(b.name);
    in_fixture f(b.open());

    SUBCASE("secrets are app-scoped: another app's grant never satisfies this app") {
      REQUIRE(f.in().put_secret(f.grant(f.other_app), "API_KEY", "other-app-value", 1));
      CHECK(f.in().grant_secrets(f.grant(f.app)).value().empty());
      REQUIRE(f.in().put_secret(f.grant(f.app), "API_KEY", "v1", 2));
      REQUIRE(f.in().put_secret(f.grant(f.app), "API_KEY", "v2", 3));  // replaces
      REQUIRE(f.in().put_secret(f.grant(f.app, "other.example.com"), "API_KEY", "elsewhere", 3));
      auto secrets = f.in().grant_secrets(f.grant(f.app)).value();
      CHECK(secrets.size() == 1);
      CHECK(secrets["API_KEY"] == "v2");
      CHECK(f.in().grant_secrets({f.ws, f.app, "api.example.com", "other-slug"}).value().empty());
      auto list = f.in().grants(f.ws, f.app).value();
      REQUIRE(list.size() == 2);
      CHECK(list[0].domain == "api.example.com");
      CHECK(list[0].secret_names == std::vector<std::string>{"API_KEY"});
      CHECK(f.in().delete_secret(f.grant(f.app), "API_KEY").value());
      CHECK_FALSE(f.in().delete_secret(f.grant(f.app), "API_KEY").value());
      CHECK(f.in().grant_secrets(f.grant(f.other_app)).value().at("API_KEY") == "other-app-value");
    }

    SUBCASE("ciphertext in the DB file does not contain the secret") {
      const std::string canary = "canary-" + in_uid("secret") + "-value";
      REQUIRE(f.in().put_secret(f.grant(f.app), "API_KEY", canary, 1));
      REQUIRE(f.in().put_provider({f.ws, "acme", "client-1", canary + "-client", "https://a/auth", "https://a/token", 1}));
      REQUIRE(f.in().put_account(f.account(f.app), {canary + "-access", canary + "-refresh", 5000, {"read"}}, 1));
      if (!b.sqlite_file.empty()) {
        std::string at_rest = file_bytes(b.sqlite_file) + file_bytes(b.sqlite_file + "-wal");
        CHECK(at_rest.find("API_KEY") != std::string::npos);  // the row is there...
        CHECK(at_rest.find(canary) == std::string::npos);     // ...its value is not
      }
      if (b.name == "postgres") CHECK(postgres_rows_text().find(canary) == std::string::npos);
      // Under another key nothing opens.
      f.in().install_secrets_key(test_key('z'));
      CHECK(f.in().grant_secrets(f.grant(f.app)).error().code == platform::api_error::secret_unreadable);
      f.in().install_secrets_key(test_key('k'));
      CHECK(f.in().grant_secrets(f.grant(f.app)).value().at("API_KEY") == canary);
    }

    SUBCASE("OAuth provider configs: client secret sealed, summaries without it") {
      REQUIRE(f.in().put_provider({f.ws, "acme", "client-1", "cs-1", "https://a/auth", "https://a/token", 1}));
      REQUIRE(f.in().put_provider({f.ws, "acme", "client-2", "cs-2", "https://a/auth2", "https://a/token2", 2}));
      auto p = f.in().get_provider(f.ws, "acme").value();
      REQUIRE(p);
      CHECK(p->client_id == "client-2");
      CHECK(p->client_secret == "cs-2");
      CHECK(p->token_url == "https://a/token2");
      auto list = f.in().provider_summaries(f.ws).value();
      REQUIRE(list.size() == 1);
      CHECK(list[0].client_secret.empty());
      CHECK_FALSE(f.in().get_provider(f.ws, "other").value());
      CHECK(f.in().delete_provider(f.ws, "acme").value());
      CHECK_FALSE(f.in().get_provider(f.ws, "acme").value());
    }

    SUBCASE("connected accounts: refresh races on the version, revoke forgets tokens") {
      auto k = f.account(f.app);
      CHECK_FALSE(f.in().get_account(k).value());
      REQUIRE(f.in().put_account(k, {"at-1", "rt-1", 5000, {"read", "write"}}, 1));
      auto a = f.in().get_account(k).value();
      REQUIRE(a);
      CHECK(a->tokens.access_token == "at-1");
      CHECK(a->tokens.refresh_token == std::optional<std::string>("rt-1"));
      CHECK(a->tokens.scopes == std::vector<std::string>{"read", "write"});
      CHECK(a->tokens.expires_at == 5000);
      CHECK_FALSE(a->revoked);
      CHECK(f.in().replace_tokens(k, a->version, {"at-2", "rt-2", 9000, {"read", "write"}}, 2).value());
      CHECK_FALSE(f.in().replace_tokens(k, a->version, {"at-3", std::nullopt, 9000, {}}, 3).value());  // lost the race
      CHECK(f.in().get_account(k).value()->tokens.access_token == "at-2");
      // Another user and another app are other accounts.
      CHECK_FALSE(f.in().get_account(f.account(f.app, "u2")).value());
      CHECK_FALSE(f.in().get_account(f.account(f.other_app)).value());
      CHECK(f.in().revoke_account(k, 4).value());
      auto revoked = f.in().get_account(k).value();
      REQUIRE(revoked);
      CHECK(revoked->revoked);
      CHECK(revoked->tokens.access_token.empty());
      CHECK_FALSE(revoked->tokens.refresh_token);
      CHECK_FALSE(f.in().replace_tokens(k, revoked->version, {"at-4", std::nullopt, 0, {}}, 5).value());
      REQUIRE(f.in().put_account(k, {"at-5", std::nullopt, 0, {"read"}}, 6));  // reconnect
      CHECK_FALSE(f.in().get_account(k).value()->revoked);
      REQUIRE(f.in().put_account({f.ws, "", "acme", "u2"}, {"ws-wide", std::nullopt, 0, {}}, 7));
      REQUIRE(f.in().put_account(f.account(f.other_app, "u3"), {"x", std::nullopt, 0, {}}, 7));
      auto summaries = f.in().account_summaries(f.ws, f.app).value();
      REQUIRE(summaries.size() == 2);  // this app's and the workspace-wide one, not the other app's
      for (const auto& s : summaries) CHECK(s.tokens.access_token.empty());
    }

    SUBCASE("connect states are taken once and expire") {
      oauth_connect_state s{in_uid("state"), f.ws, f.app, "acme", "u1", "verifier-xyz", "http://cb", {"read"}, 10000};
      REQUIRE(f.in().put_connect_state(s));
      auto taken = f.in().take_connect_state(s.state, 9000).value();
      REQUIRE(taken);
      CHECK(taken->code_verifier == "verifier-xyz");
      CHECK(taken->user_id == "u1");
      CHECK(taken->scopes == std::vector<std::string>{"read"});
      CHECK_FALSE(f.in().take_connect_state(s.state, 9000).value());
      s.state = in_uid("state");
      REQUIRE(f.in().put_connect_state(s));
      CHECK_FALSE(f.in().take_connect_state(s.state, 10001).value());
    }

    SUBCASE("requirements are replaced as a whole set per app") {
      REQUIRE(f.in().replace_requirements(f.ws, f.app, {{"a.example.com", "default", "A", "{}", "r1", 1},
                                                        {"b.example.com", "default", "B", "{}", "r1", 1}}));
      REQUIRE(f.in().replace_requirements(f.ws, f.other_app, {{"c.example.com", "default", "C", "{}", "r9", 1}}));
      CHECK(f.in().requirements(f.ws, f.app).value().size() == 2);
      REQUIRE(f.in().replace_requirements(f.ws, f.app, {{"b.example.com", "slug2", "B2", "{\"x\":1}", "r2", 2}}));
      auto set = f.in().requirements(f.ws, f.app).value();
      REQUIRE(set.size() == 1);
      CHECK(set[0].key_slug == "slug2");
      CHECK(set[0].setup_json == "{\"x\":1}");
      CHECK(set[0].run_id == "r2");
      CHECK(f.in().requirements(f.ws, f.other_app).value().size() == 1);
      REQUIRE(f.in().replace_requirements(f.ws, f.app, {}));
      CHECK(f.in().requirements(f.ws, f.app).value().empty());
    }

    SUBCASE("without a key nothing is written or read") {
      auto fresh = b.open();
      auto put = fresh->integrations().put_secret(f.grant(f.app), "API_KEY", "v", 1);
      CHECK(put.error().code == platform::api_error::secrets_key_missing);
    }
  }
}

}  // namespace integration_store_test
