#pragma once
// SSE of one cache-store channel to one viewer: the workspace events and an app's data
// changes are both this. Subscribe first, then catch up, so nothing published in between is
// lost; keep-alive comments while idle; a viewer 1024 events behind is cut off rather than
// buffered without bound (it reconnects and catches up again).
#include <httplib.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/cache_store.hpp"

namespace platform::web {

struct channel_stream_options {
  std::string channel;
  std::function<bool(std::string_view)> filter;             // empty: every message
  std::function<std::vector<std::string>()> catch_up;       // called once subscribed; may be empty
  bool announce_subscribed = false;  // a first `: subscribed` comment: writes after it are seen
  std::chrono::milliseconds heartbeat{15000};
};

// Writes the store error (503) when the subscription fails.
void stream_channel(cache_store& cache, httplib::Response& res, channel_stream_options options);

}  // namespace platform::web
