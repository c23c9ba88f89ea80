// The builder page (docs/http-api.md, "The builder page"): the files of the built UI directory
// by the core's rules (platform/static_site.hpp). Files are read on every request, so a page
// rebuilt while the server runs is served at once.
#include "ui_routes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <cstdio>
#include <optional>
#include <string>

#include "http.hpp"
#include "platform/static_site.hpp"
#include "web_app.hpp"

namespace platform::web {
namespace {

constexpr off_t max_site_file_bytes = 64 << 20;

// The bytes of `dir/relative`; nothing when it is missing, not a regular file (a directory,
// a FIFO that would block) or unreadable. `relative` comes from site_file_for: no dot
// segments, no backslash, no NUL.
std::optional<std::string> read_site_file(const std::string& dir, const std::string& relative) {
  if (dir.empty()) return std::nullopt;
  int fd = ::open((dir + "/" + relative).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= max_site_file_bytes) {
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t have = 0;
    while (have < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + have, bytes.size() - have);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      have += static_cast<std::size_t>(n);
    }
    if (have == bytes.size()) out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

void send_site_file(const config& cfg, httplib::Response& res, site_file_kind kind, std::string_view type, std::string body,
                    std::string_view coding = {}) {
  for (const auto& h : site_headers(kind, type)) {
    res.set_header(std::string(h.name), h.name == "Content-Security-Policy" ? builder_page_csp_for(cfg.preview_url) : std::string(h.value));
  }
  res.status = 200;
  res.set_header("Vary", "Accept-Encoding");
  if (!coding.empty()) res.set_header("Content-Encoding", std::string(coding));
  // Through a provider of known length: cpp-httplib compresses a plain body on the fly (0.9 s
  // for the main bundle with brotli) whatever Content-Encoding says; the build compressed it.
  auto bytes = std::make_shared<std::string>(std::move(body));
  res.set_content_provider(bytes->size(), std::string(type), [bytes](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
    return sink.write(bytes->data() + offset, std::min(length, bytes->size() - offset));
  });
}

// False for paths that are not the site's (API paths stay httplib's JSON 404s).
bool serve_ui(const web_app& app, const httplib::Request& req, httplib::Response& res) {
  auto file = site_file_for(req.path);
  if (!file) return false;
  std::string_view type = content_type_for(file->path);
  for (const auto& e : site_encodings_for(req.get_header_value("Accept-Encoding"))) {
    if (auto body = read_site_file(app.cfg.ui_dir, file->path + std::string(e.suffix))) {
      send_site_file(app.cfg, res, file->kind, type, std::move(*body), e.coding);
      return true;
    }
  }
  if (auto body = read_site_file(app.cfg.ui_dir, file->path)) {
    send_site_file(app.cfg, res, file->kind, type, std::move(*body));
  } else if (file->kind == site_file_kind::page) {
    send_site_file(app.cfg, res, file->kind, type, std::string(ui_not_built_page()));
  } else {
    send(res, api_error::not_found, "no such file");
  }
  return true;
}

}  // namespace

void send_ui_page(const web_app& app, httplib::Response& res) {
  auto body = read_site_file(app.cfg.ui_dir, "index.html");
  send_site_file(app.cfg, res, site_file_kind::page, content_type_for("index.html"),
                 body ? std::move(*body) : std::string(ui_not_built_page()));
}

servers::route_dispatch ui_routes(web_app& app) {
  const std::string& dir = app.cfg.ui_dir;
  if (dir.empty() || ::access((dir + "/index.html").c_str(), R_OK) != 0) {
    std::fprintf(stderr, "platform-web: the builder page is not built%s%s (bash scripts/setup-ui.sh, or set PLATFORM_UI_DIR)\n",
                 dir.empty() ? "" : " in ", dir.c_str());
  }
  return [&app](const httplib::Request& req, httplib::Response& res) { return serve_ui(app, req, res); };
}

}  // namespace platform::web
