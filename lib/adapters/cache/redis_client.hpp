#pragma once
// Synchronous Redis connections for the cache store (hiredis 0.14, kept out of this header):
// the redis:// URL, connecting with AUTH and SELECT, and a small pool of command connections
// that survives a dropped connection (a Redis restart, a killed client).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

struct redisContext;
struct redisReply;

namespace platform::detail {

struct redis_address {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string user;      // Redis 6 ACL user; empty means the default user
  std::string password;  // never put into an error message
  int db = 0;
};

// redis://[[user]:password@]host[:port][/db]; user and password are percent-decoded; an IPv6
// host goes in brackets. Userinfo without a colon is taken as the password (the form older
// clients wrote). Fails with `invalid_config`.
result<redis_address> parse_redis_url(std::string_view url);

struct context_deleter {
  void operator()(redisContext* c) const;
};
struct reply_deleter {
  void operator()(redisReply* r) const;
};
using redis_context = std::unique_ptr<redisContext, context_deleter>;
using redis_reply = std::unique_ptr<redisReply, reply_deleter>;

// Connects, authenticates and selects the database. Every read and write on the connection
// then times out after `timeout` (the subscriber clears that again: it must block).
// Fails with `cache_unavailable`.
result<redis_context> redis_connect(const redis_address& a, std::chrono::milliseconds timeout);

// Sends one command and waits for its reply; null with `c->err` set when the connection broke.
redis_reply redis_call(redisContext* c, const std::vector<std::string_view>& args);

// Connections leased one command at a time, at most `max_open` of them; callers beyond that
// wait for one to come back. An idle connection that the server closed is noticed before use; one that breaks
// during a command is replaced and the command sent once more, so callers must make their
// commands safe to repeat (the store's scripts recognise their own retried writes).
class redis_pool {
 public:
  redis_pool(redis_address a, std::chrono::milliseconds timeout, std::size_t max_open = 32);

  // The reply, which may be a Redis error reply; `cache_unavailable` when no connection
  // could carry the command.
  result<redis_reply> call(const std::vector<std::string_view>& args);
  // Several commands on one connection, sent together; their replies in order. Same retry
  // rule as call().
  result<std::vector<redis_reply>> pipeline(const std::vector<std::vector<std::string_view>>& commands);

 private:
  result<redis_context> lease();
  void give_back(redis_context c);
  void drop(redis_context c);  // broken: forget it

  redis_address addr_;
  std::chrono::milliseconds timeout_;
  std::size_t max_open_;
  std::mutex mu_;
  std::condition_variable freed_;
  std::size_t open_ = 0;
  std::vector<redis_context> idle_;
};

}  // namespace platform::detail
