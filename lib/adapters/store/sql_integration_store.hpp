#pragma once
// The integration store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/integration_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<integration_store> make_integration_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
