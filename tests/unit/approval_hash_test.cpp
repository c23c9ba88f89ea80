#include <doctest/doctest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/approval_hash.hpp"

namespace approval_hash_test {

using platform::approval_hash_v1;
using platform::hash_scheme;

namespace {

nlohmann::json load_vectors() {
  std::ifstream in(std::string(PLATFORM_TEST_DATA) + "/hash/approval.json", std::ios::binary);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

std::string hash_of(std::string_view text) {
  auto r = approval_hash_v1(text);
  REQUIRE_MESSAGE(r.has_value(), std::string(platform::code_name(r.error())) << ": " << r.error().message);
  return r->hash;
}

std::string payload_of(std::string_view text) {
  auto r = approval_hash_v1(text);
  REQUIRE(r.has_value());
  return r->normalized_payload_json;
}

std::string error_code(std::string_view text) {
  auto r = approval_hash_v1(text);
  return r ? "(no error)" : std::string(platform::code_name(r.error()));
}

// A small agents.json: `agent_extra` is spliced into the first agent, `top_extra` into the
// top level, `integration_extra` into the integration of the second agent's custom tool.
std::string doc(const std::string& agent_extra = "", const std::string& top_extra = "",
                const std::string& integration_extra = "") {
  return "{" + top_extra + R"("agents":[{"id":"crm","name":"CRM","description":"d","systemPrompt":"p",)" +
         agent_extra + R"("x":0},
           {"id":"finder","tools":[{"type":"custom","name":"find","enabled":true,
             "mockData":[{"n":1},{"n":2},{"n":3}],
             "integration":{"name":"Acme","domain":"api.acme.example")" + integration_extra + R"(}}]}]})";
}

}  // namespace

TEST_CASE("every document, pair and error of the reference implementation") {
  auto vectors = load_vectors();
  std::map<std::string, std::string> hashes;
  for (const auto& v : vectors["documents"]) {
    CAPTURE(v["name"].get<std::string>());
    auto r = approval_hash_v1(v["input"].get<std::string>());
    REQUIRE(r.has_value());
    CHECK(r->hash == v["hash"].get<std::string>());
    CHECK(r->normalized_payload_json == v["normalized"].get<std::string>());
    hashes[v["name"].get<std::string>()] = r->hash;
  }
  REQUIRE(vectors["pairs"].size() >= 20);
  for (const auto& p : vectors["pairs"]) {
    CAPTURE(p["name"].get<std::string>());
    std::string b = hash_of(p["b"].get<std::string>());
    CHECK(b == p["hash_b"].get<std::string>());
    CHECK((b == hashes.at(p["a"].get<std::string>())) == p["same"].get<bool>());
  }
  for (const auto& e : vectors["errors"]) {
    CAPTURE(e["name"].get<std::string>());
    CHECK(error_code(e["input"].get<std::string>()) == e["error"].get<std::string>());
  }
}

TEST_CASE("the hash is v1: and the SHA-256 of the canonical normalized payload") {
  auto r = approval_hash_v1(R"( { "agents" : [ ] } )");
  REQUIRE(r.has_value());
  CHECK(r->normalized_payload_json == R"({"agents":[]})");
  // printf '%s' '{"agents":[]}' | sha256sum
  CHECK(r->hash == "v1:4e7d2773e89b75eaf683b4604e5c510a08e8f8c423e18d1420fab0f483b06501");
}

TEST_CASE("v1 is frozen: pinned hashes of fixed documents") {
  CHECK(hash_of(R"({"appTools":[],"agents":[{"id":"a","tools":[],"dataCollections":[]}]})") ==
        "v1:f6c2d990c6a5bd152356787c16d11c9af089efa0bfac5c384dbbb2cc34b64ac0");
  CHECK(hash_of(R"({"agents":[{"id":"a","tools":[{"name":"t","integration":{"domain":"x.example"}}]}]})") ==
        "v1:3c26c3fd9c60970bd1829757e95b326b92589d067349d098a4b152a805c61cc6");
}

