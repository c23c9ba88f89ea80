#pragma once
// Integrations (docs/app-runtime.md "Integrations", docs/http-api.md):
// settings — GET  /api/workspaces/{ws}/apps/{app}/integrations                 (admin, owner, app creator)
//            PUT  /api/workspaces/{ws}/apps/{app}/integrations/secrets         (admin, owner; value write-only)
//            DELETE /api/workspaces/{ws}/apps/{app}/integrations/secrets?domain=&keySlug=&name=
//            GET|PUT|DELETE /api/workspaces/{ws}/integrations/oauth-providers[/{providerKey}] (admin, owner)
// OAuth    — GET  /api/workspaces/{ws}/apps/{app}/integrations/oauth/{providerKey}/connect (any member, own account)
//            GET  /api/integrations/oauth/callback
//            DELETE /api/workspaces/{ws}/apps/{app}/integrations/oauth/{providerKey}
// internal — POST /api/internal/integration-requirements, /api/internal/workspace-integrations
// No reply ever carries a secret value, client secret or token.
#include <httplib.h>

#include "router.hpp"

namespace platform::web {

struct web_app;

void register_integration_routes(httplib::Server& s, router& r, web_app& app);

// Ends the OAuth connect attempt this browser started (its cookie), e.g. when it signs out.
void forget_oauth_attempt(httplib::Response& res);

}  // namespace platform::web
