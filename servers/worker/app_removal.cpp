#include "app_removal.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "app_workspace.hpp"
#include "runtime_b.hpp"
#include "worker_http.hpp"

namespace platform::worker {

void delete_app_state(worker_app& app, const worker_call& call, httplib::Response& res) {
  const std::string app_id = call.id(1);
  if (app_id.find("__agent__") != std::string::npos) {
    return send(res, api_error::not_found, "a deleted app is named by its id, not by one of its agent runs");
  }
  // First, so that no request still under way recreates what goes below.
  app.deleted.add(app_id);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int turns = 0, runs = 0;
  for (const auto& stop : app.running.of_app(app_id)) turns += stop->stop(deadline) == turn_stop::outcome::stopped ? 1 : 0;
  for (const auto& run : app.agent_runs.take_app(app_id)) {
    if (!run->request_stop()) continue;
    run->wait_released(deadline);
    ++runs;
  }
  app.sessions.forget_app(app_id);
  app.capabilities.forget(app_id);
  end_warm_runtime_b(app_id);

  namespace fs = std::filesystem;
  const std::string dir = app_workspace_dir(app.cfg, app_id);
  // Keeps out a build or package install that would start now; one that runs already ends
  // with its turn, stopped above.
  workspace_guard guard(dir);
  std::error_code ec;
  bool existed = fs::exists(fs::symlink_status(dir, ec));
  fs::remove_all(dir, ec);
  if (ec) {
    std::fprintf(stderr, "worker: app %s deleted, its workspace was not removed: %s\n", app_id.c_str(), ec.message().c_str());
    return send(res, api_error::store_failed, "the app's workspace could not be removed: " + ec.message());
  }
  std::fprintf(stderr, "worker: app %s deleted (workspace %s, %d turns and %d agent runs stopped)\n", app_id.c_str(),
               existed ? "removed" : "absent", turns, runs);
  res.set_content(nlohmann::json({{"appId", app_id}, {"workspaceRemoved", existed}, {"turnsStopped", turns},
                                  {"agentRunsStopped", runs}}).dump(),
                  "application/json");
}

}  // namespace platform::worker
