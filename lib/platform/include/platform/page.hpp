#pragma once
// Lists of the browser routes (apps of a workspace, builder and app-agent runs of an app) come
// newest first, a page at a time. A page ends at a row; the next page starts strictly after it
// in (createdAt desc, id desc) order, so rows created meanwhile never shift or repeat a page.
// The cursor travels in URLs as "<createdAt>.<id>".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

struct list_cursor {
  std::int64_t created_at = 0;
  std::string id;
};

struct list_page {
  static constexpr std::size_t default_limit = 50;
  static constexpr std::size_t max_limit = 200;
  std::size_t limit = default_limit;
  std::optional<list_cursor> after;  // the last row of the previous page
};

std::string to_string(const list_cursor& c);

// From a route's `limit` and `cursor` query values (either may be empty). Errors:
// `invalid_cursor` (not "<createdAt>.<id>" with a valid id), `invalid_limit` (not 1..200).
result<list_page> parse_list_page(std::string_view limit, std::string_view cursor);

}  // namespace platform
