#include "redis_client.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>

#include <charconv>
#include <optional>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"

namespace platform::detail {
namespace {

tl::unexpected<error> bad_url(std::string what) { return fail(api_error::invalid_config, "the Redis URL " + what); }

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = hex_digit_value(s[i + 1]), lo = hex_digit_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

bool parse_int(std::string_view s, int& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

result<void> parse_userinfo(std::string_view info, redis_address& a) {
  auto colon = info.find(':');
  auto user = percent_decode(colon == std::string_view::npos ? std::string_view() : info.substr(0, colon));
  auto password = percent_decode(colon == std::string_view::npos ? info : info.substr(colon + 1));
  if (!user || !password) return bad_url("has a malformed %-escape in its user or password");
  a.user = std::move(*user);
  a.password = std::move(*password);
  return {};
}

result<void> parse_host_port(std::string_view hostport, redis_address& a) {
  std::string_view port;
  if (!hostport.empty() && hostport.front() == '[') {
    auto close = hostport.find(']');
    if (close == std::string_view::npos) return bad_url("has an unclosed [ in its host");
    a.host = std::string(hostport.substr(1, close - 1));
    auto after = hostport.substr(close + 1);
    if (!after.empty() && after.front() != ':') return bad_url("has text after its IPv6 host");
    if (!after.empty()) port = after.substr(1);
  } else {
    auto colon = hostport.rfind(':');
    if (colon != std::string_view::npos) port = hostport.substr(colon + 1);
    auto host = hostport.substr(0, colon);
    if (!host.empty()) a.host = std::string(host);
  }
  if (a.host.empty()) return bad_url("has an empty host");
  if (port.empty()) return {};
  if (!parse_int(port, a.port) || a.port <= 0 || a.port > 65535) return bad_url("has a bad port");
  return {};
}

result<void> check(redisContext* c, const std::vector<std::string_view>& args, const char* refused) {
  redis_reply r = redis_call(c, args);
  if (!r) return fail(api_error::cache_unavailable, std::string("Redis connection failed during ") + std::string(args[0]));
  if (r->type == REDIS_REPLY_ERROR) return fail(api_error::cache_unavailable, refused);
  return {};
}

timeval to_timeval(std::chrono::milliseconds ms) {
  return timeval{static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>((ms.count() % 1000) * 1000)};
}

// A pooled connection has no reply pending, so anything to read means the server closed it
// (or broke the protocol): either way it must not carry a command.
bool idle_and_open(redisContext* c) {
  pollfd p{c->fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

}  // namespace

void context_deleter::operator()(redisContext* c) const { redisFree(c); }
void reply_deleter::operator()(redisReply* r) const { freeReplyObject(r); }

result<redis_address> parse_redis_url(std::string_view url) {
  constexpr std::string_view scheme = "redis://";
  if (url.substr(0, scheme.size()) != scheme) {
    return bad_url(url.substr(0, 9) == "rediss://" ? "asks for TLS, which this build does not support"
                                                   : "must start with redis://");
  }
  std::string_view rest = url.substr(scheme.size());
  if (rest.find_first_of("?#") != std::string_view::npos) return bad_url("must not have a query or fragment");
  auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  redis_address a;
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    if (auto r = parse_userinfo(authority.substr(0, at), a); !r) return tl::unexpected(r.error());
    authority.remove_prefix(at + 1);
  }
  if (auto r = parse_host_port(authority, a); !r) return tl::unexpected(r.error());
  if (!path.empty() && (!parse_int(path, a.db) || a.db < 0)) return bad_url("has a bad database number");
  return a;
}

result<redis_context> redis_connect(const redis_address& a, std::chrono::milliseconds timeout) {
  redis_context c(redisConnectWithTimeout(a.host.c_str(), a.port, to_timeval(timeout)));
  std::string where = a.host + ":" + std::to_string(a.port);
  if (!c) return fail(api_error::cache_unavailable, "cannot connect to Redis at " + where);
  if (c->err) return fail(api_error::cache_unavailable, "cannot connect to Redis at " + where + ": " + c->errstr);
  redisSetTimeout(c.get(), to_timeval(timeout));
  redisEnableKeepAlive(c.get());  // a peer that vanished without a FIN is noticed eventually
  if (!a.password.empty()) {
    std::vector<std::string_view> auth{"AUTH"};
    if (!a.user.empty()) auth.push_back(a.user);
    auth.push_back(a.password);
    if (auto r = check(c.get(), auth, "Redis refused the credentials in the URL"); !r) return tl::unexpected(r.error());
  }
  if (a.db != 0) {
    std::string db = std::to_string(a.db);
    if (auto r = check(c.get(), {"SELECT", db}, "Redis refused the database number in the URL"); !r) {
      return tl::unexpected(r.error());
    }
  }
  return c;
}

namespace {

bool append_command(redisContext* c, const std::vector<std::string_view>& args) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  argv.reserve(args.size());
  lens.reserve(args.size());
  for (auto s : args) {
    argv.push_back(s.data());
    lens.push_back(s.size());
  }
  return redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()) == REDIS_OK;
}

// Null when the connection broke.
std::optional<std::vector<redis_reply>> exchange(redisContext* c, const std::vector<std::vector<std::string_view>>& commands) {
  for (const auto& args : commands) {
    if (!append_command(c, args)) return std::nullopt;
  }
  std::vector<redis_reply> replies;
  replies.reserve(commands.size());
  for (std::size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(c, &raw) != REDIS_OK || raw == nullptr) return std::nullopt;
    replies.emplace_back(static_cast<redisReply*>(raw));
  }
  return replies;
}

}  // namespace

