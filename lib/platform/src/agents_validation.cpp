// The rules present_agents applies to agents.json beyond its shape (agents_config.cpp):
// names, uniqueness, builtin tools, endpoint url and domain, methods, headers, placeholders,
// OAuth restrictions and the cross-checks against integration-setup.json. docs/agents-json.md
// explains every rule and code.
#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>

#include "config_reader.hpp"
#include "platform/agents_config.hpp"
#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "platform/code_table.hpp"
#include "platform/integration_setup.hpp"
#include "platform/placeholder.hpp"

namespace platform {
namespace config {
namespace {

using code_row = platform::code_row<code, violation_code_info>;

// The one list of violation codes, in enum order (checked at compile time by code_table).
constexpr code_row code_rows[] = {
    {code::file_missing, {"file_missing", "both", "The file does not exist."}},
    {code::empty_document, {"empty_document", "both", "The file is empty, only whitespace, or `{}`."}},
    {code::invalid_json, {"invalid_json", "both", "The file is not valid JSON."}},
    {code::too_deep, {"too_deep", "both", "The document (100 levels) or an endpoint body (64 levels) nests too deep."}},
    {code::wrong_type, {"wrong_type", "both", "A value has the wrong JSON type."}},
    {code::unknown_field, {"unknown_field", "both", "A field that the format does not define."}},
    {code::missing_field, {"missing_field", "both", "A required field is absent."}},
    {code::empty_value, {"empty_value", "both", "A string that must hold text is empty or only spaces."}},
    {code::duplicate_entry, {"duplicate_entry", "both", "A list of names (dataCollections, scopes, permissions) repeats an entry."}},
    {code::invalid_domain, {"invalid_domain", "both", "A domain is not a bare lower-case host name or IPv4 address."}},
    {code::invalid_key_slug, {"invalid_key_slug", "both", "A keySlug breaks the slug grammar."}},
    {code::invalid_url, {"invalid_url", "both", "A URL is not an absolute http(s) URL with a valid host."}},
    {code::agents_empty, {"agents_empty", "agents.json", "agents is empty and appTools holds no tool."}},
    {code::invalid_agent_id, {"invalid_agent_id", "agents.json", "An agent id breaks the id grammar."}},
    {code::duplicate_agent_id, {"duplicate_agent_id", "agents.json", "Two agents share an id."}},
    {code::invalid_tool_name, {"invalid_tool_name", "agents.json", "A custom tool name breaks the tool name grammar."}},
    {code::duplicate_tool_name, {"duplicate_tool_name", "agents.json", "Two tools of one agent, or two appTools, share a name."}},
    {code::reserved_tool_name, {"reserved_tool_name", "agents.json", "A tool is named report_tool_call_failed."}},
    {code::invalid_tool_type, {"invalid_tool_type", "agents.json", "type is neither custom nor builtin."}},
    {code::unknown_builtin, {"unknown_builtin", "agents.json", "A builtin tool is not WebSearch or WebFetch."}},
    {code::builtin_field_not_allowed, {"builtin_field_not_allowed", "agents.json", "A builtin tool carries integration, endpoint, responseSchema or mockData."}},
    {code::builtin_app_tool, {"builtin_app_tool", "agents.json", "appTools holds a builtin tool."}},
    {code::builtin_beside_custom_tools, {"builtin_beside_custom_tools", "agents.json", "An agent holds custom tools and WebSearch or WebFetch."}},
    {code::too_few_mock_data, {"too_few_mock_data", "agents.json", "A custom tool has fewer than 3 mockData entries."}},
    {code::invalid_method, {"invalid_method", "agents.json", "endpoint.method is not GET, POST, PUT, PATCH or DELETE."}},
    {code::placeholder_in_url_host, {"placeholder_in_url_host", "agents.json", "endpoint.url has a placeholder before its path."}},
    {code::url_host_mismatch, {"url_host_mismatch", "agents.json", "endpoint.url's host is not integration.domain or a subdomain of it."}},
    {code::invalid_header_name, {"invalid_header_name", "agents.json", "A header name is not an HTTP token."}},
    {code::forbidden_header, {"forbidden_header", "agents.json", "A header the executor sets itself (Host, Content-Length, ...)."}},
    {code::duplicate_header, {"duplicate_header", "agents.json", "Two headers differ only in letter case."}},
    {code::invalid_header_value, {"invalid_header_value", "agents.json", "A header value holds a line break or control character."}},
    {code::body_not_allowed, {"body_not_allowed", "agents.json", "A GET endpoint has a body."}},
    {code::placeholder_unclosed, {"placeholder_unclosed", "agents.json", "A `{{` has no closing `}}`."}},
    {code::placeholder_empty, {"placeholder_empty", "agents.json", "A placeholder holds no path: `{{}}`."}},
    {code::placeholder_invalid_path, {"placeholder_invalid_path", "agents.json", "A placeholder path breaks the placeholder grammar."}},
    {code::invalid_placeholder, {"invalid_placeholder", "agents.json", "A placeholder the parser rejects for another reason."}},
    {code::hardcoded_credential, {"hardcoded_credential", "agents.json", "A credential-named header or query parameter holds a literal value."}},
    {code::unsupported_auth_type, {"unsupported_auth_type", "agents.json", "integration.auth.type is not oauth2."}},
    {code::invalid_oauth_identity, {"invalid_oauth_identity", "agents.json", "integration.auth.identity is not triggering_user."}},
    {code::oauth_scopes_empty, {"oauth_scopes_empty", "agents.json", "integration.auth.scopes is an empty array."}},
    {code::oauth_forbidden_placeholder, {"oauth_forbidden_placeholder", "agents.json", "An OAuth tool uses a token or secrets placeholder."}},
    {code::oauth_authorization_header, {"oauth_authorization_header", "agents.json", "An OAuth tool sets an Authorization header."}},
    {code::static_tool_without_secret, {"static_tool_without_secret", "agents.json", "The setup declares secrets for the tool's integration but the endpoint uses none."}},
    {code::undeclared_secret, {"undeclared_secret", "agents.json", "The endpoint uses a secret the setup's matching integration does not declare."}},
    {code::invalid_schedule, {"invalid_schedule", "agents.json", "A routine's triggers.schedule.cron is not a five-field cron expression."}},
    {code::invalid_timezone, {"invalid_timezone", "agents.json", "A routine's triggers.schedule.timezone is not a zone name such as Europe/Paris or UTC."}},
    {code::integrations_empty, {"integrations_empty", "integration-setup.json", "integrations is an empty array."}},
    {code::duplicate_integration, {"duplicate_integration", "integration-setup.json", "Two integrations share domain and keySlug."}},
    {code::duplicate_secret, {"duplicate_secret", "integration-setup.json", "An integration declares a secret name twice."}},
    {code::duplicate_permission_group, {"duplicate_permission_group", "integration-setup.json", "An integration declares a permission group name twice."}},
    {code::invalid_secret_name, {"invalid_secret_name", "integration-setup.json", "A secret name breaks the placeholder name grammar."}},
};

constexpr code_table codes(code_rows, code::invalid_secret_name);

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_host_label(std::string_view l) {
  if (l.empty() || l.size() > 63 || l.front() == '-' || l.back() == '-') return false;
  return std::all_of(l.begin(), l.end(), [](char c) { return is_lower_alnum(c) || c == '-'; });
}

// A lower-case DNS name (one or more labels) or an IPv4 address.
bool is_host(std::string_view h) {
  if (h.empty() || h.size() > 253) return false;
  if (is_ipv4(h)) return true;
  std::size_t start = 0;
  std::string_view last;
  while (true) {
    std::size_t dot = h.find('.', start);
    last = h.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!is_host_label(last)) return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  // An all-digit last label would read as a (broken) IP address.
  return !std::all_of(last.begin(), last.end(), is_ascii_digit);
}

}  // namespace

std::string_view name_of(code c) { return codes.name(c); }

std::optional<code> code_named(std::string_view name) { return codes.named(name); }

bool is_ipv4(std::string_view h) {
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = h.find('.', start);
    auto part = h.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), is_ascii_digit)) return false;
    if (part.size() > 1 && part.front() == '0') return false;
    if (std::stoi(std::string(part)) > 255) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

