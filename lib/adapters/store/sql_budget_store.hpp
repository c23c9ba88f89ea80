#pragma once
// The budget store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/budget_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<budget_store> make_budget_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
