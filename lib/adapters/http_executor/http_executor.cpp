// The executor's hop loop: guards, resolve, connect to the checked addresses, send, read,
// follow redirects. Everything a hop decides is in the core (url, ip_guard, http_hop,
// http_redirect, http_response_parser, http_action_result); this file only does the I/O.
#include "adapters/http_executor.hpp"
#include "platform/api_error.hpp"

#include "platform/http_action_result.hpp"
#include "platform/http_hop.hpp"
#include "platform/http_redirect.hpp"
#include "platform/json_text.hpp"
#include "adapters/http_transport.hpp"

namespace platform {
namespace {

namespace tr = http_transport;
using F = integration_error;
using clock = tr::clock;
using failure_t = tl::unexpected<integration_tool_result>;

failure_t failed(F f, std::string message, std::optional<std::string> details = {}) {
  return failure_t(http_action_failed(f, std::move(message), std::move(details)));
}

// Details hold names only: hosts, domains and address classes, never paths or values.
std::string details_of(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  std::string out = "{";
  for (const auto& [key, value] : fields) {
    if (out.size() > 1) out += ',';
    append_json_string(out, key);
    out += ':';
    append_json_string(out, value.substr(0, 300));
  }
  return out + "}";
}

std::string duration_text(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

std::string size_text(std::size_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

struct http_executor::impl {
  http_executor_options options;
  std::shared_ptr<tr::tls_context> tls;

  using hop_result = tl::expected<http_response, integration_tool_result>;

  [[nodiscard]] failure_t io_failed(const tr::io_failure& e, const url& target) const {
    if (e.kind == F::timeout) {
      return failed(F::timeout, target.origin() + " did not answer within " + duration_text(options.timeout));
    }
    return failed(e.kind, target.origin() + ": " + e.message);
  }

  [[nodiscard]] std::optional<failure_t> host_refused(const url& target, std::string_view domain) const {
    if (host_in_domain(target, domain)) return std::nullopt;
    return failed(F::host_not_allowed,
                  "the host " + target.host + " is not the integration's domain " + std::string(domain.substr(0, 253)) +
                      " or a subdomain of it",
                  details_of({{"host", target.host}, {"domain", domain}}));
  }

  [[nodiscard]] tl::expected<std::vector<ip_address>, integration_tool_result> resolve(const url& target,
                                                                                       clock::time_point deadline) const {
    if (auto literal = target.address()) return std::vector<ip_address>{*literal};
    auto budget = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
    if (budget.count() <= 0) return io_failed({F::timeout, ""}, target);
    auto found = options.resolver ? options.resolver(target.host, budget) : system_resolve(target.host, budget);
    if (clock::now() >= deadline || (!found && is(found.error(), api_error::timeout))) return io_failed({F::timeout, ""}, target);
    if (!found) return failed(F::dns_failed, found.error().message, details_of({{"host", target.host}}));
    if (found->empty()) return failed(F::dns_failed, "cannot resolve " + target.host + ": no addresses");
    return std::move(*found);
  }

  // Every address must pass: a name with one internal address among public ones is how DNS
  // rebinding and split-horizon tricks reach internal services.
  [[nodiscard]] std::optional<failure_t> address_refused(const url& target, const std::vector<ip_address>& addresses) const {
    for (const auto& a : addresses) {
      auto why = refused_address(a, target.port, target.host, options.allow_list);
      if (!why) continue;
      std::string what = target.kind == host_kind::name ? target.host + " resolves to a" : target.host + " is a";
      return failed(F::address_not_allowed,
                    what + " " + std::string(to_string(*why)) + " address, which HTTP actions may not reach",
                    details_of({{"host", target.host}, {"addressClass", to_string(*why)}}));
    }
    return std::nullopt;
  }

  [[nodiscard]] tr::io_result<std::unique_ptr<tr::stream>> connect(const url& target, const std::vector<ip_address>& addresses,
                                                                  clock::time_point deadline) const {
    if (target.scheme == "https") {
      return tr::connect_tls(*tls, addresses, target.port, target.host, target.kind != host_kind::name, deadline);
    }
    return tr::connect_plain(addresses, target.port, target.host, deadline);
  }

  [[nodiscard]] failure_t parse_failed(const http_response_parser& p, const url& target) const {
    using P = http_response_parser::failure;
    switch (p.why()) {
      case P::body_too_large:
        return failed(F::response_too_large, target.origin() + " sent a response body larger than " + size_text(options.max_response_bytes),
                      details_of({{"limit", size_text(options.max_response_bytes)}}));
      case P::head_too_large:
        return failed(F::response_too_large, target.origin() + " sent response headers larger than the limit");
      case P::truncated:
        return failed(F::connection_lost, target.origin() + " closed the connection before the response was complete");
      default:
        return failed(F::invalid_provider_response, target.origin() + " sent a response that is not valid HTTP/1.1: " + p.detail());
    }
  }

  // A redirect is decided by its head alone; its body is never read.
  static bool redirect_ready(const http_response_parser& p) {
    return p.head_complete() && is_followed_redirect(p.response().status) && p.response().header("location");
  }

  [[nodiscard]] hop_result read_response(tr::stream& s, const http_hop& hop, clock::time_point deadline) const {
    http_response_limits limits;
    limits.max_body_bytes = options.max_response_bytes;
    http_response_parser p(limits, hop.method == "HEAD");
    std::string buf(16 * 1024, '\0');
    while (!p.done() && !p.failed() && !redirect_ready(p)) {
      auto n = s.read_some(buf.data(), buf.size(), deadline);
      if (!n) return io_failed(n.error(), hop.target);
      if (*n == 0) p.finish();
      else p.feed(std::string_view(buf.data(), *n));
    }
    if (redirect_ready(p) || p.done()) return p.take();
    return parse_failed(p, hop.target);
  }

  [[nodiscard]] hop_result exchange(const http_hop& hop, std::string_view domain, clock::time_point deadline) const {
    if (auto refused = host_refused(hop.target, domain)) return *refused;
    auto addresses = resolve(hop.target, deadline);
    if (!addresses) return tl::unexpected(addresses.error());
    if (auto refused = address_refused(hop.target, *addresses)) return *refused;
    auto wire = write_http_request(hop, options.user_agent);
    if (!wire) return failed(F::invalid_request, wire.error().message);
    auto conn = connect(hop.target, *addresses, deadline);
    if (!conn) return io_failed(conn.error(), hop.target);
    if (auto sent = (*conn)->write_all(*wire, deadline); !sent) return io_failed(sent.error(), hop.target);
    return read_response(**conn, hop, deadline);
  }
};

http_executor::http_executor(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
http_executor::~http_executor() = default;

result<std::unique_ptr<http_executor>> http_executor::create(http_executor_options options) {
  if (options.max_response_bytes == 0 || options.timeout.count() <= 0 || options.max_redirects < 0) {
    return fail(api_error::invalid_options, "the response limit and the timeout must be positive, the redirect limit not negative");
  }
  auto tls = http_transport::tls_context::create(options.system_ca, options.extra_ca_file);
  if (!tls) return fail(api_error::invalid_tls_config, tls.error());
  auto i = std::make_unique<impl>();
  i->options = std::move(options);
  i->tls = std::move(*tls);
  return std::unique_ptr<http_executor>(new http_executor(std::move(i)));
}

const http_executor_options& http_executor::options() const { return impl_->options; }

tl::expected<http_exchange, integration_tool_result> http_executor::send(const http_request& request,
                                                                         std::string_view domain) const {
  const auto& opt = impl_->options;
  auto deadline = clock::now() + opt.timeout;
  auto first = first_hop(request);
  if (!first) return failed(failure_of_url_error(first.error().code), "the tool's URL cannot be called: " + first.error().message);
  http_hop hop = std::move(*first);
  for (int redirects = 0;; ++redirects) {
    auto answer = impl_->exchange(hop, domain, deadline);
    if (!answer) return tl::unexpected(std::move(answer.error()));
    auto location = answer->header("location");
    if (!is_followed_redirect(answer->status) || !location) {
      return http_exchange{std::move(*answer), std::move(hop.target), redirects};
    }
    if (redirects >= opt.max_redirects) {
      return failed(F::too_many_redirects,
                    hop.target.origin() + " redirected more than " + std::to_string(opt.max_redirects) + " times");
    }
    auto next = redirected(hop, answer->status, *location);
    if (!next) {
      F f = is(next.error(), api_error::invalid_url) ? F::invalid_provider_response : failure_of_url_error(next.error().code);
      return failed(f, "the redirect from " + hop.target.origin() + " cannot be followed: " + next.error().message);
    }
    hop = std::move(*next);
  }
}

integration_tool_result http_executor::execute(const http_request& request, std::string_view domain,
                                               const std::vector<std::string>& secret_values) const {
  auto secrets = credential_values(request.headers);
  secrets.insert(secrets.end(), secret_values.begin(), secret_values.end());
  auto answer = send(request, domain);
  if (!answer) return std::move(answer.error());
  return http_action_result(answer->response, answer->final_url.origin(), secrets);
}

}  // namespace platform
