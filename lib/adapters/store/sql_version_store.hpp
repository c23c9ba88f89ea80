#pragma once
// The version store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/version_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<version_store> make_version_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
