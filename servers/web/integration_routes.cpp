// Glue for the integration settings, the OAuth connect flow and the builder's internal routes.
// The rules live in the integration store (app-scoped grants, sealed values) and in
// integration_credentials.cpp (what a tool call may use); here: who may ask, and metadata only.
#include "integration_routes.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "access.hpp"
#include "auth.hpp"
#include "chat_service.hpp"
#include "governed_agents.hpp"
#include "http.hpp"
#include "oauth_token.hpp"
#include "platform/api_error.hpp"
#include "platform/base64.hpp"
#include "platform/ids.hpp"
#include "platform/integration_setup.hpp"
#include "platform/oauth_return.hpp"
#include "platform/url.hpp"
#include "web_app.hpp"
#include "../common/json_fields.hpp"

namespace platform::web::integration_routes {

using nlohmann::json;

namespace {

constexpr std::int64_t connect_state_ttl_ms = 10 * 60 * 1000;
constexpr std::size_t max_secret_bytes = 16 * 1024;
constexpr std::string_view callback_path = "/api/integrations/oauth/callback";
// This browser's latest connect attempt: its page and state (platform/oauth_return.hpp). Sent only
// to the callback, on the top-level navigation back from the provider (Lax).
constexpr std::string_view attempt_cookie = "platform_oauth_attempt";

bool valid_name(std::string_view s, std::size_t max) {
  return !s.empty() && s.size() <= max && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

using servers::string_field;

// ---- metadata (never a value) --------------------------------------------------------------------

json secret_meta(const json& declared, const std::set<std::string>& configured) {
  json s = {{"name", declared.value("name", "")}, {"required", declared.value("required", true)}};
  for (const char* k : {"label", "description"}) {
    if (declared.contains(k)) s[k] = declared[k];
  }
  s["configured"] = configured.contains(s["name"].get<std::string>());
  return s;
}

// One integration: what the builder required (if it did) merged with what this app's grant holds.
json integration_meta(const integration_requirement* req, const grant_summary* grant) {
  std::set<std::string> configured;
  if (grant) configured.insert(grant->secret_names.begin(), grant->secret_names.end());
  json setup = req ? servers::parse_json_within(req->setup_json) : json::object();
  if (!setup.is_object()) setup = json::object();
  json e = {{"name", req ? req->name : grant->domain},
            {"domain", req ? req->domain : grant->domain},
            {"keySlug", req ? req->key_slug : grant->key_slug},
            {"required", req != nullptr}};
  for (const char* k : {"keyName", "capabilityLabel", "why", "permissionGroups", "setupInstructions"}) {
    if (setup.contains(k)) e[k] = setup[k];
  }
  json secrets = json::array();
  std::set<std::string> listed;
  for (const auto& d : setup.value("secrets", json::array())) {
    secrets.push_back(secret_meta(d, configured));
    listed.insert(d.value("name", ""));
  }
  for (const auto& name : configured) {
    if (!listed.contains(name)) secrets.push_back({{"name", name}, {"required", false}, {"configured", true}});
  }
  bool ready = std::all_of(secrets.begin(), secrets.end(),
                           [](const json& s) { return !s["required"].get<bool>() || s["configured"].get<bool>(); });
  e["secrets"] = secrets;
  e["configured"] = ready && (grant != nullptr || secrets.empty());
  return e;
}

// Scopes the app's draft agents.json asks of each OAuth provider.
std::map<std::string, std::set<std::string>> oauth_scopes_of_app(web_app& app, const std::string& ws,
                                                                 const std::string& app_id) {
  std::map<std::string, std::set<std::string>> out;
  auto view = load_agents(app, ws, app_id, source_scope::draft);
  if (!view || !view->config) return out;
  auto add = [&](const std::vector<tool>& tools) {
    for (const auto& t : tools) {
      if (t.integration && t.integration->oauth2) {
        auto& scopes = out[t.integration->oauth2->provider_key];
        scopes.insert(t.integration->oauth2->scopes.begin(), t.integration->oauth2->scopes.end());
      }
    }
  };
  add(view->config->app_tools);
  for (const auto& a : view->config->agents) add(a.tools);
  return out;
}

// `user_id` set: `connected` is that user's; unset (the builder): how many users connected.
result<json> oauth_meta(web_app& app, const std::string& ws, const std::string& app_id, const std::string* user_id) {
  auto providers = app.db.integrations().provider_summaries(ws);
  if (!providers) return tl::unexpected(providers.error());
  auto accounts = app.db.integrations().account_summaries(ws, app_id);
  if (!accounts) return tl::unexpected(accounts.error());
  auto wanted = oauth_scopes_of_app(app, ws, app_id);
  for (const auto& p : *providers) wanted[p.provider_key];
  json out = json::array();
  for (const auto& [key, scopes] : wanted) {
    bool configured = std::any_of(providers->begin(), providers->end(), [&](const auto& p) { return p.provider_key == key; });
    json e = {{"providerKey", key}, {"configured", configured}, {"requiredScopes", scopes}};
    int users = 0;
    bool mine = false;
    json granted = json::array();
    for (const auto& a : *accounts) {
      if (a.key.provider_key != key || a.revoked) continue;
      ++users;
      if (user_id && a.key.user_id == *user_id && !mine) {
        mine = true;
        granted = a.tokens.scopes;
      }
    }
    if (user_id) {
      e["connected"] = mine;
      e["grantedScopes"] = granted;
    } else {
      e["connectedUsers"] = users;
    }
    out.push_back(e);
  }
  return out;
}

result<json> integrations_metadata(web_app& app, const std::string& ws, const std::string& app_id,
                                   const std::string* user_id) {
  auto reqs = app.db.integrations().requirements(ws, app_id);
  if (!reqs) return tl::unexpected(reqs.error());
  auto grants = app.db.integrations().grants(ws, app_id);
  if (!grants) return tl::unexpected(grants.error());
  json list = json::array();
  auto grant_of = [&](const std::string& d, const std::string& k) -> const grant_summary* {
    auto it = std::find_if(grants->begin(), grants->end(), [&](const auto& g) { return g.domain == d && g.key_slug == k; });
    return it == grants->end() ? nullptr : &*it;
  };
  for (const auto& r : *reqs) list.push_back(integration_meta(&r, grant_of(r.domain, r.key_slug)));
  for (const auto& g : *grants) {
    bool required = std::any_of(reqs->begin(), reqs->end(),
                                [&](const auto& r) { return r.domain == g.domain && r.key_slug == g.key_slug; });
    if (!required) list.push_back(integration_meta(nullptr, &g));
  }
  auto oauth = oauth_meta(app, ws, app_id, user_id);
  if (!oauth) return tl::unexpected(oauth.error());
  return json({{"integrations", list}, {"oauth", *oauth}});
}

}  // namespace

// ---- settings ------------------------------------------------------------------------------------

// Admin and owner manage the workspace's credentials; the app's creator may look (it needs to
// know what its app still lacks), never write (the rows' role rules).
void list_integrations(web_app& app, const route_call& call, httplib::Response& res) {
  auto meta = integrations_metadata(app, call.app->workspace_id, call.app->id, &call.by->who.user_id);
  if (!meta) return send(res, meta.error());
  send_json(res, 200, meta->dump());
}

namespace {

result<grant_key> grant_from(const std::string& ws, const std::string& app_id, std::string domain, std::string slug) {
  if (slug.empty()) slug = "default";
  if (!valid_name(domain, 253) || !valid_name(slug, 128)) {
    return fail(api_error::invalid_body, "domain and keySlug must be non-empty names (letters, digits, . _ -)");
  }
  return grant_key{ws, app_id, std::move(domain), std::move(slug)};
}

}  // namespace

void put_secret(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  const path_ids& ids = call.ids;
  auto grant = grant_from(ids[0], ids[1], string_field(body, "domain"), string_field(body, "keySlug"));
  if (!grant) return send(res, grant.error());
  std::string name = string_field(body, "name");
  if (!valid_name(name, 128) || !body.contains("value") || !body["value"].is_string() ||
      body["value"].get_ref<const std::string&>().empty() || body["value"].get_ref<const std::string&>().size() > max_secret_bytes) {
    return send(res, api_error::invalid_body, "needs name (letters, digits, _ -) and a non-empty string value of at most 16 KiB");
  }
  auto put = app.db.integrations().put_secret(*grant, name, body["value"].get_ref<const std::string&>(), now_ms());
  if (!put) return send(res, put.error());
  send_json(res, 200, json({{"ok", true}, {"domain", grant->domain}, {"keySlug", grant->key_slug}, {"name", name},
                            {"configured", true}}).dump());
}

void delete_secret(web_app& app, const route_call& call, httplib::Response& res) {
  const httplib::Request& req = call.req;
  const path_ids& ids = call.ids;
  auto grant = grant_from(ids[0], ids[1], req.get_param_value("domain"), req.get_param_value("keySlug"));
  if (!grant) return send(res, grant.error());
  auto gone = app.db.integrations().delete_secret(*grant, req.get_param_value("name"));
  if (!gone) return send(res, gone.error());
  if (!*gone) return send(res, api_error::not_found, "no such secret in this app's grant");
  send_json(res, 200, json({{"ok", true}, {"deleted", true}}).dump());
}

void list_providers(web_app& app, const route_call& call, httplib::Response& res) {
  auto list = app.db.integrations().provider_summaries(call.ids[0]);
  if (!list) return send(res, list.error());
  json out = json::array();
  for (const auto& p : *list) {
    out.push_back({{"providerKey", p.provider_key}, {"clientId", p.client_id}, {"authorizationUrl", p.authorization_url},
                   {"tokenUrl", p.token_url}, {"clientSecretConfigured", true}});
  }
  send_json(res, 200, json({{"providers", out}}).dump());
}

void put_provider(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  const path_ids& ids = call.ids;
  oauth_provider_config p{ids[0], ids[1], string_field(body, "clientId"), string_field(body, "clientSecret"),
                          string_field(body, "authorizationUrl"), string_field(body, "tokenUrl"), now_ms()};
  if (p.client_id.empty() || p.client_secret.empty() || !parse_url(p.authorization_url) || !parse_url(p.token_url)) {
    return send(res, api_error::invalid_body, "needs clientId, clientSecret, and http(s) authorizationUrl and tokenUrl");
  }
  auto put = app.db.integrations().put_provider(p);
  if (!put) return send(res, put.error());
  send_json(res, 200, json({{"ok", true}, {"providerKey", p.provider_key}, {"configured", true}}).dump());
}

void delete_provider(web_app& app, const route_call& call, httplib::Response& res) {
  auto gone = app.db.integrations().delete_provider(call.ids[0], call.ids[1]);
  if (!gone) return send(res, gone.error());
  if (!*gone) return send(res, api_error::not_found, "no such OAuth provider in this workspace");
  send_json(res, 200, json({{"ok", true}, {"deleted", true}}).dump());
}

// ---- OAuth connect -------------------------------------------------------------------------------

namespace {

// RFC 7636 S256: base64url(SHA-256(verifier)) without padding.
std::string pkce_challenge(const std::string& verifier) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(verifier.data(), verifier.size(), digest, &size, EVP_sha256(), nullptr);
  return base64url_encode(std::string_view(reinterpret_cast<const char*>(digest), size));
}

std::string callback_url(web_app& app, const httplib::Request& req) {
  std::string origin = app.cfg.web_url.empty() ? "http://" + req.get_header_value("Host") : app.cfg.web_url;
  while (!origin.empty() && origin.back() == '/') origin.pop_back();
  return origin + std::string(callback_path);
}

std::vector<std::string> requested_scopes(web_app& app, const httplib::Request& req, const path_ids& ids) {
  std::vector<std::string> out;
  if (req.has_param("scope")) {
    std::string s = req.get_param_value("scope");
    for (std::size_t i = 0; i < s.size();) {
      auto end = std::min(s.find(' ', i), s.size());
      if (end > i) out.push_back(s.substr(i, end - i));
      i = end + 1;
    }
    return out;
  }
  auto wanted = oauth_scopes_of_app(app, ids[0], ids[1]);
  if (auto it = wanted.find(ids[2]); it != wanted.end()) out.assign(it->second.begin(), it->second.end());
  return out;
}

// Any member connects their own account: OAuth app actions act as the current viewer.
void connect_start(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids,
                   oauth_attempt& attempt) {
  auto c = authorize(app, req, res, ids[0]);
  if (!c || !load_app(app, ids[0], ids[1], res)) return;
  auto provider = app.db.integrations().get_provider(ids[0], ids[2]);
  if (!provider) return send(res, provider.error());
  if (!*provider) return send(res, api_error::not_found, "OAuth provider " + ids[2] + " is not configured for this workspace");
  oauth_connect_state st{random_id(32), ids[0], req.get_param_value("workspaceWide") == "1" ? "" : ids[1], ids[2],
                         c->who.user_id, random_id(32), callback_url(app, req), requested_scopes(app, req, ids),
                         now_ms() + connect_state_ttl_ms};
  if (auto put = app.db.integrations().put_connect_state(st); !put) return send(res, put.error());
  attempt.state = st.state;
  std::string scope;
  for (const auto& s : st.scopes) scope += (scope.empty() ? "" : " ") + s;
  const auto& auth_url = (*provider)->authorization_url;
  std::string location = auth_url + (auth_url.find('?') == std::string::npos ? "?" : "&") +
                         "response_type=code&client_id=" + form_encode((*provider)->client_id) +
                         "&redirect_uri=" + form_encode(st.redirect_uri) + "&scope=" + form_encode(scope) +
                         "&state=" + st.state + "&code_challenge=" + pkce_challenge(st.code_verifier) +
                         "&code_challenge_method=S256";
  res.set_header("Cache-Control", "no-store");
  res.set_redirect(location, 302);
}

// The state is consumed before anything else, so a replayed or forged callback finds nothing;
// it must come back to the user who started it (CSRF: another user's browser cannot finish it).
// `who` is the signed-in caller, or nullptr when the attempt cookie vouches that this is the
// browser that started the attempt (then its user is the attempt's). From then on the state,
// being the caller's, names the page to go back to.
result<oauth_connect_state> callback_state(web_app& app, const httplib::Request& req, const identity* who,
                                           std::optional<oauth_attempt>& back) {
  auto st = app.db.integrations().take_connect_state(req.get_param_value("state"), now_ms());
  if (!st) return tl::unexpected(st.error());
  if (!*st) return fail(api_error::invalid_state, "unknown, used or expired OAuth state: start connecting again");
  if (who && (*st)->user_id != who->user_id) return fail(api_error::forbidden, "this connect attempt belongs to another user");
  back = oauth_attempt{(*st)->workspace_id, (*st)->app_id, (*st)->provider_key, (*st)->state};
  if (auto answer = check_provider_answer(req.get_param_value("error"), req.get_param_value("code")); !answer) {
    return tl::unexpected(answer.error());
  }
  return std::move(**st);
}

// Signed in, the caller finishes it; without a sign-in (a provider on another site brings the
// browser back without the SameSite=Strict session cookie), the browser whose attempt cookie
// holds this state.
void connect_callback(web_app& app, const httplib::Request& req, httplib::Response& res,
                      std::optional<oauth_attempt>& back) {
  auto who = app.auth.identity_of(req);
  if (!who && !(back && is_this_browsers_attempt(*back, req.get_param_value("state")))) {
    return send(res, who.error());
  }
  auto st = callback_state(app, req, who ? &*who : nullptr, back);
  if (!st) return send(res, st.error());
  if (!member_role(app.db, st->workspace_id, who ? *who : identity{st->user_id, {}, {}}, res)) return;
  auto provider = app.db.integrations().get_provider(st->workspace_id, st->provider_key);
  if (!provider) return send(res, provider.error());
  if (!*provider) return send(res, api_error::not_found, "the OAuth provider was removed meanwhile");
  auto tokens = exchange_code(app, **provider, req.get_param_value("code"), st->code_verifier, st->redirect_uri,
                              st->scopes, now_ms());
  if (!tokens) return send(res, tokens.error());
  oauth_account_key key{st->workspace_id, st->app_id, st->provider_key, st->user_id};
  if (auto put = app.db.integrations().put_account(key, *tokens, now_ms()); !put) return send(res, put.error());
  send_json(res, 200, json({{"ok", true}, {"providerKey", key.provider_key}, {"appId", key.app_id}, {"connected", true},
                            {"grantedScopes", tokens->scopes}}).dump());
}

// ---- the same two routes for a person's browser (platform/oauth_return.hpp) ----------------------

bool is_navigation(const httplib::Request& req) {
  return is_page_navigation(req.get_header_value("Sec-Fetch-Mode"), req.get_header_value("Accept"));
}

// What the handler wrote for a program becomes a 303 to the page; a failure's code is the one
// in the error body it wrote, whichever check wrote it (sign-in, membership, store, provider).
void send_to_page(httplib::Response& res, const std::optional<oauth_attempt>& back) {
  std::string location;
  if (res.status == 200 && back) {
    location = connected_location(*back);
  } else {
    json body = servers::parse_json_within(res.body);
    location = failure_location(back, string_field(servers::member(body, "error"), "code"));
  }
  res.body.clear();
  res.headers.erase("Content-Type");
  res.set_header("Cache-Control", "no-store");
  res.set_redirect(location, 303);
}

void set_attempt_cookie(httplib::Response& res, const std::string& value, std::int64_t max_age_s, bool secure) {
  res.set_header("Set-Cookie", std::string(attempt_cookie) + "=" + value + "; Path=" + std::string(callback_path) +
                                   "; HttpOnly; SameSite=Lax; Max-Age=" + std::to_string(max_age_s) +
                                   (secure ? "; Secure" : ""));
}

}  // namespace

// Its own preamble (access::anyone in the table): a person's browser is sent back to the page
// whatever refused it, sign-in and membership included.
void connect_start_route(web_app& app, const route_call& call, httplib::Response& res) {
  const httplib::Request& req = call.req;
  const path_ids& ids = call.ids;
  oauth_attempt attempt{ids[0], ids[1], ids[2], {}};
  connect_start(app, req, res, ids, attempt);
  if (!attempt.state.empty()) {
    set_attempt_cookie(res, to_cookie_value(attempt), connect_state_ttl_ms / 1000, secure_cookies(app, req));
  } else if (is_navigation(req)) {
    send_to_page(res, attempt);
  }
}

void connect_callback_route(web_app& app, const route_call& call, httplib::Response& res) {
  const httplib::Request& req = call.req;
  std::optional<oauth_attempt> back = parse_oauth_attempt(cookie_of(req, attempt_cookie));
  connect_callback(app, req, res, back);
  forget_oauth_attempt(res);  // whatever happened, the attempt is over
  if (is_navigation(req)) send_to_page(res, back);
}

void disconnect(web_app& app, const route_call& call, httplib::Response& res) {
  const path_ids& ids = call.ids;
  std::string app_id = call.req.get_param_value("workspaceWide") == "1" ? "" : ids[1];
  auto gone = app.db.integrations().revoke_account({ids[0], app_id, ids[2], call.by->who.user_id}, now_ms());
  if (!gone) return send(res, gone.error());
  if (!*gone) return send(res, api_error::not_found, "no connected account for this provider");
  send_json(res, 200, json({{"ok", true}, {"connected", false}}).dump());
}

// ---- internal (worker → web) ---------------------------------------------------------------------

namespace {

// The builder run named by the body, in its own app: the worker speaks for that run only.
result<run_key> builder_run_of(web_app& app, const json& body) {
  run_key key{string_field(body, "workspaceId"), string_field(body, "appId"), string_field(body, "runId")};
  if (!is_valid_id(key.workspace_id) || !is_valid_id(key.app_id) || !is_valid_id(key.run_id)) {
    return fail(api_error::invalid_body, "needs workspaceId, appId and runId");
  }
  auto run = app.db.builder_run_stream(key);
  if (!run) return tl::unexpected(run.error());
  if (!*run) return fail(api_error::not_found, "no such builder run in this app");
  return key;
}

result<std::vector<integration_requirement>> requirements_from(const json& setup, const std::string& run_id) {
  if (!setup.is_object()) return fail(api_error::invalid_body, "setup must be the integration-setup.json object");
  auto report = validate_integration_setup(setup.dump());
  if (!report.setup) {
    std::string why;
    for (const auto& v : report.problems) why += (why.empty() ? "" : "; ") + v.path + ": " + v.message;
    return fail(api_error::invalid_setup, "integration-setup.json is invalid, nothing was registered: " + why);
  }
  std::vector<integration_requirement> out;
  std::int64_t now = now_ms();
  for (std::size_t i = 0; i < report.setup->integrations.size(); ++i) {
    const auto& in = report.setup->integrations[i];
    json entry = setup["integrations"][i];
    entry["keySlug"] = in.key_slug;
    out.push_back({in.domain, in.key_slug, in.name, entry.dump(), run_id, now});
  }
  return out;
}

}  // namespace

void sync_requirements(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  auto key = builder_run_of(app, body);
  if (!key) return send(res, key.error());
  auto set = requirements_from(body.value("setup", json()), key->run_id);
  if (!set) return send(res, set.error());
  if (auto r = app.db.integrations().replace_requirements(key->workspace_id, key->app_id, *set); !r) {
    return send(res, r.error());
  }
  auto meta = integrations_metadata(app, key->workspace_id, key->app_id, nullptr);
  if (!meta) return send(res, meta.error());
  send_json(res, 200, json({{"ok", true}, {"integrations", (*meta)["integrations"]}, {"oauth", (*meta)["oauth"]}}).dump());
}

void workspace_integrations(web_app& app, const route_call& call, httplib::Response& res) {
  auto key = builder_run_of(app, *call.body);
  if (!key) return send(res, key.error());
  auto meta = integrations_metadata(app, key->workspace_id, key->app_id, nullptr);
  if (!meta) return send(res, meta.error());
  send_json(res, 200, meta->dump());
}

void forget_oauth_attempt(httplib::Response& res) { set_attempt_cookie(res, "", 0, false); }

}  // namespace platform::web::integration_routes