std::optional<std::string> domain_problem(std::string_view d) {
  std::string example = " (e.g. \"api.acme.com\")";
  if (d.find("://") != std::string_view::npos) return "must be only the host name, without the scheme" + example;
  if (d.find('/') != std::string_view::npos) return "must be only the host name, without a path" + example;
  if (d.find(':') != std::string_view::npos) return "must be only the host name, without a port" + example;
  if (ascii_lower(d) != d) return "must be lower case: " + json_quoted(ascii_lower(d));
  if (!is_host(d)) {
    return "is not a host name: write labels of lower-case letters, digits and `-` joined by dots" + example +
           ", or an IPv4 address; no wildcards";
  }
  return std::nullopt;
}

std::optional<std::string> key_slug_problem(std::string_view slug) {
  bool ok = !slug.empty() && slug.size() <= 64 && is_lower_alnum(slug.front()) &&
            std::all_of(slug.begin(), slug.end(), [](char c) { return is_lower_alnum(c) || c == '-' || c == '_'; });
  if (ok) return std::nullopt;
  return "must be at most 64 lower-case letters, digits, `-` and `_`, starting with a letter or digit (e.g. "
         "\"default\" or \"reporting-key\"), the same slug as in integration-setup.json";
}

bool is_placeholder_name(std::string_view name) {
  if (name.empty() || !(is_alpha(name.front()) || name.front() == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return is_alpha(c) || is_ascii_digit(c) || c == '_' || c == '-'; });
}

