#pragma once
// Compact workspace events (design notes "Workspace event"): ids and status only, never
// prompts, messages or secrets. Published on the cache store's channel of the workspace.
#include <string>
#include <string_view>

#include "adapters/cache_store.hpp"
#include "platform/store.hpp"

namespace platform::web {

std::string workspace_channel(std::string_view workspace_id);

// {"type","workspaceId","appId","runId","kind","status","runReason"?}
std::string run_event(std::string_view type, const run_key& key, std::string_view kind, std::string_view status,
                      std::string_view run_reason);

// {"type","workspaceId","appId"}: an event about the app itself (app.deleted).
std::string app_event(std::string_view type, std::string_view workspace_id, std::string_view app_id);
void publish_app_event(cache_store& cache, std::string_view type, std::string_view workspace_id, std::string_view app_id);

// Publishes a builder run event; a failed publish is logged, never fatal (events are hints).
void publish_builder_event(cache_store& cache, std::string_view type, const run_key& key, run_status status,
                           std::string_view run_reason);

}  // namespace platform::web
