// Which versions retention prunes (issue 35): by count and by age, never the latest and never
// a released one.
#include <doctest/doctest.h>

#include "platform/version_retention.hpp"

using namespace platform;

TEST_CASE("retention keeps the latest and released versions") {
  std::vector<version_stamp> five{{1, 100}, {2, 200}, {3, 300}, {4, 400}, {5, 500}};
  CHECK(prunable_versions(five, {}, {}, 1000).empty());
  CHECK(prunable_versions(five, {}, {2, std::nullopt}, 1000) == std::vector<std::int64_t>{1, 2, 3});
  CHECK(prunable_versions(five, {2}, {2, std::nullopt}, 1000) == std::vector<std::int64_t>{1, 3});
  CHECK(prunable_versions(five, {}, {std::nullopt, 650}, 1000) == std::vector<std::int64_t>{1, 2, 3});
  // Everything too old but the latest: the latest always stays.
  CHECK(prunable_versions(five, {}, {std::nullopt, 1}, 10000) == std::vector<std::int64_t>{1, 2, 3, 4});
  CHECK(prunable_versions({{7, 0}}, {}, {std::nullopt, 1}, 10000).empty());
  CHECK(prunable_versions({}, {}, {1, 1}, 10000).empty());
}
