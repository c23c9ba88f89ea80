#include "broker.hpp"

#include <httplib.h>

#include <algorithm>
#include <cstdio>

#include "platform/api_error.hpp"
#include "random_hex.hpp"
#include "platform/ascii.hpp"

namespace platform::worker {

namespace {

// 32 random bytes as hex: far beyond guessing, and header-safe for every CLI's config.
result<std::string> mint_token() {
  std::string token = random_hex(32);
  if (token.empty()) return fail(api_error::token_unavailable, "no randomness for a broker token");
  return token;
}

std::string bearer_of(std::string_view authorization) {
  constexpr std::string_view prefix = "Bearer ";
  if (authorization.size() <= prefix.size() || !istarts_with(authorization, prefix)) return {};
  return std::string(authorization.substr(prefix.size()));
}

void write_reply(const mcp_http_reply& reply, httplib::Response& res) {
  res.status = reply.status;
  for (const auto& [name, value] : reply.headers) res.set_header(name, value);
  if (!reply.body.empty()) res.set_content(reply.body, reply.content_type.empty() ? "application/json" : reply.content_type);
}

}  // namespace

void turn_context::record_failure(std::string record_json) {
  constexpr std::size_t max_records = 20;
  std::lock_guard lock(mu_);
  if (failures_.size() == max_records) failures_.erase(failures_.begin());
  failures_.push_back(std::move(record_json));
}

std::vector<std::string> turn_context::failures() const {
  std::lock_guard lock(mu_);
  return failures_;
}

broker_lease::~broker_lease() { broker_.revoke(token_); }

bool broker_lease::connected() const {
  std::lock_guard lock(broker_.mu_);
  return broker_.grants_.connected(token_);
}

std::size_t broker_lease::tool_calls() const {
  std::lock_guard lock(broker_.mu_);
  auto u = broker_.grants_.usage(token_);
  return u ? u->tool_calls : 0;
}

result<std::unique_ptr<broker_lease>> broker::open(std::shared_ptr<turn_context> ctx, std::vector<tool_binding> tools) {
  auto token = mint_token();
  if (!token) return tl::unexpected(token.error());
  turn_grant grant{*token, ctx->app_id, ctx->run_id, {}};
  turn_entry entry{ctx, {}};
  broker_access access{cfg_.broker_base_url, *token, {}, {}};
  for (auto& t : tools) {
    auto parts = split_mcp_tool_name(t.definition.name);
    if (!parts) return fail(api_error::invalid_tool_name, "not a canonical MCP tool name: " + t.definition.name);
    std::string server(parts->server);
    if (std::find(access.servers.begin(), access.servers.end(), server) == access.servers.end()) access.servers.push_back(server);
    access.tools.push_back(t.definition.name);
    entry.handlers.emplace(t.definition.name, std::move(t.run));
    grant.tools.push_back(std::move(t.definition));
  }
  std::lock_guard lock(mu_);
  if (auto added = grants_.add(std::move(grant)); !added) return tl::unexpected(added.error());
  turns_.emplace(*token, std::move(entry));
  return std::make_unique<broker_lease>(*this, *token, std::move(ctx), std::move(access));
}

void broker::revoke(const std::string& token) {
  std::lock_guard lock(mu_);
  grants_.remove(token);
  turns_.erase(token);
}

std::size_t broker::live_grants() {
  std::lock_guard lock(mu_);
  return grants_.size();
}

void broker::handle(std::string_view server, const httplib::Request& req, httplib::Response& res) {
  mcp_server_options options;
  options.server_name = std::string(server);
  std::string authorization = req.get_header_value("Authorization");
  std::string origin = req.get_header_value("Origin");
  std::string accept = req.get_header_value("Accept");
  std::string content_type = req.get_header_value("Content-Type");
  std::string version = req.get_header_value("MCP-Protocol-Version");
  mcp_http_request r{req.method, authorization, origin, accept, content_type, version, req.body};
  std::shared_ptr<turn_context> ctx;
  tool_handler handler;
  mcp_decision d;
  {
    std::lock_guard lock(mu_);
    d = handle_mcp_request(options, grants_, r);
    if (d.call) {
      auto it = turns_.find(bearer_of(authorization));
      if (it != turns_.end()) {
        ctx = it->second.ctx;
        if (auto h = it->second.handlers.find(d.call->name); h != it->second.handlers.end()) handler = h->second;
      }
    }
  }
  if (!d.call) return write_reply(d.reply, res);
  if (!handler || !ctx) {
    return write_reply(mcp_tool_result_reply(*d.call, "This tool is not available in this turn.", true), res);
  }
  if (cfg_.trace) {
    std::fprintf(stderr, "worker: broker call app=%s run=%s tool=%s\n", ctx->app_id.c_str(), ctx->run_id.c_str(),
                 d.call->name.c_str());
  }
  tool_outcome out;
  try {
    out = handler(*ctx, *d.call);
  } catch (const std::exception&) {
    out = {"The tool failed inside the worker.", true};  // a bug; the turn goes on
  }
  write_reply(mcp_tool_result_reply(*d.call, out.text, out.is_error), res);
}

}  // namespace platform::worker
