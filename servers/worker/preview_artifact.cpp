#include "preview_artifact.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "app_workspace.hpp"
#include "builder_checks.hpp"
#include "platform/base64.hpp"
#include "worker_http.hpp"

namespace platform::worker {
namespace {

namespace fs = std::filesystem;

// A generated app is a few hundred KiB; these only stop a runaway build from filling the web's
// database.
constexpr std::size_t max_files = 2000;
constexpr std::uintmax_t max_total_bytes = 32u << 20;

}  // namespace

void handle_preview_artifact(const config& cfg, const std::string& app_id, httplib::Response& res) {
  fs::path dist = fs::path(app_workspace_dir(cfg, app_id)) / "dist";
  auto before = check_build_output(dist);
  if (!before.ok()) return send(res, api_error::not_found, "the app has no loadable build: " + before.problems.front());
  if (before.files.size() > max_files || before.total_bytes > max_total_bytes) {
    return send(res, api_error::build_too_large, "the build has more than 2000 files or 32 MiB");
  }
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : before.files) {
    std::ifstream in(dist / f.path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    files.push_back({{"path", f.path}, {"base64", base64_encode(bytes.str())}});
  }
  // The files read must be the build the digest names: a build running meanwhile changes it.
  if (check_build_output(dist).digest != before.digest) {
    return send(res, api_error::build_changed, "the build changed while it was read; ask again");
  }
  res.set_content(nlohmann::json({{"digest", before.digest}, {"files", std::move(files)}}).dump(), "application/json");
}

}  // namespace platform::worker
