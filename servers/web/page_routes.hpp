#pragma once
// Paged lists of the browser routes (platform/page.hpp): `?limit=N&cursor=C` in, and
// {"<items>": [...], "nextCursor": C | null} out, a cursor only after a full page.
#include <httplib.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "http.hpp"
#include "platform/compact_json.hpp"
#include "platform/page.hpp"

namespace platform::web {

// A page request from `limit` and `cursor`; a 400 already written when they are bad.
inline std::optional<list_page> page_of(const httplib::Request& req, httplib::Response& res) {
  auto p = parse_list_page(req.get_param_value("limit"), req.get_param_value("cursor"));
  if (!p) {
    send(res, p.error());
    return std::nullopt;
  }
  return *p;
}

// A stream's `?cursor=N` (0 when absent); a 400 already written when it is not a
// non-negative integer.
inline std::optional<std::uint64_t> stream_cursor_of(const httplib::Request& req, httplib::Response& res) {
  std::uint64_t cursor = 0;
  if (!req.has_param("cursor")) return cursor;
  std::string c = req.get_param_value("cursor");
  auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), cursor);
  if (ec != std::errc() || p != c.data() + c.size()) {
    send(res, api_error::invalid_cursor, "cursor must be a non-negative integer");
    return std::nullopt;
  }
  return cursor;
}

// {"<key>": [...], "nextCursor": "<createdAt>.<id>" | null}: a cursor only after a full page.
template <class Row, class ToJson, class CursorOf>
std::string page_json(std::string_view key, const std::vector<Row>& rows, const list_page& page, ToJson to_json,
                      CursorOf cursor_of) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& r : rows) items.push_back(to_json(r));
  nlohmann::json next = rows.size() == page.limit && !rows.empty() ? nlohmann::json(to_string(cursor_of(rows.back()))) : nlohmann::json(nullptr);
  return compact_json(nlohmann::json({{std::string(key), std::move(items)}, {"nextCursor", std::move(next)}}));
}

}  // namespace platform::web
