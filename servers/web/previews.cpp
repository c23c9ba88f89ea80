#include "previews.hpp"

#include <cstdio>

#include "http.hpp"
#include "platform/host_header.hpp"
#include "platform/preview_access.hpp"
#include "platform/static_site.hpp"
#include "platform/store.hpp"
#include "web_app.hpp"
#include "worker_client.hpp"

namespace platform::web {
namespace {

// The port the browser used to reach this server (the preview lives on the same one locally).
std::string request_port(const httplib::Request& req) {
  const std::string host = req.get_header_value("Host");
  return std::string(split_host_header(host).port);
}

std::string preview_origin(const config& cfg, const httplib::Request& req, std::string_view app_id) {
  if (!cfg.preview_url.empty()) {
    std::string url = cfg.preview_url;
    url.replace(url.find("{appId}"), 7, app_id);
    while (!url.empty() && url.back() == '/') url.pop_back();
    return url;
  }
  std::string port = request_port(req);
  return "http://" + std::string(app_id) + "." + cfg.preview_domain + (port.empty() ? "" : ":" + port);
}

// Who may frame a preview: the configured public origins, else the builder on this server's
// loopback names (local development).
std::string builder_origins(const config& cfg, const httplib::Request& req) {
  std::string out;
  for (const auto& o : cfg.public_origins) out += (out.empty() ? "" : " ") + o;
  if (!out.empty()) return out;
  std::string port = request_port(req);
  std::string suffix = port.empty() ? "" : ":" + port;
  // Chromium takes no IPv6 literal in frame-ancestors; a builder on [::1] is not framing here.
  return "http://127.0.0.1" + suffix + " http://localhost" + suffix;
}

void send_preview_error(httplib::Response& res, api_error e, std::string_view message) {
  send(res, e, message);
  res.set_header("Cache-Control", "no-store");
}

void send_preview_failure(httplib::Response& res, const error& e) {
  send(res, e);
  res.set_header("Cache-Control", "no-store");
}

}  // namespace

result<std::optional<std::string>> sync_preview_from_worker(store& db, const worker_client& worker, std::string_view ws, std::string_view app_id,
                                      std::int64_t now, std::string_view capability, const preview_made_by& made_by,
                                      std::string_view known_digest) {
  // A build the store holds already (the same dist/ built again) is not downloaded again.
  if (!known_digest.empty()) {
    auto held = db.previews().has_build(known_digest);
    if (!held) return tl::unexpected(held.error());
    if (*held) {
      auto set = db.previews().set_app_preview(ws, app_id, source_scope::draft, known_digest, now, made_by);
      if (!set) return tl::unexpected(set.error());
      return std::optional<std::string>(std::string(known_digest));
    }
  }
  auto build = worker.preview_artifact(app_id, capability);
  if (!build) return tl::unexpected(build.error());
  if (!*build) return std::optional<std::string>();
  auto stored = db.previews().has_build((*build)->digest);
  if (!stored) return tl::unexpected(stored.error());
  if (!*stored) {
    if (auto put = db.previews().put_build((*build)->digest, (*build)->files, now); !put) return tl::unexpected(put.error());
  }
  if (auto set = db.previews().set_app_preview(ws, app_id, source_scope::draft, (*build)->digest, now, made_by); !set) {
    return tl::unexpected(set.error());
  }
  return std::optional<std::string>((*build)->digest);
}

std::string preview_request_label(std::string_view prompt) {
  while (!prompt.empty() && (prompt.front() == ' ' || prompt.front() == '\n' || prompt.front() == '\r' || prompt.front() == '\t')) {
    prompt.remove_prefix(1);
  }
  prompt = prompt.substr(0, prompt.find('\n'));
  if (prompt.size() > 200) {
    std::size_t cut = 200;
    while (cut > 0 && (static_cast<unsigned char>(prompt[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    return std::string(prompt.substr(0, cut)) + "…";
  }
  return std::string(prompt);
}

nlohmann::json preview_json(const web_app& app, const httplib::Request& req, std::string_view ws, std::string_view app_id,
                            source_scope scope) {
  auto current = app.db.previews().app_preview_of(ws, app_id, scope);
  if (!current || !*current) return nullptr;
  preview_grant grant{std::string(app_id), (*current)->digest, now_ms() + app.cfg.preview_token_ttl.count()};
  return {{"digest", grant.digest},
          {"url", preview_origin(app.cfg, req, app_id) + preview_entry_path(app.preview_key, grant)},
          {"origin", preview_origin(app.cfg, req, app_id)},
          {"expiresAt", grant.expires_at},
          {"updatedAt", (*current)->updated_at},
          {"builtBy", (*current)->made_by.run_id.empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json({{"runId", (*current)->made_by.run_id},
                                                                           {"request", (*current)->made_by.request}})}};
}

bool serve_preview_host(const web_app& app, const httplib::Request& req, httplib::Response& res) {
  auto app_id = preview_app_of_host(req.get_header_value("Host"), app.cfg.preview_domain);
  if (!app_id) return false;
  if (req.method != "GET" && req.method != "HEAD") {
    send_preview_error(res, api_error::method_not_allowed, "a preview origin serves files only");
    return true;
  }
  auto path = parse_preview_path(req.path);
  if (!path) {
    send_preview_error(res, api_error::not_found, "no such preview file");
    return true;
  }
  auto grant = verify_preview_token(app.preview_key, path->token, *app_id, now_ms());
  if (!grant) {
    send_preview_failure(res, grant.error());
    return true;
  }
  auto bytes = app.db.previews().file(grant->digest, path->file);
  if (!bytes) {
    send_preview_failure(res, {bytes.error().code, "the preview store is unavailable", bytes.error().relayed});
    return true;
  }
  if (!*bytes) {
    send_preview_error(res, api_error::not_found, "no such file in this build");
    return true;
  }
  for (const auto& h : preview_headers(builder_origins(app.cfg, req))) res.set_header(h.name, h.value);
  res.status = 200;
  res.set_content(std::move(**bytes), std::string(content_type_for(path->file)));
  return true;
}

}  // namespace platform::web
