#pragma once
// platform-web's route table (web_routes.cpp): every route of docs/http-api.md.
#include <httplib.h>

#include "router.hpp"

namespace platform::web {

struct web_app;

// GET rows go to `r` (which the server runs as its pre-routing handler, before a body is
// read), the others to httplib's own routing; every GET no row matches is the builder page's.
void register_routes(httplib::Server& server, router& r, web_app& app);

}  // namespace platform::web
