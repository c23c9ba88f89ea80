#pragma once
// Builder turns (spec "Worker endpoints"): POST /sessions/{appId}/messages streams a turn's
// worker messages; GET /sessions/{appId}/session-state gives the session it left.
#include <httplib.h>

#include "worker_app.hpp"

namespace platform::worker {

void post_messages(worker_app& app, const httplib::Request& req, httplib::Response& res);
void get_provider_session_state(worker_app& app, const httplib::Request& req, httplib::Response& res);

}  // namespace platform::worker
