#include "opencode_models.hpp"

#include <httplib.h>

#include "opencode_cli.hpp"
#include "worker_http.hpp"
#include "worker_registry.hpp"
#include "platform/api_error.hpp"

namespace platform::worker {

namespace {

constexpr auto models_timeout = std::chrono::seconds(60);

}  // namespace

result<opencode_discovery> discover_opencode_models(const config& cfg) {
  opencode_support support = opencode_check(cfg);
  if (!support.usable) return fail(api_error::runtime_not_available, support.reason);
  auto base = base_opencode_config(cfg);
  if (!base) return tl::unexpected(base.error());
  auto tree = opencode_tree::create(support.version);
  if (!tree) return tl::unexpected(tree.error());
  auto written = (*tree)->write_config(*base);
  if (!written) return tl::unexpected(written.error());
  auto r = run_opencode(cfg, **tree, {"models", "--verbose"}, models_timeout);
  // Only the exit code: stderr may quote the operator's config.
  if (!r) return fail(api_error::opencode_models_failed, "`opencode models --verbose` could not start");
  if (r->timed_out) return fail(api_error::opencode_models_failed, "`opencode models --verbose` did not finish in time");
  if (r->exit_code != 0) {
    return fail(api_error::opencode_models_failed, "`opencode models --verbose` exited with code " + std::to_string(r->exit_code));
  }
  auto catalog = parse_opencode_models(r->out);
  if (!catalog) return fail(api_error::opencode_models_failed, "`opencode models --verbose` printed no models");
  opencode_discovery d{std::move(*catalog), std::nullopt};
  if (auto it = base->find("model"); it != base->end() && it->is_string()) {
    for (const auto& m : d.catalog.models) {
      if (m.id == it->get<std::string>()) d.default_model = m.id;
    }
  }
  return d;
}

void handle_opencode_models(worker_registry& registry, httplib::Response& res) {
  auto d = registry.opencode_models();
  if (!d) return send(res, d.error());
  res.set_content(opencode_catalog_to_json(d->catalog, d->default_model), "application/json");
}

}  // namespace platform::worker
