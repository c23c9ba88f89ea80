#pragma once
// The SQL app data store, built by sql_store on the core store's shared pool.
#include <memory>

#include "platform/app_data_store.hpp"
#include "sql.hpp"

namespace platform::sql {

std::unique_ptr<app_data_store> make_app_data_store(std::shared_ptr<sql::backend> db);

}  // namespace platform::sql
