// PostgreSQL connection over libpq. Statements arrive with `?` placeholders and are sent with
// `$n` ones and typed parameters (int8, float8, text), so PostgreSQL never has to guess a
// parameter's type from its context.
#include <libpq-fe.h>

#include <cstring>

#include "sql.hpp"
#include "platform/api_error.hpp"

namespace platform::sql {
namespace {

constexpr Oid int8_oid = 20;
constexpr Oid float8_oid = 701;
constexpr Oid text_oid = 25;

// `?` → `$1`, `$2`, ... outside quoted literals.
std::string number_placeholders(std::string_view statement) {
  std::string out;
  out.reserve(statement.size() + 16);
  int n = 0;
  bool quoted = false;
  for (char c : statement) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out.push_back('$');
      out.append(std::to_string(++n));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

class postgres_connection final : public connection {
 public:
  explicit postgres_connection(PGconn* c) : conn_(c) {}
  ~postgres_connection() override { PQfinish(conn_); }
  postgres_connection(const postgres_connection&) = delete;
  postgres_connection& operator=(const postgres_connection&) = delete;

  result<rows> exec(std::string_view statement, const params& p) override {
    std::string sql = number_placeholders(statement);
    std::vector<Oid> types(p.size());
    std::vector<std::string> texts(p.size());
    std::vector<const char*> values(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      switch (p[i].k) {
        case value::kind::null: types[i] = text_oid; values[i] = nullptr; continue;
        case value::kind::integer: types[i] = int8_oid; texts[i] = std::to_string(p[i].i); break;
        case value::kind::real: types[i] = float8_oid; texts[i] = format_double(p[i].d); break;
        case value::kind::text: types[i] = text_oid; texts[i] = p[i].s; break;
      }
      values[i] = texts[i].c_str();
    }
    PGresult* res = PQexecParams(conn_, sql.c_str(), static_cast<int>(p.size()), types.data(), values.data(),
                                 nullptr, nullptr, 0);
    auto st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      auto err = failure(res);
      PQclear(res);
      return err;
    }
    rows out;
    int nrows = PQntuples(res), ncols = PQnfields(res);
    out.data.reserve(static_cast<std::size_t>(nrows));
    for (int r = 0; r < nrows; ++r) {
      row line;
      line.reserve(static_cast<std::size_t>(ncols));
      for (int c = 0; c < ncols; ++c) {
        if (PQgetisnull(res, r, c)) {
          line.emplace_back(std::nullopt);
        } else {
          line.emplace_back(std::string(PQgetvalue(res, r, c), static_cast<std::size_t>(PQgetlength(res, r, c))));
        }
      }
      out.data.push_back(std::move(line));
    }
    const char* changed = PQcmdTuples(res);
    out.changes = (changed && *changed) ? std::strtoll(changed, nullptr, 10) : 0;
    PQclear(res);
    return out;
  }

  [[nodiscard]] dialect kind() const override { return dialect::postgres; }

 private:
  static std::string format_double(double d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
  }

  tl::unexpected<error> failure(const PGresult* res) const {
    if (PQstatus(conn_) != CONNECTION_OK) {
      return fail(api_error::store_unavailable, std::string("postgres: connection lost: ") + PQerrorMessage(conn_));
    }
    const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    std::string msg = std::string("postgres: ") + (res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (state && std::strcmp(state, "23505") == 0) return fail(api_error::store_conflict, msg);
    // Serialization failures and deadlocks are transient: the caller may retry the transaction.
    if (state && (std::strcmp(state, "40001") == 0 || std::strcmp(state, "40P01") == 0)) {
      return fail(api_error::store_unavailable, msg);
    }
    return fail(api_error::store_invalid, msg);
  }

  PGconn* conn_;
};

}  // namespace

result<std::unique_ptr<connection>> connect_postgres(const std::string& url) {
  PGconn* c = PQconnectdb(url.c_str());
  if (c == nullptr || PQstatus(c) != CONNECTION_OK) {
    // libpq's message names host and port, never the password.
    std::string msg = c ? PQerrorMessage(c) : "out of memory";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    PQfinish(c);
    return fail(api_error::store_unavailable, "cannot connect to PostgreSQL: " + msg);
  }
  auto conn = std::make_unique<postgres_connection>(c);
  // Notices (e.g. "relation already exists, skipping") would go to stderr otherwise.
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<connection>(std::move(conn));
}

}  // namespace platform::sql
