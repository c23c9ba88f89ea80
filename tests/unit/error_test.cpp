#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "platform/error.hpp"
#include "platform/json_path.hpp"

namespace error_test {

using platform::json_path;

TEST_CASE("json_path writes identifiers dotted and odd keys bracketed") {
  json_path root;
  CHECK(root.key("agents").index(1).key("tools").index(0).key("endpoint").key("url").str() ==
        "agents[1].tools[0].endpoint.url");
  CHECK(root.key("headers").key("X-Api-Key").str() == R"(headers["X-Api-Key"])");
  CHECK(root.key("a.b").str() == R"(["a.b"])");
  CHECK(root.key("").str() == R"([""])");
}

TEST_CASE("violations_to_json reports ok only when empty") {
  auto ok = nlohmann::json::parse(platform::violations_to_json({}));
  CHECK(ok["ok"] == true);
  CHECK(ok["violations"].empty());
  auto bad = nlohmann::json::parse(
      platform::violations_to_json({{"agents[0].id", "missing_field", "add an id"}}));
  CHECK(bad["ok"] == false);
  REQUIRE(bad["violations"].size() == 1);
  CHECK(bad["violations"][0]["path"] == "agents[0].id");
  CHECK(bad["violations"][0]["code"] == "missing_field");
}

}  // namespace error_test