redis_reply redis_call(redisContext* c, const std::vector<std::string_view>& args) {
  auto replies = exchange(c, {args});
  if (!replies) return nullptr;
  return std::move(replies->front());
}

redis_pool::redis_pool(redis_address a, std::chrono::milliseconds timeout, std::size_t max_open)
    : addr_(std::move(a)), timeout_(timeout), max_open_(max_open) {}

result<redis_reply> redis_pool::call(const std::vector<std::string_view>& args) {
  auto replies = pipeline({args});
  if (!replies) return tl::unexpected(replies.error());
  return std::move(replies->front());
}

result<std::vector<redis_reply>> redis_pool::pipeline(const std::vector<std::vector<std::string_view>>& commands) {
  std::string last_error;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto c = lease();
    if (!c) return tl::unexpected(c.error());
    auto replies = exchange(c->get(), commands);
    if (replies && (*c)->err == 0) {
      give_back(std::move(*c));
      return std::move(*replies);
    }
    last_error = (*c)->errstr;
    drop(std::move(*c));
  }
  return fail(api_error::cache_unavailable, "lost the connection to Redis: " + last_error);
}

result<redis_context> redis_pool::lease() {
  std::unique_lock lock(mu_);
  for (;;) {
    while (!idle_.empty()) {
      redis_context c = std::move(idle_.back());
      idle_.pop_back();
      if (idle_and_open(c.get())) return c;
      --open_;  // the server closed it while idle
    }
    if (open_ < max_open_) break;
    // Every connection is busy: wait for one rather than open more. Thousands of viewers
    // woken by one append would otherwise each connect, and Redis pays for every connect.
    freed_.wait(lock);
  }
  ++open_;
  lock.unlock();
  auto c = redis_connect(addr_, timeout_);
  if (!c) {
    std::lock_guard again(mu_);
    --open_;
    freed_.notify_one();
  }
  return c;
}

void redis_pool::give_back(redis_context c) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(c));
  freed_.notify_one();
}

void redis_pool::drop(redis_context c) {
  c.reset();
  std::lock_guard lock(mu_);
  --open_;
  freed_.notify_one();
}

}  // namespace platform::detail