TEST_CASE("normalization: empty lists that count as omitted, and the default keySlug") {
  CHECK(payload_of(R"({"appTools":[],"agents":[{"id":"a","tools":[],"dataCollections":[]}]})") ==
        R"({"agents":[{"id":"a"}]})");
  CHECK(payload_of(R"({"agents":[],"appTools":[{"name":"t","integration":{"domain":"d"}}]})") ==
        R"({"agents":[],"appTools":[{"integration":{"domain":"d","keySlug":"default"},"name":"t"}]})");
  // Builtin tools have no integration, so they get no keySlug either.
  CHECK(payload_of(R"({"agents":[{"tools":[{"type":"builtin","name":"WebSearch"}]}]})") ==
        R"({"agents":[{"tools":[{"name":"WebSearch","type":"builtin"}]}]})");
  // An empty list anywhere else is kept.
  CHECK(payload_of(R"({"agents":[{"tools":[{"mockData":[],"integration":{"keySlug":"k","auth":{"scopes":[]}}}]}]})") ==
        R"({"agents":[{"tools":[{"integration":{"auth":{"scopes":[]},"keySlug":"k"},"mockData":[]}]}]})");
}

TEST_CASE("what does not change the hash") {
  const std::string base = doc();
  SUBCASE("key order and whitespace") {
    CHECK(hash_of(base) == hash_of(R"({"agents":[{"x":0,"systemPrompt":"p","description":"d","name":"CRM",
      "id":"crm"},{"tools":[{"integration":{"domain":"api.acme.example","name":"Acme"},
      "mockData":[{"n":1},{"n":2},{"n":3}],"enabled":true,"name":"find","type":"custom"}],"id":"finder"}]})"));
    CHECK(hash_of(base) == hash_of(" \n\t" + base + "\r\n "));
  }
  SUBCASE("escaped and raw characters") { CHECK(hash_of(doc("\"y\":\"\\u0041\\u00e9\",")) == hash_of(doc("\"y\":\"A\xC3\xA9\","))); }
  SUBCASE("number spellings") {
    CHECK(hash_of(doc("\"y\":1,")) == hash_of(doc("\"y\":1.0,")));
    CHECK(hash_of(doc("\"y\":1,")) == hash_of(doc("\"y\":1e0,")));
    CHECK(hash_of(doc("\"y\":1,")) == hash_of(doc("\"y\":10E-1,")));
  }
  SUBCASE("empty appTools, agent tools and dataCollections") {
    CHECK(hash_of(base) == hash_of(doc("", R"("appTools":[],)")));
    CHECK(hash_of(base) == hash_of(doc(R"("tools":[],)")));
    CHECK(hash_of(base) == hash_of(doc(R"("dataCollections":[],)")));
    CHECK(hash_of(base) == hash_of(doc(R"("tools":[],"dataCollections":[],)", R"("appTools":[],)")));
  }
  SUBCASE("missing keySlug is default") {
    CHECK(hash_of(R"({"agents":[{"tools":[{"integration":{}}]}]})") ==
          hash_of(R"({"agents":[{"tools":[{"integration":{"keySlug":"default"}}]}]})"));
    CHECK(hash_of(R"({"agents":[],"appTools":[{"integration":{}}]})") ==
          hash_of(R"({"agents":[],"appTools":[{"integration":{"keySlug":"default"}}]})"));
  }
}

