#pragma once
// Integrations (docs/app-runtime.md "Integrations", docs/http-api.md): settings (admins and
// owners; the app's creator reads its app's), the OAuth connect flow (any member, own
// account), and the builder's internal routes. The rows are in web_routes.cpp. No reply ever
// carries a secret value, client secret or token.
#include "route_call.hpp"

namespace platform::web::integration_routes {

// What the app's integrations need and which are configured or connected (metadata only).
void list_integrations(web_app& app, const route_call& call, httplib::Response& res);
// {domain, keySlug?, name, value}: a write-only secret of the app's grant.
void put_secret(web_app& app, const route_call& call, httplib::Response& res);
// ?domain=&keySlug=&name=
void delete_secret(web_app& app, const route_call& call, httplib::Response& res);
void list_providers(web_app& app, const route_call& call, httplib::Response& res);
// {clientId, clientSecret, authorizationUrl, tokenUrl}: a workspace's OAuth provider.
void put_provider(web_app& app, const route_call& call, httplib::Response& res);
void delete_provider(web_app& app, const route_call& call, httplib::Response& res);
// Redirects to the provider (PKCE, a state of ten minutes); a browser that is refused goes
// back to the page. Signs in and loads the app itself: that refusal is a redirect too.
void connect_start_route(web_app& app, const route_call& call, httplib::Response& res);
// The provider's redirect back: exchanges the code for the user who started the attempt.
void connect_callback_route(web_app& app, const route_call& call, httplib::Response& res);
// Revokes the caller's own connected account.
void disconnect(web_app& app, const route_call& call, httplib::Response& res);
// POST /api/internal/integration-requirements: the builder's integration-setup.json.
void sync_requirements(web_app& app, const route_call& call, httplib::Response& res);
// POST /api/internal/workspace-integrations: what the builder may see of them.
void workspace_integrations(web_app& app, const route_call& call, httplib::Response& res);

// Ends the OAuth connect attempt this browser started (its cookie), e.g. when it signs out.
void forget_oauth_attempt(httplib::Response& res);

}  // namespace platform::web::integration_routes
