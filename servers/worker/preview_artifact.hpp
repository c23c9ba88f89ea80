#pragma once
// GET /sessions/{appId}/preview-artifact: the app workspace's current build (dist/) for the
// web server to store as the live preview. The worker keeps nothing: its sessions expire, and
// the preview must outlive them and be served by every web replica.
#include <string>

#include "worker_config.hpp"

namespace httplib {
struct Response;
}  // namespace httplib

namespace platform::worker {

// {"digest": "sha256:<hex>", "files": [{"path", "base64"}]}, the same digest done_building
// reported. 404 `no_build` without a loadable build; 413 `build_too_large` past the bounds;
// 409 `build_changed` when a build rewrote dist/ while it was read (ask again).
void handle_preview_artifact(const config& cfg, const std::string& app_id, httplib::Response& res);

}  // namespace platform::worker
