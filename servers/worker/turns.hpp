#pragma once
// Builder turns (spec "Worker endpoints"): POST /sessions/{appId}/messages streams a turn's
// worker messages; GET /sessions/{appId}/session-state gives the session it left.
#include <httplib.h>

#include "worker_app.hpp"
#include "worker_call.hpp"

namespace platform::worker {

void post_messages(worker_app& app, const worker_call& call, httplib::Response& res);
void get_provider_session_state(worker_app& app, const worker_call& call, httplib::Response& res);
// POST /sessions/{appId}/turns/{runId}/stop: ends the turn's runtime now (its process group
// killed) and answers once its output has ended: {runId, stopped} (false: it had ended already).
void stop_turn(worker_app& app, const worker_call& call, httplib::Response& res);

}  // namespace platform::worker
