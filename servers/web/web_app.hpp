#pragma once
#include <cstdint>
#include <functional>
// The parts of platform-web every handler reaches: what main.cpp wires together.
#include <string>

#include "adapters/cache_store.hpp"
#include "auth.hpp"
#include "chat_service.hpp"
#include "local_streams.hpp"
#include "platform/store.hpp"
#include "runtime_catalog.hpp"
#include "viewer_hub.hpp"
#include "web_config.hpp"
#include "worker_pool.hpp"

namespace platform::web {

class tool_runner;
class append_batcher;

struct web_app {
  const config& cfg;
  store& db;
  cache_store& cache;    // the store as this process's followers read it (local_first_cache)
  local_streams& local;  // the windows of the streams this process writes
  append_batcher* batcher;  // the streams' events to the cache store in batches (null: each on its writer's thread)
  const worker_pool& workers;
  runtime_catalog& runtimes;  // the registry as the worker sees it
  authenticator& auth;
  chat_service& chat;
  std::string preview_key;  // signs preview tokens (derived from the secrets key: every replica agrees)
  std::string capability_key;  // signs the runs' capabilities (run_capability.hpp), derived the same way
  std::string webhook_key;     // routines' webhook secrets are derived from it (routines.hpp)
  std::string self_origin;     // http://<host>:<bound port>, once listening: callbacks without PLATFORM_WEB_URL
  std::function<std::int64_t()> routine_now;  // the routines' clock (unset: the system's; a file in tests)
  viewer_hub* viewers = nullptr;  // chat viewers on an event loop (unset: a thread each)
  tool_runner* tools = nullptr;   // the HTTP executor of custom tools and app actions
};

}  // namespace platform::web
