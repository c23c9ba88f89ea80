#pragma once
// Governed agents routes (spec "Browser-facing routes", docs/http-api.md):
//   GET   .../apps/{appId}/agents           draft (creators, collaborators, admins, owner) or published (viewers)
//   PATCH .../apps/{appId}/agents           the whole agents.json into the draft (admin, owner, app creator)
//   POST  .../apps/{appId}/agents/approval  {approvalHash}: approve the exact draft payload (admin, owner)
//   POST  .../apps/{appId}/publish          promote the approved payload with the draft snapshot (admin, owner)
#include <httplib.h>

#include "router.hpp"

namespace platform::web {

struct web_app;

void register_agents_routes(httplib::Server& server, router& r, web_app& app);

}  // namespace platform::web