namespace {

struct url_head {
  std::string host;  // lower case, without port
  std::string_view after_authority;
};

// Scheme and authority of an absolute http(s) URL; the error says what to change.
tl::expected<url_head, std::string> split_url(std::string_view url) {
  std::string_view rest;
  for (std::string_view scheme : {"https://", "http://"}) {
    if (istarts_with(url, scheme)) {
      rest = url.substr(scheme.size());
      break;
    }
  }
  if (rest.data() == nullptr) {
    return tl::unexpected<std::string>("must be an absolute URL starting with https:// (or http://), e.g. "
                                       "\"https://api.acme.com/v1/items\"");
  }
  std::size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  url_head head;
  head.after_authority = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (authority.find('@') != std::string_view::npos) {
    return tl::unexpected<std::string>("carries user info (`user@`): remove it; credentials go in a header");
  }
  std::string_view host = authority;
  if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    std::string_view port = authority.substr(colon + 1);
    bool ok = !port.empty() && port.size() <= 5 && std::all_of(port.begin(), port.end(), is_ascii_digit) &&
              std::stoi(std::string(port)) >= 1 && std::stoi(std::string(port)) <= 65535;
    if (!ok) return tl::unexpected<std::string>("has an invalid port: write a number from 1 to 65535 or none");
    host = authority.substr(0, colon);
  }
  head.host = ascii_lower(host);
  if (head.host.empty()) return tl::unexpected<std::string>("has no host: write https://<host>/...");
  if (!is_host(head.host)) {
    return tl::unexpected<std::string>("has an invalid host " + json_quoted(host) +
                                       ": write a DNS name such as api.acme.com or an IPv4 address (no IPv6 literals)");
  }
  return head;
}

bool has_space_or_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

}  // namespace

std::optional<std::string> literal_url_problem(std::string_view url) {
  if (url.find("{{") != std::string_view::npos) return "must be a literal URL: remove the placeholder";
  if (has_space_or_control(url)) return "contains a space or control character: percent-encode it (%20)";
  auto head = split_url(url);
  if (!head) return head.error();
  return std::nullopt;
}

