#pragma once
// The builder page (docs/http-api.md, "The builder page"): every GET no other route answers,
// outside /api, from the built UI directory (config::ui_dir):
//   GET /assets/{file}   content-hashed files, cached for a year
//   GET /{file}.{ext}    top-level files of the build (favicon.svg), revalidated
//   GET /{route...}      index.html (the page routes itself), or the "not built" page
#include "../common/route_table.hpp"

namespace platform::web {

struct web_app;

// Says once at start-up when the page is not built; returns the GET dispatcher of its files.
servers::route_dispatch ui_routes(web_app& app);
// index.html with the page's headers, for a route that is the page's but not the site's
// (/onboarding/provider); the page that says how to build it when it is not built.
void send_ui_page(const web_app& app, httplib::Response& res);

}  // namespace platform::web
