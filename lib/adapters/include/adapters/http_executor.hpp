#pragma once
// The HTTP executor of custom tools and app actions (spec "Custom tool and app action execution
// rules" 8, design notes "HTTP action limits"): sends one request built by build_tool_request
// and answers with the provider's response or an Integration tool result failure.
//
// Every hop (the request and each redirect) passes the same guards: http(s) only, the host is
// the integration's domain or a subdomain of it, and every address the host resolves to is a
// global unicast address unless the operator's allow-list names it. The socket is opened to
// the address that was checked (no second lookup); TLS verifies the certificate against the
// URL's host name. Limits: response body size, one deadline for the whole exchange
// (resolve, connect, TLS, send, receive, all hops), number of redirects.
// The executor owns its own small HTTP/1.1 client: cpp-httplib 0.11.4 cannot connect to a
// pre-resolved address while verifying the name. Decisions: docs/http-executor.md.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "platform/error.hpp"
#include "platform/http_response_parser.hpp"
#include "platform/integration_tool_result.hpp"
#include "platform/ip_guard.hpp"
#include "platform/tool_request.hpp"
#include "platform/url.hpp"

namespace platform {

// Every address `host` has, or an error coded `dns_failed` or `timeout`. Must not take longer
// than `budget` (the executor stops waiting then).
using host_resolver = std::function<result<std::vector<ip_address>>(const std::string& host, std::chrono::milliseconds budget)>;

struct http_executor_options {
  std::size_t max_response_bytes = 2 * 1024 * 1024;  // body of the final response
  std::chrono::milliseconds timeout{20000};          // the whole exchange, all hops
  int max_redirects = 3;
  // Operator exceptions to the address guard. Empty by default: only global addresses.
  address_allow_list allow_list;
  bool system_ca = true;          // trust the system CA store
  std::string extra_ca_file;      // PEM bundle trusted in addition (test CAs, private PKI)
  std::string user_agent = "platform-http-executor/0.1";
  // Empty: the system resolver (getaddrinfo on a helper thread, bounded by the deadline).
  // Tests use it to map names to local addresses without DNS.
  host_resolver resolver;
};

// The provider's final answer: any status, after the redirects that were followed.
struct http_exchange {
  http_response response;
  url final_url;
  int redirects = 0;
};

class http_executor {
 public:
  // Fails (code `invalid_tls_config`) when the CA file cannot be loaded.
  static result<std::unique_ptr<http_executor>> create(http_executor_options options);
  ~http_executor();
  http_executor(const http_executor&) = delete;
  http_executor& operator=(const http_executor&) = delete;

  // `domain` is the tool's integration.domain. Thread-safe; blocks up to the timeout.
  [[nodiscard]] tl::expected<http_exchange, integration_tool_result> send(const http_request& request,
                                                                          std::string_view domain) const;

  // send() as the reply: success with the data for 2xx, PROVIDER_HTTP_ERROR for other
  // statuses. `secret_values` (the tool's secrets, the OAuth token) are scrubbed from what the
  // provider sends back, as are the values of the request's credential headers.
  [[nodiscard]] integration_tool_result execute(const http_request& request, std::string_view domain,
                                                const std::vector<std::string>& secret_values = {}) const;

  [[nodiscard]] const http_executor_options& options() const;

 private:
  struct impl;
  explicit http_executor(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

// The system resolver with a deadline: getaddrinfo runs on a detached helper thread, so a hung
// lookup costs a thread until it returns, never the caller's time.
result<std::vector<ip_address>> system_resolve(const std::string& host, std::chrono::milliseconds budget);

}  // namespace platform
