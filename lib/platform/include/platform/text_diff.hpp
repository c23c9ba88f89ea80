#pragma once
// A unified diff of two texts, line by line (issue 35's "diff between any two versions", the
// Code view's per-turn changes): hunks as `diff -u` prints them, without the ---/+++ header.
// The common start and end are set aside first, so a small change in a big file costs what
// changed; past `max_cells` of the middle's comparison table the diff is refused as too large
// rather than slow.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace platform {

struct text_diff {
  std::string hunks;            // "@@ -a,b +c,d @@\n" then " ", "-", "+" lines
  std::int64_t additions = 0;
  std::int64_t deletions = 0;
  bool too_large = false;       // hunks empty, counts unknown
};

text_diff unified_diff(std::string_view before, std::string_view after, std::size_t context = 3,
                       std::size_t max_cells = 4'000'000);

}  // namespace platform
