#pragma once
// DELETE /sessions/{appId}: the web deleted the app, and this worker lets go of all it holds of
// it (docs/http-api.md): its builder turns and app-agent runs stopped, its sessions, the
// capability of its latest turn, its warm runtime-b process, and its workspace directory.
#include <httplib.h>

#include "worker_app.hpp"
#include "worker_call.hpp"

namespace platform::worker {

void delete_app_state(worker_app& app, const worker_call& call, httplib::Response& res);

}  // namespace platform::worker
