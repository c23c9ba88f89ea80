#include "platform/integration_error.hpp"

#include "platform/code_table.hpp"

namespace platform {
namespace {

using integration_row = code_row<integration_error, integration_error_info>;

// clang-format off
constexpr integration_row integration_rows[] = {
    {integration_error::invalid_url, {"INVALID_URL", error_category::spec, false, "Fix the tool's endpoint url in agents.json and present the agents again."}},
    {integration_error::invalid_request, {"INVALID_REQUEST", error_category::spec, false, "Fix the tool's method or headers in agents.json and present the agents again."}},
    {integration_error::placeholder_in_host, {"PLACEHOLDER_IN_HOST", error_category::spec, false, {}}},
    {integration_error::invalid_method, {"INVALID_METHOD", error_category::spec, false, {}}},
    {integration_error::invalid_header_name, {"INVALID_HEADER_NAME", error_category::spec, false, {}}},
    {integration_error::invalid_header_value, {"INVALID_HEADER_VALUE", error_category::spec, false, {}}},
    {integration_error::forbidden_header, {"FORBIDDEN_HEADER", error_category::spec, false, {}}},
    {integration_error::authorization_header_not_allowed, {"AUTHORIZATION_HEADER_NOT_ALLOWED", error_category::spec, false, {}}},
    {integration_error::duplicate_header, {"DUPLICATE_HEADER", error_category::spec, false, {}}},
    {integration_error::invalid_placeholder, {"INVALID_PLACEHOLDER", error_category::spec, false, {}}},
    {integration_error::invalid_body, {"INVALID_BODY", error_category::spec, false, {}}},
    {integration_error::body_not_allowed, {"BODY_NOT_ALLOWED", error_category::spec, false, {}}},
    {integration_error::not_a_custom_tool, {"NOT_A_CUSTOM_TOOL", error_category::spec, false, {}}},
    {integration_error::mock_data_missing, {"MOCK_DATA_MISSING", error_category::spec, false, {}}},
    {integration_error::invalid_input, {"INVALID_INPUT", error_category::input, false, {}}},
    {integration_error::missing_input, {"MISSING_INPUT", error_category::input, false, {}}},
    {integration_error::unexpected_input, {"UNEXPECTED_INPUT", error_category::input, false, {}}},
    {integration_error::invalid_secret, {"INVALID_SECRET", error_category::configuration, false, {}}},
    {integration_error::missing_secret, {"MISSING_SECRET", error_category::configuration, false, {}}},
    {integration_error::missing_access_token, {"MISSING_ACCESS_TOKEN", error_category::credentials, false, {}}},
    {integration_error::invalid_access_token, {"INVALID_ACCESS_TOKEN", error_category::credentials, false, {}}},
    {integration_error::scheme_not_allowed, {"SCHEME_NOT_ALLOWED", error_category::guard, false, "Only http and https endpoints can be called, and a redirect may not leave https."}},
    {integration_error::host_not_allowed, {"HOST_NOT_ALLOWED", error_category::guard, false, "Requests and redirects may only go to the integration's domain or its subdomains."}},
    {integration_error::address_not_allowed, {"ADDRESS_NOT_ALLOWED", error_category::guard, false,
        "The host resolves to an internal or reserved address, which HTTP actions may not reach. "
        "An operator can allow a local mock provider explicitly."}},
    {integration_error::dns_failed, {"DNS_FAILED", error_category::network, true, "The host name could not be resolved: check the integration's domain, or try again later."}},
    {integration_error::connect_failed, {"CONNECT_FAILED", error_category::network, true, "The provider could not be reached: try again later."}},
    {integration_error::connection_lost, {"CONNECTION_LOST", error_category::network, true, "The connection to the provider broke before the answer was complete: try again."}},
    {integration_error::tls_failed, {"TLS_FAILED", error_category::network, false,
        "The provider's TLS certificate could not be verified for its host name: check the domain, or ask the "
        "provider to fix its certificate."}},
    {integration_error::timeout, {"TIMEOUT", error_category::timeout, true, "The provider did not answer in time: try again later, or ask for less data."}},
    {integration_error::url_too_long, {"URL_TOO_LONG", error_category::limit, false, {}}},
    {integration_error::response_too_large, {"RESPONSE_TOO_LARGE", error_category::limit, false, "The response is larger than the limit: ask the provider for less data (filters, fields, paging)."}},
    {integration_error::too_many_redirects, {"TOO_MANY_REDIRECTS", error_category::limit, false, "The provider redirected too often: point the endpoint at the final URL."}},
    {integration_error::invalid_provider_response, {"INVALID_PROVIDER_RESPONSE", error_category::provider, false, "The provider's answer could not be read: try again later, or report it to the provider."}},
    {integration_error::provider_unauthorized, {"PROVIDER_UNAUTHORIZED", error_category::credentials, false, {}}},
    {integration_error::provider_forbidden, {"PROVIDER_FORBIDDEN", error_category::permission, false, {}}},
    {integration_error::provider_http_error, {"PROVIDER_HTTP_ERROR", error_category::provider, false, {}}},
    {integration_error::credentials_unavailable, {"CREDENTIALS_UNAVAILABLE", error_category::internal, false, {}}},
    {integration_error::internal_error, {"INTERNAL_ERROR", error_category::internal, false, "Try again; tell the operator if it keeps failing."}},
};
// clang-format on

constexpr code_table integration_codes(integration_rows, integration_error::internal_error);

}  // namespace

const integration_error_info& info_of(integration_error e) { return integration_codes[e]; }

std::optional<integration_error> integration_error_named(std::string_view code) { return integration_codes.named(code); }

std::span<const integration_error_info> integration_error_table() { return integration_codes.rows(); }

}  // namespace platform
