#pragma once
// Response helpers shared by the routes: the error body of the design notes, JSON replies,
// UI message stream headers, and the SSE pump that follows a replay buffer.
#include <httplib.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "../common/request_checks.hpp"
#include "adapters/cache_store.hpp"
#include "platform/error.hpp"
#include "platform/json_limits.hpp"

namespace platform::web {

// The design notes' error body: a code of the closed set with its status, or an `error` of the
// core, an adapter or a worker with its code's status (platform/api_error.hpp).
using servers::send;
void send_json(httplib::Response& res, int status, const std::string& body);

// The body as a JSON object, or a 400/413 already written to `res` (returns false): at most
// `max_bytes` and `max_depth` levels deep (platform/json_limits.hpp), checked before parsing.
bool parse_json_body(const httplib::Request& req, httplib::Response& res, std::size_t max_bytes, nlohmann::json& out,
                     std::size_t max_depth = body_max_depth);


void set_ui_stream_headers(httplib::Response& res);

// Streams the replay buffer `stream_id` from `cursor` to the client: what is retained, then
// live appends, until the terminal marker. While idle it sends a keep-alive comment every
// `heartbeat` and asks `still_live()`: false ends the body (the run ended without completing
// its stream, e.g. its producer died and stale recovery failed it). A viewer that goes away
// only ends its own response.
struct follow_options {
  std::string stream_id;
  std::uint64_t cursor = 0;
  std::chrono::milliseconds heartbeat{15000};
  std::function<bool()> still_live;
  std::optional<replay_read> first;  // a read the handler already made (sent before waiting)
  std::function<void()> on_close;    // the response ended (finished or the viewer left)
  // The stream ended without its [DONE]: its producer stopped before the run did (an app agent
  // run's owning viewer left). Returns the stream that carries the same events on, to go on
  // reading at the same cursor once it holds that many events, or nothing to end the body.
  // Unset: the body just ends.
  std::function<std::optional<std::string>(const std::string& ended_stream_id, std::uint64_t cursor)> continue_on;
  // While the run is live, an unreachable cache store (or one that restarted without the
  // stream, which its producer puts back) is waited out this long, with keep-alives; then the
  // body ends with an error chunk and [DONE].
  std::chrono::milliseconds outage_limit{30000};
};
void follow_replay(httplib::Response& res, cache_store& cache, follow_options options);

// 32 random bytes as hex (OpenSSL's CSPRNG): stream ids, claim tokens, run ids.
std::string random_id(std::size_t bytes = 16);

}  // namespace platform::web
