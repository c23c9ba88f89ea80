#pragma once
// The runtime registry as the worker sees it (spec "Runtime settings"): the built-in runtimes
// plus runtime-c's models discovered from the worker's installed opencode (tool-call models
// only, ids unchanged). Settings are normalized against it, so a model the worker offers is a
// model the web accepts. The worker lists them slowly (opencode takes seconds), so the catalog
// is asked for when the web starts, then at most once a minute in the background while the
// last answer keeps serving; a request waits for the worker only when no answer is there yet,
// or it names a runtime-c model not known yet (an operator added a provider).
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "platform/runtime_registry.hpp"
#include "platform/runtime_settings.hpp"
#include "platform/store.hpp"
#include "worker_pool.hpp"

namespace platform::web {

class runtime_catalog {
 public:
  runtime_catalog(const worker_pool& workers, runtime_registry builtin);
  ~runtime_catalog();
  runtime_catalog(const runtime_catalog&) = delete;
  runtime_catalog& operator=(const runtime_catalog&) = delete;

  // Asks the worker in the background (at start: the first picker need not wait).
  void refresh_soon();

  // The current registry; refreshed first when runtime-c is asked for (`runtime_id`) and its
  // models are unknown or older than a minute, or `model` is not among them.
  std::shared_ptr<const runtime_registry> get(std::string_view runtime_id = {}, std::string_view model = {});

 private:
  [[nodiscard]] std::shared_ptr<const runtime_registry> current() const;
  // Asks the worker now; true when it answered with a catalog. Under refresh_mu_.
  bool refresh();

  const worker_pool& workers_;
  const runtime_registry builtin_;
  std::mutex refresh_mu_;
  mutable std::mutex mu_;
  std::shared_ptr<const runtime_registry> current_;
  std::chrono::steady_clock::time_point refreshed_{};
  bool refreshed_once_ = false;
  bool have_catalog_ = false;     // the last answer came from the worker
  std::future<void> background_;  // a refresh_soon under way (waited for on destruction)
};

// Runtime settings as a request names them; absent fields keep the app's persisted ones.
struct settings_request {
  std::optional<std::string> runtime_id;
  std::optional<std::string> runtime_model;
  std::optional<std::map<std::string, std::string>> runtime_params;
};

// The app's persisted settings with `change` applied, normalized (defaults filled, downgrades
// applied). Changing the runtime drops the other runtime's model and params. Errors as
// normalize_runtime_settings.
result<normalized_settings> app_runtime_settings(runtime_catalog& catalog, const app_record& app,
                                                 const settings_request& change = {});

// The app with `s` as its persisted settings.
void persist_settings(app_record& app, const normalized_settings& s);

}  // namespace platform::web
