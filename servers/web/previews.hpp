#pragma once
// The live preview on the web server (docs/http-api.md, "Live preview"): a successful
// done_building's build fetched from the worker and stored by digest (any replica serves it,
// after the worker's session is gone), the signed URL the builder page frames, and the app's
// own origin that serves it. The rules are the core's (platform/preview_access.hpp).
#include <string_view>

#include <httplib.h>
#include <nlohmann/json_fwd.hpp>

#include "platform/error.hpp"
#include "platform/governance_store.hpp"

namespace platform {
class store;
}  // namespace platform

namespace platform::web {

struct web_app;
class worker_client;

// Stores the worker's current build of the app and makes it the app's preview, made by the
// turn `made_by`. Answers the build's digest; nullopt when the worker has no build.
// `known_digest`: the build's digest as the worker's closing line said it (empty: not said).
result<std::optional<std::string>> sync_preview_from_worker(store& db, const worker_client& worker, std::string_view ws, std::string_view app_id,
                                      std::int64_t now, std::string_view capability, const preview_made_by& made_by = {},
                                      std::string_view known_digest = {});

// The request a turn answered, as the preview header names it: its first line, cut at 200
// bytes on a character boundary.
std::string preview_request_label(std::string_view prompt);

// {"digest", "url", "origin", "expiresAt", "updatedAt", "builtBy": {"runId", "request"} | null}
// of the app's build in `scope` (draft:
// the builder's preview; published: the published page), or null.
nlohmann::json preview_json(const web_app& app, const httplib::Request& req, std::string_view ws, std::string_view app_id,
                            source_scope scope);

// Every request to a preview origin is answered here and nowhere else (never the API): true
// when `req` was one.
bool serve_preview_host(const web_app& app, const httplib::Request& req, httplib::Response& res);

}  // namespace platform::web
