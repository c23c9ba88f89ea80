#pragma once
// The governance store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/governance_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<governance_store> make_governance_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
