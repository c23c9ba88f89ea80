#pragma once
// The preview store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/preview_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<preview_store> make_preview_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
