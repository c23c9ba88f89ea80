#pragma once
// The tool audit store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/audit_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<audit_store> make_audit_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
