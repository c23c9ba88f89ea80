#pragma once
// App data routes (spec "App data document", the data route row; docs/app-runtime.md "App
// data"): collections and documents per app in a draft and a published scope, their live
// change events, and the internal route behind the app agents' data tools. The rows are in
// web_routes.cpp.
#include <string>
#include <string_view>

#include "platform/app_data_store.hpp"
#include "route_call.hpp"

namespace platform::web::app_data_routes {

// The pub/sub channel of one app's data in one scope: each viewer subscribes to exactly its
// app and scope, so another app's events never reach it (not even to be filtered out).
std::string app_data_channel(std::string_view workspace_id, std::string_view app_id, data_scope scope);

// {scope, op, collection, ...}: one write; the draft scope needs editable access.
void post_data(web_app& app, const route_call& call, httplib::Response& res);
void list_data(web_app& app, const route_call& call, httplib::Response& res);
void get_document(web_app& app, const route_call& call, httplib::Response& res);
// SSE of one scope's changes.
void data_events(web_app& app, const route_call& call, httplib::Response& res);
// POST /api/internal/app-data: an app agent's data tool call (the worker).
void internal_app_data(web_app& app, const route_call& call, httplib::Response& res);

// Reads the data limits' settings now, so a bad one is reported at start-up.
void check_settings();

}  // namespace platform::web::app_data_routes
