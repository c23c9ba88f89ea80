#pragma once
// The routine store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/routine_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<routine_store> make_routine_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
