#pragma once
// Every browser-facing route of platform-web (docs/http-api.md).
#include <httplib.h>

#include "auth.hpp"
#include "chat_service.hpp"
#include "platform/cache_store.hpp"
#include "platform/store.hpp"
#include "router.hpp"
#include "runtime_catalog.hpp"
#include "viewer_hub.hpp"
#include "web_config.hpp"
#include "worker_pool.hpp"

namespace platform::web {

struct web_app {
  const config& cfg;
  store& db;
  cache_store& cache;
  const worker_pool& workers;
  runtime_catalog& runtimes;  // the registry as the worker sees it
  authenticator& auth;
  chat_service& chat;
  std::string preview_key;  // signs preview tokens (derived from the secrets key: every replica agrees)
  viewer_hub* viewers = nullptr;  // chat viewers on an event loop (unset: a thread each)
};

// Whether the cookies the page is given must be Secure: the page is served over https (a proxy
// says so, or a public origin is https).
bool secure_cookies(const web_app& app, const httplib::Request& req);

// GET routes go to `r` (which the server runs as its pre-routing handler), the others to
// httplib's own routing.
void register_routes(httplib::Server& server, router& r, web_app& app);

}  // namespace platform::web
