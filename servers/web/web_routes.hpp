#pragma once
// platform-web's route table (web_routes.cpp): every route of docs/http-api.md.
#include <httplib.h>

#include "../common/route_table.hpp"

namespace platform::web {

struct web_app;

// Registers the rows that take bodies with `server`; returns the GET dispatcher, for the
// pre-routing handler (servers/common/route_table.hpp). Every GET no row matches is the
// builder page's.
servers::route_dispatch register_routes(httplib::Server& server, web_app& app);

}  // namespace platform::web
