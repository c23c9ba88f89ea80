#pragma once
// The app agent run store over the shared SQL backend (constructed by sql_store).
#include <memory>

#include "platform/app_agent_run_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<app_agent_run_store> make_app_agent_run_store(std::shared_ptr<backend> db);

}  // namespace platform::sql
