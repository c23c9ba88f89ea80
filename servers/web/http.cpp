#include "http.hpp"

#include <openssl/rand.h>

#include <memory>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "../common/json_body.hpp"
#include "platform/compact_json.hpp"
#include "platform/ui_stream.hpp"

namespace platform::web {

using nlohmann::json;

void send_json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

bool parse_json_body(const httplib::Request& req, httplib::Response& res, std::size_t max_bytes, json& out,
                     std::size_t max_depth) {
  return servers::read_json_body(req, res, {.max_depth = max_depth, .max_bytes = max_bytes}, out);
}

void send_store_error(httplib::Response& res, const error& e) {
  int status = http_status_for(e.code);
  servers::write_error_body(res, status, e.code, status == 503 ? "storage is unavailable: " + e.message : e.message);
}

void set_ui_stream_headers(httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("Connection", "keep-alive");
  res.set_header("X-Accel-Buffering", "no");
  res.set_header(std::string(ui_stream_header_spec), std::string(ui_stream_header_value));
  res.set_header(std::string(ui_stream_header_ai_sdk), std::string(ui_stream_header_value));
}

namespace {

// The events of a read, back to back, for one write.
std::string joined(const replay_read& r) {
  std::size_t total = 0;
  for (const auto& c : r.chunks) total += c.bytes.size();
  std::string out;
  out.reserve(total);
  for (const auto& c : r.chunks) out += c.bytes;
  return out;
}


}  // namespace

void follow_replay(httplib::Response& res, cache_store& cache, follow_options options) {
  struct follow_state : follow_options {
    bool ended_with_done = false;  // the last event sent was [DONE]
    std::optional<std::chrono::steady_clock::time_point> outage_since;
  };
  auto state = std::make_shared<follow_state>(follow_state{std::move(options), false, std::nullopt});
  res.set_chunked_content_provider("text/event-stream", [&cache, state](std::size_t, httplib::DataSink& sink) {
    result<replay_read> r = state->first ? result<replay_read>(std::move(*state->first))
                                         : cache.wait_read(state->stream_id, state->cursor, 16384, state->heartbeat);
    state->first.reset();
    // A stream its producer is putting back after the store lost it may be briefly behind a
    // follower's cursor: like an outage, that passes.
    bool behind = r && r->status == replay_status::cursor_ahead;
    if (((!r && is_cache_outage(r.error())) || behind) && state->still_live) {
      auto now = std::chrono::steady_clock::now();
      if (!state->outage_since) state->outage_since = now;
      if (now - *state->outage_since <= state->outage_limit && state->still_live()) {
        std::this_thread::sleep_for(std::min(std::chrono::milliseconds(200), state->heartbeat));
        return sink.write(sse_heartbeat.data(), sse_heartbeat.size());  // notices a viewer that left
      }
      // Past the limit, or the run ended while the store was away: what this viewer missed is
      // not coming, and it is told so (its client reloads the persisted chat).
      std::string out = "data: {\"type\":\"error\",\"errorText\":\"The live stream was interrupted: the cache store "
                        "stayed unreachable.\"}\n\n";
      out += sse_done_event;
      sink.write(out.data(), out.size());
      sink.done();
      return true;
    }
    if (r) state->outage_since.reset();
    if (!r || r->status != replay_status::ok) {
      // The stream expired or vanished: end the body; the client reloads the persisted chat.
      sink.done();
      return true;
    }
    std::string out = joined(*r);
    state->cursor = r->next_cursor;
    if (!out.empty()) state->ended_with_done = out.size() >= sse_done_event.size() && out.ends_with(sse_done_event);
    if (out.empty() && !r->terminal) {
      if (state->still_live && !state->still_live()) {
        // The run ended without completing this stream (its producer died and stale stream
        // recovery failed it): say so, unless the last events arrived meanwhile.
        auto last = cache.read_from(state->stream_id, state->cursor, 16384);
        if (last && last->status == replay_status::ok && !last->chunks.empty()) {
          out = joined(*last);
          state->cursor = last->next_cursor;
          if (!sink.write(out.data(), out.size())) return false;
          if (last->terminal) sink.done();
          return true;
        }
        out = "data: {\"type\":\"error\",\"errorText\":\"The run stopped before its stream finished.\"}\n\n";
        out += sse_done_event;
        sink.write(out.data(), out.size());
        sink.done();
        return true;
      }
      out = std::string(sse_heartbeat);
    }
    // Never an empty write: in a chunked body that is the last chunk, the end of the response.
    if (!out.empty() && !sink.write(out.data(), out.size())) return false;
    if (r->terminal && !state->ended_with_done && state->continue_on) {
      if (auto next = state->continue_on(state->stream_id, state->cursor)) {
        state->stream_id = *next;
        state->ended_with_done = false;
        return true;
      }
    }
    if (r->terminal) sink.done();
    return true;
  }, [state](bool) {
    if (state->on_close) state->on_close();
  });
}

std::string random_id(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    throw std::runtime_error("the system's random generator failed");
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
  }
  return out;
}


}  // namespace platform::web