namespace {

constexpr std::string_view reserved_name = "report_tool_call_failed";
constexpr std::size_t max_tool_name = 48;  // mcp__app_tools__ + name stays within 64 characters
constexpr std::size_t max_agent_id = 64;
constexpr std::array<std::string_view, 5> allowed_methods{"GET", "POST", "PUT", "PATCH", "DELETE"};
constexpr std::array<std::string_view, 2> builtin_names{"WebSearch", "WebFetch"};
// Framing and routing headers belong to the executor (same list as tool_request.cpp).
constexpr std::array<std::string_view, 9> forbidden_headers{
    "host", "content-length", "transfer-encoding", "connection", "keep-alive",
    "upgrade", "te", "trailer", "proxy-connection"};
// Header and query parameter names (lower case, `-` and `_` dropped) that carry credentials.
constexpr std::array<std::string_view, 16> credential_names{
    "authorization", "proxyauthorization", "apikey", "xapikey", "apitoken", "xapitoken", "authtoken",
    "xauthtoken", "accesstoken", "xaccesstoken", "token", "secret", "clientsecret", "password",
    "key", "subscriptionkey"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool is_credential_name(std::string_view name) {
  std::string key;
  for (char c : ascii_lower(name)) {
    if (c != '-' && c != '_') key += c;
  }
  return contains(credential_names, key);
}

// One endpoint string that may hold placeholders, with its parsed template when it parses.
struct site {
  enum class where { url, header, query, body };
  where w = where::url;
  json_path at;
  std::string name;  // header or query parameter name
  std::string text;
  std::optional<placeholder_template> parsed;
};

// Everything the rules for one tool need to see.
struct tool_view {
  const tool& t;
  const json& node;
  json_path at;
  bool has_auth = false;  // integration.auth present, whatever its type
  bool oauth = false;
  std::vector<site> sites;
};

// ---- names ----

void check_tool_name(const tool& t, const json_path& at, violations& out) {
  if (t.name.empty()) return;
  if (ascii_lower(t.name) == reserved_name) {
    report(out, at.key("name"), code::reserved_tool_name,
           "\"report_tool_call_failed\" is reserved for the platform's failure report tool: choose another name");
    return;
  }
  if (t.type == tool_type::builtin) return;
  if (t.name.rfind("mcp__", 0) == 0) {
    report(out, at.key("name"), code::invalid_tool_name,
           "write the bare tool name: the platform adds the mcp__app_tools__ prefix itself");
  } else if (!is_placeholder_name(t.name) || t.name.size() > max_tool_name) {
    report(out, at.key("name"), code::invalid_tool_name,
           "tool name " + json_quoted(t.name) + " is not allowed: use at most 48 letters, digits, `_` and `-`, "
           "starting with a letter or `_` (e.g. \"crm_search\")");
  }
}

void check_unique_tool_names(const std::vector<tool>& tools, const json_path& at, violations& out) {
  for (std::size_t i = 0; i < tools.size(); ++i) {
    if (tools[i].name.empty()) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (tools[j].name != tools[i].name) continue;
      report(out, at.index(i).key("name"), code::duplicate_tool_name,
             "tool name " + json_quoted(tools[i].name) + " is already used by " + at.index(j).str() +
                 ": give each tool its own name, or merge the two");
      break;
    }
  }
}

void check_agent_ids(const agents_config& c, violations& out) {
  json_path at = json_path().key("agents");
  for (std::size_t i = 0; i < c.agents.size(); ++i) {
    const std::string& id = c.agents[i].id;
    if (id.empty()) continue;
    bool ok = id.size() <= max_agent_id && (is_alpha(id.front()) || is_ascii_digit(id.front())) &&
              std::all_of(id.begin(), id.end(), [](char ch) { return is_alpha(ch) || is_ascii_digit(ch) || ch == '_' || ch == '-'; });
    if (!ok) {
      report(out, at.index(i).key("id"), code::invalid_agent_id,
             "agent id " + json_quoted(id) + " is not allowed: use at most 64 letters, digits, `_` and `-`, starting "
             "with a letter or digit (e.g. \"deal-summarizer\")");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (c.agents[j].id != id) continue;
      report(out, at.index(i).key("id"), code::duplicate_agent_id,
             "agent id " + json_quoted(id) + " is already used by " + at.index(j).str() +
                 ": the app triggers agents by id, so give each agent its own");
      break;
    }
  }
}

// ---- builtin tools ----

void check_builtin(const tool& t, const json_path& at, bool app_tool, violations& out) {
  if (app_tool) {
    report(out, at.key("type"), code::builtin_app_tool,
           "appTools are HTTP actions the app calls; WebSearch and WebFetch can only be given to an agent: move "
           "this tool into an agent's tools (an agent without custom tools), or make it a custom HTTP tool");
  }
  if (t.name.empty() || contains(builtin_names, t.name) || ascii_lower(t.name) == reserved_name) return;
  std::string msg = "builtin tool " + json_quoted(t.name) + " does not exist: builtin tools are only \"WebSearch\" and \"WebFetch\"";
  auto same = std::find_if(builtin_names.begin(), builtin_names.end(), [&](auto b) { return iequals(b, t.name); });
  msg += same != builtin_names.end() ? "; write " + json_quoted(*same) + " (exact case)"
                                     : ". For an HTTP API write a custom tool with integration and endpoint";
  report(out, at.key("name"), code::unknown_builtin, std::move(msg));
}

// Design rule: an agent holding organization (custom HTTP) tools must not also browse the web.
void check_builtin_beside_custom(const agent& a, const json* nodes, const json_path& at, violations& out) {
  std::vector<std::size_t> builtins;
  std::string customs;
  for (std::size_t i = 0; i < a.tools.size(); ++i) {
    if (!is_known_tool_type((*nodes)[i])) continue;
    if (a.tools[i].type == tool_type::builtin) {
      builtins.push_back(i);
    } else if (customs.size() < 200) {
      customs += (customs.empty() ? "" : ", ") + json_quoted(a.tools[i].name);
    }
  }
  if (customs.empty()) return;
  for (std::size_t i : builtins) {
    report(out, at.index(i), code::builtin_beside_custom_tools,
           "this agent holds custom HTTP tools (" + customs + "), so it must not also hold " +
               json_quoted(a.tools[i].name) + ": move web research into a separate agent, or remove this tool");
  }
}

// ---- custom tools: integration ----

void check_integration(const tool_integration& i, const json_path& at, violations& out) {
  if (!i.domain.empty()) {
    if (auto why = domain_problem(i.domain)) report(out, at.key("domain"), code::invalid_domain, "integration.domain " + *why);
  }
  if (!i.key_slug.empty()) {
    if (auto why = key_slug_problem(i.key_slug)) report(out, at.key("keySlug"), code::invalid_key_slug, "keySlug " + *why);
  }
  if (!i.oauth2) return;
  const json_path auth = at.key("auth");
  for (auto [field, url] : {std::pair{"authorizationUrl", &i.oauth2->authorization_url},
                            std::pair{"tokenUrl", &i.oauth2->token_url}}) {
    if (url->empty()) continue;
    if (auto why = literal_url_problem(*url)) report(out, auth.key(field), code::invalid_url, std::string(field) + " " + *why);
  }
}

// ---- custom tools: endpoint ----

void check_method(const std::string& method, const json_path& at, violations& out) {
  if (method.empty() || contains(allowed_methods, method)) return;
  std::string upper = method;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string msg = "method " + json_quoted(method) + " is not allowed: ";
  if (contains(allowed_methods, upper)) {
    msg += "write it in upper case, " + json_quoted(upper);
  } else if (upper == "HEAD" || upper == "OPTIONS") {
    msg += upper + " returns no body for the agent or app to read; use GET";
  } else {
    msg += "use GET, POST, PUT, PATCH or DELETE";
  }
  report(out, at, code::invalid_method, std::move(msg));
}

void check_url(const tool_view& v, const site& url, violations& out) {
  const std::string& text = url.text;
  if (text.empty()) return;
  if (text.rfind("{{", 0) == 0) {
    report(out, url.at, code::placeholder_in_url_host,
           "the scheme and host must be written literally: start the url with https://<integration.domain>/ "
           "and use placeholders only in the path or query");
    return;
  }
  auto scheme_end = text.find("://");
  auto authority_end = text.find_first_of("/?#", scheme_end == std::string::npos ? 0 : scheme_end + 3);
  std::string_view authority = std::string_view(text).substr(0, authority_end);
  if (scheme_end != std::string::npos && authority.find("{{") != std::string_view::npos) {
    report(out, url.at, code::placeholder_in_url_host,
           "a placeholder in the host would let a value choose which server is called: write the host "
           "literally (integration.domain or a subdomain) and use placeholders only in the path or query");
    return;
  }
  auto head = split_url(text);
  if (!head) {
    report(out, url.at, code::invalid_url, "endpoint.url " + head.error());
    return;
  }
  if (text.find('#') != std::string::npos) {
    report(out, url.at, code::invalid_url, "endpoint.url has a fragment (`#...`), which is never sent: remove it");
  }
  if (url.parsed) {
    bool spaces = std::any_of(url.parsed->parts.begin(), url.parsed->parts.end(), [](const auto& p) {
      return !p.is_placeholder && has_space_or_control(p.literal);
    });
    if (spaces) {
      report(out, url.at, code::invalid_url,
             "endpoint.url contains a space or control character: percent-encode it (%20), or move the value to queryParams");
    }
  }
  if (!v.t.integration || v.t.integration->domain.empty() || domain_problem(v.t.integration->domain)) return;
  const std::string& domain = v.t.integration->domain;
  bool sub = !is_ipv4(domain) && head->host.size() > domain.size() &&
             head->host.compare(head->host.size() - domain.size() - 1, std::string::npos, "." + domain) == 0;
  if (head->host != domain && !sub) {
    report(out, url.at, code::url_host_mismatch,
           "the url's host " + json_quoted(head->host) + " is not integration.domain " + json_quoted(domain) +
               " or a subdomain of it: call https://" + domain + "/..., or set integration.domain (and the "
               "domain in integration-setup.json) to the API's host");
  }
}

void check_headers(const tool_view& v, violations& out) {
  const json_path at = v.at.key("endpoint").key("headers");
  std::vector<std::string> seen;
  for (const auto& [name, value] : v.t.endpoint->headers) {
    json_path h = at.key(name);
    std::string low = ascii_lower(name);
    if (name.empty() || !std::all_of(name.begin(), name.end(), is_token_char)) {
      report(out, h, code::invalid_header_name,
             "header name " + json_quoted(name) + " is not a valid HTTP header name: use letters, digits and `-` "
             "(e.g. \"X-Api-Key\"); placeholders are not allowed in names");
    } else if (contains(forbidden_headers, low)) {
      report(out, h, code::forbidden_header,
             "header " + json_quoted(name) + " is set by the platform's HTTP executor: remove it");
    } else if (v.oauth && low == "authorization") {
      report(out, h, code::oauth_authorization_header,
             "OAuth tools must not set Authorization: the platform adds \"Authorization: Bearer <token>\" of the "
             "triggering user's connected account itself. Remove this header");
    }
    if (std::find(seen.begin(), seen.end(), low) != seen.end()) {
      report(out, h, code::duplicate_header,
             "header " + json_quoted(name) + " is already set with different letter case (header names ignore case): keep one");
    }
    seen.push_back(low);
    bool bad_value = std::any_of(value.begin(), value.end(), [](char c) {
      auto u = static_cast<unsigned char>(c);
      return (u < 0x20 && c != '\t') || u == 0x7f;
    });
    if (bad_value) {
      report(out, h, code::invalid_header_value,
             "header value holds a line break or control character: remove it (it could inject headers)");
    }
  }
}

void check_query_names(const tool_view& v, violations& out) {
  const json_path at = v.at.key("endpoint").key("queryParams");
  for (const auto& entry : v.t.endpoint->query_params) {
    if (entry.first.empty() || entry.first.find_first_not_of(' ') == std::string::npos) {
      report(out, at.key(entry.first), code::empty_value,
             "a query parameter needs a name: rename this entry or remove it");
    }
  }
}

void check_body(const tool_view& v, violations& out) {
  const json_path at = v.at.key("endpoint").key("body");
  auto ep = v.node.find("endpoint");
  if (ep == v.node.end() || !ep->is_object()) return;
  auto body = ep->find("body");
  if (body == ep->end() || body->is_null()) return;
  if (ascii_lower(v.t.endpoint->method) == "get") {
    report(out, at, code::body_not_allowed,
           "a GET request carries no body: move the values to queryParams, or use POST if the API expects a body");
  }
  if (deeper_than(*body, max_body_depth)) {
    report(out, at, code::too_deep, "endpoint.body nests deeper than 64 levels: flatten it");
  }
}

// ---- placeholders ----

void collect_body_sites(const json& v, const json_path& at, std::vector<site>& out) {
  if (v.is_string()) {
    out.push_back(site{site::where::body, at, {}, v.get<std::string>(), std::nullopt});
  } else if (v.is_object()) {
    for (const auto& [k, child] : v.items()) collect_body_sites(child, at.key(k), out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) collect_body_sites(v[i], at.index(i), out);
  }
}

std::vector<site> endpoint_sites(const tool_view& v) {
  std::vector<site> sites;
  const json_path ep = v.at.key("endpoint");
  const tool_endpoint& e = *v.t.endpoint;
  sites.push_back(site{site::where::url, ep.key("url"), {}, e.url, std::nullopt});
  for (const auto& [name, value] : e.headers) {
    sites.push_back(site{site::where::header, ep.key("headers").key(name), name, value, std::nullopt});
  }
  for (const auto& [name, value] : e.query_params) {
    sites.push_back(site{site::where::query, ep.key("queryParams").key(name), name, value, std::nullopt});
  }
  auto node = v.node.find("endpoint");
  if (node != v.node.end() && node->is_object()) {
    auto body = node->find("body");
    if (body != node->end() && !deeper_than(*body, max_body_depth)) collect_body_sites(*body, ep.key("body"), sites);
  }
  return sites;
}

void parse_sites(std::vector<site>& sites, violations& out) {
  for (auto& s : sites) {
    auto t = parse_placeholder_template(s.text);
    if (t) {
      s.parsed = std::move(*t);
      continue;
    }
    code c = code_named(code_name(t.error())).value_or(code::invalid_placeholder);
    if (c != code::placeholder_unclosed && c != code::placeholder_empty && c != code::placeholder_invalid_path) {
      c = code::invalid_placeholder;
    }
    report(out, s.at, c,
           t.error().message + ". Write {{field}} (or {{a.b}}) for tool input and {{secrets.NAME}} for a "
           "secret; names use letters, digits, `_` and `-`");
  }
}

std::string written(const placeholder& p) {
  return "{{" + std::string(p.k == placeholder::kind::secret ? "secrets." : "") + p.path + "}}";
}

bool is_token_placeholder(const placeholder& p) {
  if (p.k == placeholder::kind::secret) return true;
  std::string path = ascii_lower(p.path);
  return path == "access_token" || path == "token" || ascii_lower(p.steps.front()) == "oauth";
}

void check_oauth_placeholders(const tool_view& v, violations& out) {
  for (const auto& s : v.sites) {
    if (!s.parsed) continue;
    for (const auto& p : s.parsed->placeholders()) {
      if (!is_token_placeholder(p)) continue;
      report(out, s.at, code::oauth_forbidden_placeholder,
             "OAuth tools must not use " + written(p) + ": the platform injects the triggering user's "
             "access token as an Authorization header itself. Remove the placeholder (and its header, if it "
             "only carried the token)");
    }
  }
}

void check_hardcoded_credentials(const tool_view& v, violations& out) {
  for (const auto& s : v.sites) {
    if (s.w != site::where::header && s.w != site::where::query) continue;
    if (!s.parsed || !s.parsed->placeholders().empty() || !is_credential_name(s.name)) continue;
    if (s.text.find_first_not_of(' ') == std::string::npos) continue;
    if (v.oauth && ascii_lower(s.name) == "authorization") continue;  // reported as oauth_authorization_header
    report(out, s.at, code::hardcoded_credential,
           json_quoted(s.name) + " holds a literal value that looks like a credential; agents.json is shown to "
           "reviewers and stored with the app, so never put keys in it. Write {{secrets.NAME}} here and declare "
           "NAME in integration-setup.json" + std::string(v.oauth ? " (or, for this OAuth tool, remove it)" : ""));
  }
}

std::string secret_names(const setup_integration& entry) {
  std::string out;
  for (const auto& s : entry.secrets) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

// With integration-setup.json at hand, its entry for (domain, keySlug) says whether the tool
// is static (the entry declares secrets) and which secrets exist.
void check_against_setup(const tool_view& v, const integration_setup& setup, violations& out) {
  const tool_integration& i = *v.t.integration;
  const setup_integration* entry = setup.find_integration(i.domain, i.key_slug);
  if (entry == nullptr) return;
  std::string where = "integration-setup.json's entry for " + json_quoted(i.domain) + " (keySlug " + json_quoted(i.key_slug) + ")";
  bool any_secret = false;
  for (const auto& s : v.sites) {
    if (!s.parsed) continue;
    for (const auto& p : s.parsed->placeholders()) {
      if (p.k != placeholder::kind::secret) continue;
      any_secret = true;
      if (entry->find_secret(p.path) != nullptr) continue;
      report(out, s.at, code::undeclared_secret,
             "{{secrets." + p.path + "}} is not declared in " + where +
                 (entry->secrets.empty() ? std::string(", which declares no secrets")
                                         : ", which declares: " + secret_names(*entry)) +
                 ". Use a declared name, or add " + json_quoted(p.path) + " to that entry's secrets");
    }
  }
  if (!entry->secrets.empty() && !any_secret) {
    report(out, v.at.key("endpoint"), code::static_tool_without_secret,
           where + " declares secrets (" + secret_names(*entry) +
               "), so this is a static-secret tool, but its endpoint uses none: put {{secrets." +
               entry->secrets.front().name + "}} where the provider expects the key (e.g. a header such as "
               "\"X-Api-Key\" or \"Authorization\": \"Bearer {{secrets." + entry->secrets.front().name + "}}\")");
  }
}

void check_custom(const tool& t, const json& node, const json_path& at, const integration_setup* setup,
                  violations& out) {
  tool_view v{t, node, at, false, false, {}};
  auto integration = node.find("integration");
  if (integration != node.end() && integration->is_object()) {
    v.has_auth = integration->contains("auth");
    if (t.integration) check_integration(*t.integration, at.key("integration"), out);
  }
  v.oauth = t.integration && t.integration->oauth2;
  if (!t.endpoint) return;
  check_method(t.endpoint->method, at.key("endpoint").key("method"), out);
  v.sites = endpoint_sites(v);
  parse_sites(v.sites, out);
  check_url(v, v.sites.front(), out);
  check_headers(v, out);
  check_query_names(v, out);
  check_body(v, out);
  if (v.oauth) check_oauth_placeholders(v, out);
  check_hardcoded_credentials(v, out);
  if (!v.has_auth && setup != nullptr && t.integration && !t.integration->domain.empty()) {
    check_against_setup(v, *setup, out);
  }
}

void check_tool_list(const std::vector<tool>& tools, const json* nodes, const json_path& at, bool app_tools,
                     const integration_setup* setup, violations& out) {
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const json& node = (*nodes)[i];
    if (!is_known_tool_type(node)) continue;
    check_tool_name(tools[i], at.index(i), out);
    if (tools[i].type == tool_type::builtin) {
      check_builtin(tools[i], at.index(i), app_tools, out);
    } else {
      check_custom(tools[i], node, at.index(i), setup, out);
    }
  }
  check_unique_tool_names(tools, at, out);
}

const json* array_field(const json& obj, std::string_view name) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(name);
  return it != obj.end() && it->is_array() ? &*it : nullptr;
}

