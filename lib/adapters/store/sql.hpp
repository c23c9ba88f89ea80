#pragma once
// The small SQL surface the store needs from a database client. Statements use `?`
// placeholders and the common dialect of SQLite >= 3.35 and PostgreSQL >= 12 (ON CONFLICT,
// RETURNING); the PostgreSQL connection numbers the placeholders itself.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform::sql {

struct value {
  enum class kind : unsigned char { null, integer, real, text } k = kind::null;
  std::int64_t i = 0;
  double d = 0;
  std::string s;

  static value null() { return {}; }
  static value of(std::int64_t v) { return {kind::integer, v, 0, {}}; }
  static value of(double v) { return {kind::real, 0, v, {}}; }
  static value of(std::string_view v) { return {kind::text, 0, 0, std::string(v)}; }
  static value of(const char* v) { return of(std::string_view(v)); }
  static value of(const std::string& v) { return of(std::string_view(v)); }
  static value of(const std::optional<std::string>& v) { return v ? of(*v) : null(); }
};

using params = std::vector<value>;
using row = std::vector<std::optional<std::string>>;  // text form of each column; nullopt = NULL

struct rows {
  std::vector<row> data;
  std::int64_t changes = 0;  // rows changed by INSERT/UPDATE/DELETE
};

enum class dialect : unsigned char { sqlite, postgres };

class connection {
 public:
  virtual ~connection() = default;
  // Errors: store_conflict (unique or primary key violation), store_unavailable (the
  // connection failed), store_invalid (anything else the database refused).
  virtual result<rows> exec(std::string_view statement, const params& p = {}) = 0;
  [[nodiscard]] virtual dialect kind() const = 0;
};

// Lends one connection at a time to `fn`. A backend may retry `fn` once on a fresh
// connection when the first failed with store_unavailable, so `fn` must be a transaction.
class backend {
 public:
  virtual ~backend() = default;
  virtual result<void> with_connection(const std::function<result<void>(connection&)>& fn) = 0;
};

std::unique_ptr<backend> make_pool(std::vector<std::unique_ptr<connection>> connections,
                                   std::function<result<std::unique_ptr<connection>>()> reconnect);

result<std::unique_ptr<connection>> connect_sqlite(const std::string& path);
result<std::unique_ptr<connection>> connect_postgres(const std::string& url);

}  // namespace platform::sql
