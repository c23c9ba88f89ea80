#include "platform/page.hpp"

#include <charconv>

#include "platform/api_error.hpp"
#include "platform/ids.hpp"

namespace platform {

std::string to_string(const list_cursor& c) { return std::to_string(c.created_at) + "." + c.id; }

result<list_page> parse_list_page(std::string_view limit, std::string_view cursor) {
  list_page p;
  if (!limit.empty()) {
    std::size_t n = 0;
    auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), n);
    if (ec != std::errc() || end != limit.data() + limit.size() || n < 1 || n > list_page::max_limit) {
      return fail(api_error::invalid_limit, "limit must be a number from 1 to " + std::to_string(list_page::max_limit));
    }
    p.limit = n;
  }
  if (!cursor.empty()) {
    auto dot = cursor.find('.');
    list_cursor c;
    auto [end, ec] = std::from_chars(cursor.data(), cursor.data() + std::min(dot, cursor.size()), c.created_at);
    if (dot == std::string_view::npos || ec != std::errc() || end != cursor.data() + dot || c.created_at < 0 ||
        !is_valid_id(cursor.substr(dot + 1))) {
      return fail(api_error::invalid_cursor, "cursor must be the nextCursor of a previous page");
    }
    c.id = std::string(cursor.substr(dot + 1));
    p.after = std::move(c);
  }
  return p;
}

}  // namespace platform
