// SQLite connection: WAL, a busy timeout so concurrent writers wait instead of failing, and
// foreign keys on. One connection serves one thread at a time (the pool guarantees it).
#include <sqlite3.h>

#include "sql.hpp"
#include "platform/api_error.hpp"

namespace platform::sql {
namespace {

class sqlite_connection final : public connection {
 public:
  explicit sqlite_connection(sqlite3* db) : db_(db) {}
  ~sqlite_connection() override { sqlite3_close_v2(db_); }
  sqlite_connection(const sqlite_connection&) = delete;
  sqlite_connection& operator=(const sqlite_connection&) = delete;

  result<rows> exec(std::string_view statement, const params& p) override {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, statement.data(), static_cast<int>(statement.size()), &st, nullptr) != SQLITE_OK) {
      return failure();
    }
    auto finalize = [&] { sqlite3_finalize(st); };
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (bind(st, static_cast<int>(i) + 1, p[i]) != SQLITE_OK) {
        finalize();
        return failure();
      }
    }
    rows out;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int n = sqlite3_column_count(st);
      row r;
      r.reserve(static_cast<std::size_t>(n));
      for (int c = 0; c < n; ++c) {
        if (sqlite3_column_type(st, c) == SQLITE_NULL) {
          r.emplace_back(std::nullopt);
        } else {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
          r.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(st, c))));
        }
      }
      out.data.push_back(std::move(r));
    }
    if (rc != SQLITE_DONE) {
      auto err = failure();
      finalize();
      return err;
    }
    out.changes = sqlite3_changes64(db_);
    finalize();
    return out;
  }

  [[nodiscard]] dialect kind() const override { return dialect::sqlite; }

 private:
  static int bind(sqlite3_stmt* st, int index, const value& v) {
    switch (v.k) {
      case value::kind::null: return sqlite3_bind_null(st, index);
      case value::kind::integer: return sqlite3_bind_int64(st, index, v.i);
      case value::kind::real: return sqlite3_bind_double(st, index, v.d);
      case value::kind::text:
        return sqlite3_bind_text64(st, index, v.s.data(), v.s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    return SQLITE_MISUSE;
  }

  tl::unexpected<error> failure() const {
    int ext = sqlite3_extended_errcode(db_);
    std::string msg = std::string("sqlite: ") + sqlite3_errmsg(db_);
    if (ext == SQLITE_CONSTRAINT_PRIMARYKEY || ext == SQLITE_CONSTRAINT_UNIQUE) return fail(api_error::store_conflict, msg);
    int primary = ext & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_IOERR ||
        primary == SQLITE_CANTOPEN || primary == SQLITE_FULL || primary == SQLITE_NOMEM) {
      return fail(api_error::store_unavailable, msg);
    }
    return fail(api_error::store_invalid, msg);
  }

  sqlite3* db_;
};

}  // namespace

result<std::unique_ptr<connection>> connect_sqlite(const std::string& path) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return fail(api_error::store_unavailable, "cannot open the SQLite database " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db, 10000);
  auto conn = std::make_unique<sqlite_connection>(db);
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"}) {
    auto r = conn->exec(pragma, {});
    if (!r) return tl::unexpected(r.error());
  }
  return std::unique_ptr<connection>(std::move(conn));
}

}  // namespace platform::sql