TEST_CASE("what changes the hash") {
  const std::string base = doc();
  CHECK(hash_of(doc("\"y\":1,")) != hash_of(doc("\"y\":2,")));
  CHECK(hash_of(base) != hash_of(doc("", R"("appTools":[{"name":"t"}],)")));
  CHECK(hash_of(base) != hash_of(doc(R"("tools":[{"name":"t"}],)")));
  CHECK(hash_of(base) != hash_of(doc(R"("dataCollections":["notes"],)")));
  CHECK(hash_of(doc(R"("dataCollections":["a","b"],)")) != hash_of(doc(R"("dataCollections":["b","a"],)")));
  CHECK(hash_of(base) != hash_of(doc(R"("mockData":[],)")));   // empty, but not one that counts as omitted
  CHECK(hash_of(base) != hash_of(doc(R"("scopes":[],)")));
  CHECK(hash_of(base) != hash_of(doc("", "", R"(,"keySlug":"other")")));
  CHECK(hash_of(base) == hash_of(doc("", "", R"(,"keySlug":"default")")));
  CHECK(hash_of(base) != hash_of(doc("", "", R"(,"keySlug":null)")));
  CHECK(hash_of(doc(R"("systemPrompt2":"a",)")) != hash_of(doc(R"("systemPrompt2":"b",)")));
  auto disabled = base;
  disabled.replace(disabled.find("\"enabled\":true"), 14, "\"enabled\":false");
  CHECK(hash_of(base) != hash_of(disabled));
}

TEST_CASE("the normalized payload hashes to the same hash") {
  const auto vectors = load_vectors();  // a named object: range-for over a member of a temporary dangles
  for (const auto& v : vectors["documents"]) {
    auto first = approval_hash_v1(v["input"].get<std::string>());
    REQUIRE(first.has_value());
    auto again = approval_hash_v1(first->normalized_payload_json);
    REQUIRE(again.has_value());
    CHECK(again->hash == first->hash);
    CHECK(again->normalized_payload_json == first->normalized_payload_json);
  }
}

TEST_CASE("documents that are not agents.json") {
  CHECK(error_code("[]") == "not_agents_document");
  CHECK(error_code("{}") == "not_agents_document");
  CHECK(error_code(R"({"agents":{}})") == "not_agents_document");
  CHECK(error_code(R"({"agents":null})") == "not_agents_document");
  CHECK(error_code(R"("agents")") == "not_agents_document");
  CHECK(error_code(R"({"agents":[],"agents":[]})") == "duplicate_key");
  CHECK(error_code(R"({"agents":[)") == "invalid_json");
  CHECK(error_code("{\"agents\":[\"\xff\"]}") == "invalid_utf8");
  CHECK(error_code(R"({"agents":[1e999]})") == "number_out_of_range");
  // Shapes the normalization does not rely on are hashed as they are.
  CHECK(error_code(R"({"agents":[1,"x",null,{"tools":{}}],"appTools":"none"})") == "(no error)");
}

TEST_CASE("schemes: names, parsing stored hashes, dispatch") {
  CHECK(platform::hash_scheme_name(hash_scheme::v1) == "v1");
  CHECK(platform::hash_scheme_name(hash_scheme::v2) == "v2");
  CHECK(platform::current_hash_scheme == hash_scheme::v2);
  const std::string h = hash_of(doc());
  CHECK(platform::hash_scheme_of(h) == hash_scheme::v1);
  CHECK(platform::hash_scheme_of("v2:" + h.substr(3)) == hash_scheme::v2);
  CHECK_FALSE(platform::hash_scheme_of("v3:" + h.substr(3)).has_value());
  CHECK_FALSE(platform::hash_scheme_of(h.substr(3)).has_value());
  CHECK_FALSE(platform::hash_scheme_of(h.substr(0, h.size() - 1)).has_value());
  CHECK_FALSE(platform::hash_scheme_of(h + "0").has_value());
  std::string upper = h;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK_FALSE(platform::hash_scheme_of("v1:" + upper.substr(3)).has_value());
  CHECK_FALSE(platform::hash_scheme_of("").has_value());

  auto via_dispatch = platform::approval_hash(hash_scheme::v1, doc());
  REQUIRE(via_dispatch.has_value());
  CHECK(via_dispatch->hash == h);
  CHECK(platform::approval_hash(static_cast<hash_scheme>(99), doc()).error().code == platform::api_error::unknown_hash_scheme);
}

TEST_CASE("hashes_equal compares well-formed hashes") {
  const std::string h = hash_of(doc());
  CHECK(platform::hashes_equal(h, hash_of(doc())));
  CHECK_FALSE(platform::hashes_equal(h, hash_of(doc("\"y\":1,"))));
  CHECK_FALSE(platform::hashes_equal("", ""));
  CHECK_FALSE(platform::hashes_equal("v1:abc", "v1:abc"));
}

