#pragma once
// App data routes (spec "App data document", the data route row; docs/app-runtime.md "App
// data"): collections and documents per app in a draft and a published scope, their live
// change events, and the internal route behind the app agents' data tools.
#include <httplib.h>

#include <string>
#include <string_view>

#include "platform/app_data_store.hpp"
#include "router.hpp"

namespace platform::web {

struct web_app;

// The pub/sub channel of one app's data in one scope: each viewer subscribes to exactly its
// app and scope, so another app's events never reach it (not even to be filtered out).
std::string app_data_channel(std::string_view workspace_id, std::string_view app_id, data_scope scope);

void register_app_data_routes(httplib::Server& s, router& r, web_app& app);

}  // namespace platform::web
