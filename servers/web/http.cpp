#include "http.hpp"

#include <openssl/rand.h>

#include <memory>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "../common/json_body.hpp"
#include "platform/compact_json.hpp"
#include "platform/replay_follow.hpp"
#include "platform/ui_stream.hpp"
#include "web_metrics.hpp"

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

void set_ui_stream_headers(httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("Connection", "keep-alive");
  res.set_header("X-Accel-Buffering", "no");
  res.set_header(std::string(ui_stream_header_spec), std::string(ui_stream_header_value));
  res.set_header(std::string(ui_stream_header_ai_sdk), std::string(ui_stream_header_value));
}

namespace {

// The events of a read, back to back, for one write.
std::string joined(const std::vector<replay_chunk>& chunks) {
  std::size_t total = 0;
  for (const auto& c : chunks) total += c.bytes.size();
  std::string out;
  out.reserve(total);
  for (const auto& c : chunks) out += c.bytes;
  return out;
}


}  // namespace

void follow_replay(httplib::Response& res, cache_store& cache, follow_options options) {
  struct follow_state {
    follow_options o;
    replay_follow rules;
    servers::gauge_hold following;  // GET /metrics: counted while the response lives
  };
  replay_follow rules(options.cursor, {options.heartbeat, options.outage_limit, static_cast<bool>(options.still_live)},
                      std::chrono::steady_clock::now());
  auto state = std::make_shared<follow_state>(
      follow_state{std::move(options), rules, servers::gauge_hold(web_stats.stream_followers)});
  res.set_chunked_content_provider("text/event-stream", [&cache, state](std::size_t, httplib::DataSink& sink) {
    auto& o = state->o;
    auto& rules = state->rules;
    using action = replay_follow_step::action;
    auto now = [] { return std::chrono::steady_clock::now(); };
    replay_follow_step step =
        o.first ? rules.read(std::move(*o.first), now())
                : rules.read(cache.wait_read(o.stream_id, rules.cursor(), 16384, rules.until_heartbeat(now())), now());
    o.first.reset();
    for (;;) {
      switch (step.what) {
        case action::ask_live:
          step = rules.live(o.still_live(), now());
          continue;
        case action::read_last:
          step = rules.last(cache.read_from(o.stream_id, rules.cursor(), 16384), now());
          continue;
        case action::wait:
          return true;
        case action::heartbeat:
          if (step.pause.count() > 0) std::this_thread::sleep_for(step.pause);
          return sink.write(sse_heartbeat.data(), sse_heartbeat.size());  // notices a viewer that left
        case action::write: {
          std::string out = joined(step.chunks);
          return sink.write(out.data(), out.size());
        }
        case action::end: {
          std::string out = joined(step.chunks);
          out += step.tail;
          // Never an empty write: in a chunked body that is the last chunk, the end of the response.
          if (!out.empty() && !sink.write(out.data(), out.size())) return false;
          if (step.without_done && o.continue_on) {
            if (auto next = o.continue_on(o.stream_id, rules.cursor())) {
              o.stream_id = *next;
              rules.continue_on();
              return true;
            }
          }
          sink.done();
          return true;
        }
      }
    }
  }, [state](bool) {
    if (state->o.on_close) state->o.on_close();
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