TEST_CASE("matches_approved_hash: the approval goes stale only when policy changes") {
  const std::string approved = hash_of(doc());
  auto same = platform::matches_approved_hash(approved, doc(R"("tools":[],)", R"("appTools":[],)"));
  REQUIRE(same.has_value());
  CHECK(*same);
  auto changed = platform::matches_approved_hash(approved, doc(R"("dataCollections":["x"],)"));
  REQUIRE(changed.has_value());
  CHECK_FALSE(*changed);
  auto broken = platform::matches_approved_hash(approved, "{not json");
  REQUIRE(broken.has_value());
  CHECK_FALSE(*broken);
  CHECK(platform::matches_approved_hash("sha256:abc", doc()).error().code == platform::api_error::unknown_hash_scheme);
}



TEST_CASE("v2: the vectors hash as computed outside the project; documents without triggers keep their v1 hashes") {
  std::ifstream in(std::string(PLATFORM_TEST_DATA) + "/hash/approval-v2.json", std::ios::binary);
  REQUIRE(in);
  auto vectors = nlohmann::json::parse(in);
  REQUIRE(vectors["documents"].size() >= 5);
  for (const auto& v : vectors["documents"]) {
    CAPTURE(v["name"].get<std::string>());
    const std::string input = v["input"].get<std::string>();
    CHECK(platform::scheme_for_agents(input) == hash_scheme::v2);
    auto r = platform::approval_hash_of(input);
    REQUIRE(r);
    CHECK(r->hash == v["hash"].get<std::string>());
    CHECK(r->normalized_payload_json == v["normalized"].get<std::string>());
    // Approving the normalized payload again gives the same hash (idempotent).
    CHECK(platform::approval_hash_of(r->normalized_payload_json)->hash == r->hash);
  }
  // Every v1 vector: still v1, byte for byte the hash it had (v2 never changes them).
  auto v1 = load_vectors();
  for (const auto& v : v1["documents"]) {
    const std::string input = v["input"].get<std::string>();
    auto old = approval_hash_v1(input);
    auto now = platform::approval_hash_of(input);
    if (!old) continue;
    CHECK(platform::scheme_for_agents(input) == hash_scheme::v1);
    REQUIRE(now);
    CHECK(now->hash == old->hash);
  }
  // An empty triggers object is no trigger at all: the document stays v1.
  const std::string empty = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"s","triggers":{}}]})";
  CHECK(platform::scheme_for_agents(empty) == hash_scheme::v1);
}

TEST_CASE("v2: approvals made under v1 stay valid; adding or changing a trigger makes them stale") {
  const std::string plain = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"s"}]})";
  const std::string scheduled = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"s","triggers":{"schedule":{"cron":"0 8 * * *","timezone":"UTC","prompt":"Go."}}}]})";
  const std::string respaced = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"s","triggers":{"schedule":{"cron":" 0 8  * * * ","timezone":"UTC","prompt":"Go."}}}]})";
  const std::string later = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"s","triggers":{"schedule":{"cron":"0 9 * * *","timezone":"UTC","prompt":"Go."}}}]})";
  auto v1 = platform::approval_hash_of(plain).value();
  CHECK(v1.hash.rfind("v1:", 0) == 0);
  CHECK(platform::matches_approved_hash(v1.hash, plain).value());
  CHECK_FALSE(platform::matches_approved_hash(v1.hash, scheduled).value());
  auto v2 = platform::approval_hash_of(scheduled).value();
  CHECK(v2.hash.rfind("v2:", 0) == 0);
  CHECK(platform::matches_approved_hash(v2.hash, respaced).value());
  CHECK_FALSE(platform::matches_approved_hash(v2.hash, later).value());
  CHECK_FALSE(platform::matches_approved_hash(v2.hash, plain).value());  // the trigger was removed
}

}  // namespace approval_hash_test
