// A second C++ host of libplatform: a tiny HTTP server embedding the bridge and the replay
// buffer, built from the installed package alone:
//   c++ -std=c++20 main.cpp $(pkg-config --cflags --libs platform cpp-httplib) -pthread
//
//   POST /streams/{id}[?runtime=runtime-a&message_id=M]   body: a runtime transcript (runtime-a:
//        Claude Code stream-json, one JSON object per line). Read as it arrives, translated by the
//        bridge into AI SDK UI message stream events kept in the stream's replay buffer.
//        201 {"stream","events","lines","ignoredLines"} when the body ends; 409 when the id is taken.
//   GET  /streams/{id}[?cursor=N]   the SSE stream from event N (default 0; N = the number of
//        events the client already has, `data: [DONE]` included): the replay, then the live
//        events of an upload still running, to `data: [DONE]`. 404 unknown id, 400 bad cursor or
//        one beyond the stream, 204 when the events from N on were dropped (resume from 0).
//
// Usage: stream_host [PORT]   (default 0: any free port). Listens on 127.0.0.1, prints its URL.
#include <httplib.h>

#include <platform/bridge.hpp>
#include <platform/replay_buffer.hpp>
#include <platform/runtime_normalizer.hpp>

#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

// Every stream's replay buffer behind one mutex (the store is not thread-safe); `changed`
// wakes the followers after an append or a completion.
struct streams {
  std::mutex mu;
  std::condition_variable changed;
  platform::memory_replay_store store;

  // The store has no clock: completed streams expire (5 min) by our monotonic milliseconds.
  void tick() {
    auto now = std::chrono::steady_clock::now().time_since_epoch();
    store.tick(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  }
};

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + '"';
}

void reply_error(httplib::Response& res, int status, const platform::error& e) {
  res.status = status;
  res.set_content("{\"error\":{\"code\":" + json_string(platform::code_name(e)) + ",\"message\":" + json_string(e.message) + "}}\n",
                  "application/json");
}

// Moves the whole SSE events at the front of `sse` into the stream, one sequence number each.
std::size_t publish(streams& s, const std::string& id, std::string& sse) {
  std::size_t n = 0, pos = 0, end;
  std::lock_guard lock(s.mu);
  while ((end = sse.find("\n\n", pos)) != std::string::npos) {
    if (s.store.append(id, std::string_view(sse).substr(pos, end + 2 - pos))) ++n;
    pos = end + 2;
  }
  sse.erase(0, pos);
  if (n) s.changed.notify_all();
  return n;
}

void post_stream(streams& s, const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
  std::string id = req.matches[1];
  // A refusal still reads the body: unread, it would be parsed as the connection's next request.
  auto refuse = [&](int status, const platform::error& e) {
    read([](const char*, std::size_t) { return true; });
    reply_error(res, status, e);
  };
  auto normalizer = platform::make_runtime_normalizer(req.has_param("runtime") ? req.get_param_value("runtime")
                                                                                : "runtime-a");
  if (!normalizer) return refuse(400, normalizer.error());
  platform::result<void> made;
  {
    std::lock_guard lock(s.mu);
    s.tick();
    made = s.store.create(id);
  }
  if (!made) return refuse(made.error().code == platform::api_error::replay_exists ? 409 : 503, made.error());
  platform::bridge_options options;
  // A stable messageId: a client resuming with a replay replaces its message instead of adding one.
  options.message_id = req.has_param("message_id") ? req.get_param_value("message_id") : "msg-" + id;
  platform::bridge bridge(options);
  std::string messages, sse;
  std::size_t events = 0;
  bool whole = read([&](const char* data, std::size_t size) {
    (*normalizer)->feed(std::string_view(data, size), messages);
    bridge.feed(messages, sse);
    messages.clear();
    events += publish(s, id, sse);
    return true;
  });
  if (whole) {
    (*normalizer)->finish(messages);
    bridge.feed(messages, sse);
  } else {
    bridge.fail("the transcript upload broke off", sse);
  }
  bridge.finish(sse);  // closes open parts, `finish`, then `data: [DONE]`
  events += publish(s, id, sse);
  {
    std::lock_guard lock(s.mu);
    (void)s.store.complete(id);
  }
  s.changed.notify_all();
  const auto& o = bridge.outcome();
  res.status = 201;
  res.set_content("{\"stream\":" + json_string(id) + ",\"events\":" + std::to_string(events) +
                      ",\"lines\":" + std::to_string(o.lines) + ",\"ignoredLines\":" + std::to_string(o.ignored_lines) +
                      "}\n",
                  "application/json");
}

void get_stream(streams& s, const httplib::Request& req, httplib::Response& res) {
  std::string id = req.matches[1];
  std::uint64_t cursor = 0;
  if (req.has_param("cursor")) {
    std::string c = req.get_param_value("cursor");
    auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), cursor);
    if (ec != std::errc() || p != c.data() + c.size())
      return reply_error(res, 400, {platform::api_error::invalid_cursor, "cursor must be a non-negative integer"});
  }
  {
    std::lock_guard lock(s.mu);
    s.tick();
    auto info = s.store.info(id);
    if (!info) return reply_error(res, 404, info.error());
    if (cursor > info->next_seq) return reply_error(res, 400, {platform::api_error::invalid_cursor, "cursor is beyond the stream"});
    if (cursor < info->first_seq) {  // the buffer dropped those events ("drop oldest")
      res.status = 204;
      return;
    }
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_header("x-vercel-ai-ui-message-stream", "v1");
  res.set_header("x-sdk-ai-ui-message-stream", "v1");
  res.set_chunked_content_provider("text/event-stream", [&s, id, cursor](std::size_t, httplib::DataSink& sink) mutable {
    std::unique_lock lock(s.mu);
    auto r = s.store.read_from(id, cursor, 256);
    if (r && r->status == platform::replay_status::ok && r->chunks.empty() && !r->terminal) {
      // Caught up with a live upload: wait for more, with a keep-alive comment now and then.
      bool more = s.changed.wait_for(lock, std::chrono::seconds(15), [&] {
        auto i = s.store.info(id);
        return !i || i->next_seq > cursor || i->complete;
      });
      if (!more) {
        lock.unlock();
        return sink.write(": keep-alive\n\n", 14);
      }
      r = s.store.read_from(id, cursor, 256);
    }
    lock.unlock();
    if (!r || r->status != platform::replay_status::ok) {  // expired, or dropped past a slow reader
      sink.done();
      return true;
    }
    for (const auto& c : r->chunks)
      if (!sink.write(c.bytes.data(), c.bytes.size())) return false;
    cursor = r->next_cursor;
    if (r->terminal) sink.done();
    return true;
  });
}

}  // namespace

int main(int argc, char** argv) {
  int port = argc > 1 ? std::atoi(argv[1]) : 0;
  streams s;
  httplib::Server server;
  const char* route = R"(/streams/([A-Za-z0-9._-]{1,128}))";
  server.Post(route, [&s](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
    post_stream(s, req, res, read);
  });
  server.Get(route, [&s](const httplib::Request& req, httplib::Response& res) { get_stream(s, req, res); });
  int bound = port > 0 ? (server.bind_to_port("127.0.0.1", port) ? port : -1) : server.bind_to_any_port("127.0.0.1");
  if (bound <= 0) {
    std::fprintf(stderr, "stream_host: cannot listen on 127.0.0.1:%d\n", port);
    return 1;
  }
  std::printf("stream_host listening on http://127.0.0.1:%d\n", bound);
  std::fflush(stdout);
  return server.listen_after_bind() ? 0 : 1;
}
