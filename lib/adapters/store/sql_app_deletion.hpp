#pragma once
// Deleting an app (store::delete_app): the one place that knows every table holding an app's
// rows, across the core store and its companions, so the deletion is one transaction on one
// connection. A table added with an app_id column belongs here too; the store suite's
// catalog check (tests/store/delete_app_test.cpp) fails until it is.
#include <string_view>

#include "platform/store.hpp"
#include "sql.hpp"

namespace platform::sql {

// Runs inside the caller's transaction. Refusals (a live run) change nothing.
result<app_deletion> delete_app_rows(connection& c, std::string_view workspace_id, std::string_view app_id);

}  // namespace platform::sql
