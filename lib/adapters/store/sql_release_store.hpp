#pragma once
// The release store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/release_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<release_store> make_release_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
