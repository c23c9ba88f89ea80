#pragma once
// The document store over SQL: SQLite (embedded default, one file in the data dir, WAL) and
// PostgreSQL (PLATFORM_DATABASE_URL, shared by several web replicas). Both run the same
// schema migrations and the same statements; only the connection layer differs.
#include <cstddef>
#include <memory>
#include <string>

#include "platform/error.hpp"
#include "platform/store.hpp"

namespace platform {

// `path` is a file (created with its schema when missing) or ":memory:" (tests).
result<std::unique_ptr<store>> open_sqlite_store(const std::string& path);

// `url` is a libpq connection URI or keyword string (postgres://user@host:port/db). Up to
// `pool_size` connections; lost connections are re-established on the next use.
result<std::unique_ptr<store>> open_postgres_store(const std::string& url, std::size_t pool_size = 8);

// PostgreSQL when `database_url` is set, else SQLite at <data_dir>/platform.db.
result<std::unique_ptr<store>> open_store(const std::string& database_url, const std::string& data_dir);

}  // namespace platform