void check_rules(const agents_config& c, const json& doc, const integration_setup* setup, violations& out) {
  const json* agents = array_field(doc, "agents");
  if (agents != nullptr && agents->empty() && c.app_tools.empty()) {
    report(out, json_path().key("agents"), code::agents_empty,
           "agents is empty and appTools lists no tool: add an agent, or add the app's HTTP actions to appTools");
  }
  check_agent_ids(c, out);
  for (std::size_t i = 0; agents != nullptr && i < c.agents.size(); ++i) {
    const json* tools = array_field((*agents)[i], "tools");
    if (tools == nullptr) continue;
    json_path at = json_path().key("agents").index(i).key("tools");
    check_tool_list(c.agents[i].tools, tools, at, false, setup, out);
    check_builtin_beside_custom(c.agents[i], tools, at, out);
  }
  if (const json* app_tools = array_field(doc, "appTools")) {
    check_tool_list(c.app_tools, app_tools, json_path().key("appTools"), true, setup, out);
  }
}

// Reports read best grouped by where they point: document, then agents (each agent, then its
// tools in order), then appTools. The sort is stable, so shape problems stay before rule ones.
std::tuple<int, long, long> location(const std::string& path) {
  auto number_after = [&](std::string_view prefix, std::size_t from) -> std::pair<long, std::size_t> {
    if (from > path.size() || path.compare(from, prefix.size(), prefix) != 0) return {-1, from};
    std::size_t i = from + prefix.size();
    long n = 0;
    while (i < path.size() && is_ascii_digit(path[i])) n = n * 10 + (path[i++] - '0');
    return {n, i + 1};
  };
  if (path.rfind("agents[", 0) == 0) {
    auto [agent, next] = number_after("agents[", 0);
    return {1, agent, number_after(".tools[", next).first};
  }
  if (path.rfind("appTools[", 0) == 0) return {2, number_after("appTools[", 0).first, -1};
  if (path.rfind("appTools", 0) == 0) return {2, -1, -1};
  if (path.rfind("agents", 0) == 0) return {1, -1, -1};
  return {0, -1, -1};
}

}  // namespace
}  // namespace config

agents_config_report validate_agents_config(std::string_view json_text, const integration_setup* setup) {
  agents_config_report r;
  auto doc = config::parse_document(json_text, "agents.json", R"({"agents": [...], "appTools": [...]})", r.problems);
  if (!doc) return r;
  auto cfg = config::read_agents_config(*doc, r.problems);
  config::check_rules(cfg, *doc, setup, r.problems);
  std::stable_sort(r.problems.begin(), r.problems.end(), [](const violation& a, const violation& b) {
    return config::location(a.path) < config::location(b.path);
  });
  if (r.problems.empty()) r.config = std::move(cfg);
  return r;
}

agents_config_report agents_config_missing() {
  agents_config_report r;
  config::report(r.problems, json_path(), config::code::file_missing,
                 "agents.json does not exist: write it in the workspace root with {\"agents\": [...]} and call "
                 "present_agents again");
  return r;
}

std::span<const violation_code_info> config_violation_codes() { return config::codes.rows(); }

}  // namespace platform
