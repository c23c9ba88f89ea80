#pragma once
// The paging of lists numbered per app (versions, releases): `limit` from 1 to 200, `cursor`
// the number the next page starts below, as the previous page's `nextCursor` said.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include <httplib.h>

#include "http.hpp"
#include "platform/version_store.hpp"

namespace platform::web {

inline constexpr std::int64_t max_numbered_page = 200;

// A positive decimal number, or nullopt.
inline std::optional<std::int64_t> positive_number(std::string_view text) {
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || n < 1) return std::nullopt;
  return n;
}

// The request's page, asking one more than the limit (which says whether another page
// follows); nullopt when a 400 was written.
inline std::optional<version_page> numbered_page_of(const httplib::Request& req, httplib::Response& res) {
  version_page page;
  if (auto limit = req.get_param_value("limit"); !limit.empty()) {
    auto n = positive_number(limit);
    if (!n || *n > max_numbered_page) return send(res, api_error::invalid_limit, "limit must be an integer from 1 to 200"), std::nullopt;
    page.limit = *n;
  }
  if (auto cursor = req.get_param_value("cursor"); !cursor.empty()) {
    page.before = positive_number(cursor);
    if (!page.before) return send(res, api_error::invalid_cursor, "cursor must be the nextCursor of the previous page"), std::nullopt;
  }
  page.limit += 1;
  return page;
}

// {"items": [...], "nextCursor": ...} of rows fetched with numbered_page_of's page.
template <typename Row, typename ToJson>
nlohmann::json numbered_page_json(const std::vector<Row>& rows, const version_page& asked, ToJson&& to_json) {
  const std::size_t limit = static_cast<std::size_t>(asked.limit - 1);
  nlohmann::json items = nlohmann::json::array();
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) items.push_back(to_json(rows[i]));
  nlohmann::json next = rows.size() > limit ? nlohmann::json(std::to_string(rows[limit - 1].number)) : nlohmann::json(nullptr);
  return {{"items", std::move(items)}, {"nextCursor", std::move(next)}};
}

}  // namespace platform::web
