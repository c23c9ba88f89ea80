#pragma once
// What every SQL-backed store shares: reading the text form of columns, binding values,
// transactions, and one-statement helpers over a pooled backend. The core store
// (sql_store.cpp) and its companions (app data, governance, ...) are written with these.
#include <charconv>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/page.hpp"
#include "sql.hpp"

namespace platform::sql {

inline std::int64_t to_int(const std::optional<std::string>& s) {
  std::int64_t n = 0;
  if (s) std::from_chars(s->data(), s->data() + s->size(), n);
  return n;
}

inline double to_double(const std::optional<std::string>& s) { return s ? std::strtod(s->c_str(), nullptr) : 0.0; }

inline std::string to_text(const std::optional<std::string>& s) { return s.value_or(std::string()); }

inline value v(std::string_view s) { return value::of(s); }
inline value v(std::int64_t i) { return value::of(i); }

// The tail of a newest-first page query over a table with created_at and id: the keyset
// condition after the previous page's last row (appended to a WHERE clause with AND), the
// order and the limit; `p` gets the values.
inline std::string page_tail(const list_page& page, params& p) {
  std::string tail;
  if (page.after) {
    tail += " AND (created_at < ? OR (created_at = ? AND id < ?))";
    p.push_back(v(page.after->created_at));
    p.push_back(v(page.after->created_at));
    p.push_back(v(page.after->id));
  }
  tail += " ORDER BY created_at DESC, id DESC LIMIT ?";
  p.push_back(v(static_cast<std::int64_t>(page.limit)));
  return tail;
}

// BEGIN/COMMIT around `fn`; ROLLBACK when it fails. SQLite takes the write lock up front so
// two writers never deadlock upgrading a read lock.
inline result<void> transaction(connection& c, const std::function<result<void>(connection&)>& fn) {
  auto begin = c.exec(c.kind() == dialect::sqlite ? "BEGIN IMMEDIATE" : "BEGIN", {});
  if (!begin) return tl::unexpected(begin.error());
  auto r = fn(c);
  if (!r) {
    (void)c.exec("ROLLBACK", {});
    return r;
  }
  auto commit = c.exec("COMMIT", {});
  if (!commit) return tl::unexpected(commit.error());
  return {};
}

// One-statement calls on a shared pool.
class executor {
 public:
  explicit executor(std::shared_ptr<backend> db) : db_(std::move(db)) {}

  result<void> in_transaction(const std::function<result<void>(connection&)>& fn) {
    return db_->with_connection([&](connection& c) { return transaction(c, fn); });
  }

  result<std::vector<row>> query(std::string_view text, const params& p = {}) {
    std::vector<row> out;
    auto r = db_->with_connection([&](connection& c) -> result<void> {
      auto rows = c.exec(text, p);
      if (!rows) return tl::unexpected(rows.error());
      out = std::move(rows->data);
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  // Rows changed by an INSERT/UPDATE/DELETE.
  result<std::int64_t> exec_changes(std::string_view text, const params& p = {}) {
    std::int64_t changes = 0;
    auto r = db_->with_connection([&](connection& c) -> result<void> {
      auto rows = c.exec(text, p);
      if (!rows) return tl::unexpected(rows.error());
      changes = rows->changes;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return changes;
  }

  result<void> write(std::string_view text, const params& p = {}) {
    auto r = exec_changes(text, p);
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  [[nodiscard]] const std::shared_ptr<backend>& db() const { return db_; }

 private:
  std::shared_ptr<backend> db_;
};

}  // namespace platform::sql
