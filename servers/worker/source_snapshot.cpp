#include "source_snapshot.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/source_digest.hpp"
#include "app_workspace.hpp"
#include "worker_http.hpp"

namespace platform::worker {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Dependencies, build output and history are not source: the template's node_modules alone
// is far past the bounds, and dist is rebuilt from src.
bool excluded_dir(const fs::path& name) { return name == "node_modules" || name == "dist" || name == ".git"; }

// Text the store and JSON can carry as is: well-formed UTF-8 without NUL.
bool is_text(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    if (c < 0xC2 || c > 0xF4 || i + n >= s.size()) return false;  // a lead byte needs n continuation bytes
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    for (std::size_t k = 1; k <= n; ++k) {
      if ((at(k) & 0xC0) != 0x80) return false;
    }
    // Overlong, surrogate and beyond-U+10FFFF forms.
    if ((c == 0xE0 && at(1) < 0xA0) || (c == 0xED && at(1) > 0x9F) || (c == 0xF0 && at(1) < 0x90) ||
        (c == 0xF4 && at(1) > 0x8F)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

struct snapshot {
  std::map<std::string, std::string> files;
  std::size_t bytes = 0;
  std::size_t skipped = 0;  // not UTF-8 text
};

// Up to `limit` bytes of the file (fewer when it is shorter).
std::string read_prefix(const fs::path& p, std::size_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::string out(limit, '\0');
  in.read(out.data(), static_cast<std::streamsize>(limit));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

// A prefix cut inside a UTF-8 sequence is still text: trim up to three trailing bytes.
bool looks_like_text(std::string prefix) {
  for (int k = 0; k < 4 && !prefix.empty(); ++k) {
    if (is_text(prefix)) return true;
    prefix.pop_back();
  }
  return is_text(prefix);
}

// Walks the workspace without following symlinks (node_modules is one, and a link could
// point outside the workspace).
result<snapshot> take_snapshot(const std::string& dir) {
  snapshot s;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return fail(api_error::workspace_unavailable, "cannot read the app workspace");
  for (; it != end; it.increment(ec)) {
    if (ec) return fail(api_error::workspace_unavailable, "cannot read the app workspace");
    auto st = it->symlink_status(ec);
    if (fs::is_directory(st)) {
      if (excluded_dir(it->path().filename())) it.disable_recursion_pending();
      continue;
    }
    if (!fs::is_regular_file(st)) continue;
    auto size = fs::file_size(it->path(), ec);
    if (ec) continue;  // removed while we walked
    if (size > snapshot_max_bytes - s.bytes) {
      // A large binary (an image) is skipped like any binary; large text breaks the bound.
      if (!looks_like_text(read_prefix(it->path(), 8192))) {
        ++s.skipped;
        continue;
      }
      return fail(api_error::snapshot_too_large, "the workspace's text files exceed 32 MiB");
    }
    std::string content = read_prefix(it->path(), size);
    if (!is_text(content)) {
      ++s.skipped;
      continue;
    }
    if (s.files.size() >= snapshot_max_files) {
      return fail(api_error::snapshot_too_large, "the workspace has more than 5000 text files");
    }
    s.bytes += content.size();
    s.files.emplace(fs::relative(it->path(), dir).generic_string(), std::move(content));
  }
  return s;
}

}  // namespace

std::string workspace_fingerprint(const std::string& dir) {
  std::vector<std::string> entries;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return {};
  for (; it != end; it.increment(ec)) {
    if (ec) return {};
    auto st = it->symlink_status(ec);
    if (fs::is_directory(st)) {
      auto name = it->path().filename();
      if (excluded_dir(name) || name == ".vite-cache") it.disable_recursion_pending();
      continue;
    }
    auto size = fs::is_regular_file(st) ? fs::file_size(it->path(), ec) : 0;
    auto mtime = fs::last_write_time(it->path(), ec);
    if (ec) continue;  // removed while we walked: the next fingerprint tells
    entries.push_back(fs::relative(it->path(), dir).generic_string() + '\0' + std::to_string(size) + '\0' +
                      std::to_string(mtime.time_since_epoch().count()));
  }
  std::sort(entries.begin(), entries.end());
  std::string out = "files:";
  for (const auto& e : entries) (out += e) += '\n';
  return out;
}

std::optional<std::string> workspace_source_digest(const std::string& dir) {
  // Per workspace: the fingerprint the digest was taken at. A turn reads its workspace whole
  // only after something changed it.
  static std::mutex mu;
  static std::map<std::string, std::pair<std::string, std::string>> known;
  std::string fingerprint = workspace_fingerprint(dir);
  if (fingerprint.empty()) return std::nullopt;
  {
    std::lock_guard lock(mu);
    auto it = known.find(dir);
    if (it != known.end() && it->second.first == fingerprint) return it->second.second;
  }
  auto s = take_snapshot(dir);
  if (!s) return std::nullopt;
  std::string digest = platform::source_digest(s->files);
  std::lock_guard lock(mu);
  known[dir] = {std::move(fingerprint), digest};
  return digest;
}

void get_snapshot(const config& cfg, const std::string& app_id, httplib::Response& res) {
  std::string dir = app_workspace_dir(cfg, app_id);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return send(res, api_error::not_found, "this worker has no workspace for the app");
  auto s = take_snapshot(dir);
  if (!s) return send(res, s.error());
  json files = json::object();
  for (auto& [path, content] : s->files) files[path] = std::move(content);
  json body = {{"files", std::move(files)}, {"fileCount", s->files.size()}, {"totalBytes", s->bytes},
               {"skipped", s->skipped}};
  res.set_content(body.dump(), "application/json");
}

namespace {

// A relative path inside the workspace that does not reach into excluded or linked places.
bool writable_path(const std::string& dir, const std::string& p) {
  if (p.empty() || p.size() > 1024 || p.front() == '/' || p.find('\0') != std::string::npos || p.find('\\') != std::string::npos) {
    return false;
  }
  fs::path at(dir);
  for (const auto& part : fs::path(p)) {
    if (part == ".." || part == "." || part.empty() || excluded_dir(part)) return false;
    at /= part;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(at, ec))) return false;
  }
  return true;
}

// Walks to the file's directory one component at a time by descriptor (made when missing),
// never following a link: the app's jail may swap a directory for a link at any moment, and a
// write by path would then land anywhere on the host, as the worker.
result<void> write_file(const std::string& dir, const std::string& rel, const std::string& content) {
  auto failed = [] { return fail(api_error::workspace_unavailable, "cannot write the file"); };
  std::error_code ec;
  fs::create_directories(dir, ec);  // the workspace itself: the worker's own path
  int at = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (at < 0) return failed();
  std::vector<std::string> parts;
  for (const auto& part : fs::path(rel)) parts.push_back(part.string());
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    (void)::mkdirat(at, parts[i].c_str(), 0755);
    int next = ::openat(at, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    ::close(at);
    if (next < 0) return fail(api_error::workspace_unavailable, "cannot create the file's directory");
    at = next;
  }
  // Written beside the target and renamed over it: a reader (the builder's tsc, a snapshot)
  // never sees half a file.
  std::string name = parts.back(), tmp = name + ".platform-tmp-" + std::to_string(::getpid());
  (void)::unlinkat(at, tmp.c_str(), 0);
  int fd = ::openat(at, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    ::close(at);
    return failed();
  }
  std::string_view rest = content;
  bool ok = true;
  while (ok && !rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) rest.remove_prefix(static_cast<std::size_t>(n));
  }
  ok = ::close(fd) == 0 && ok;
  ok = ok && ::renameat(at, tmp.c_str(), at, name.c_str()) == 0;
  if (!ok) (void)::unlinkat(at, tmp.c_str(), 0);
  ::close(at);
  if (!ok) return failed();
  return {};
}

}  // namespace

void put_file(const config& cfg, const std::string& app_id, const json& body, httplib::Response& res) {
  auto content = body.find("content");
  std::string path = string_field(body, "path");
  std::string dir = app_workspace_dir(cfg, app_id);
  if (!writable_path(dir, path)) {
    return send(res, api_error::invalid_path, "path must be a relative path inside the workspace, not in node_modules, dist or .git");
  }
  if (content == body.end() || !content->is_string()) return send(res, api_error::invalid_body, "content must be a string");
  const auto& text = content->get_ref<const std::string&>();
  if (text.size() > put_file_max_bytes) return send(res, api_error::file_too_large, "content exceeds 8 MiB");
  if (!is_text(text)) return send(res, api_error::invalid_body, "content must be UTF-8 text without NUL");
  if (auto w = write_file(dir, path, text); !w) return send(res, w.error());
  res.set_content(json({{"ok", true}, {"path", path}, {"bytes", text.size()}}).dump(), "application/json");
}

// The app's draft as the workspace's whole source. Checked whole before anything is written,
// so a refused set changes nothing.
void put_source(const config& cfg, const std::string& app_id, const json& body, httplib::Response& res) {
  auto files = body.find("files");
  if (files == body.end() || !files->is_object()) return send(res, api_error::invalid_body, "files must be an object of path -> text");
  if (files->size() > snapshot_max_files) return send(res, api_error::snapshot_too_large, "more than 5000 files");
  std::string dir = app_workspace_dir(cfg, app_id);
  std::size_t total = 0;
  for (auto& [path, content] : files->items()) {
    if (!writable_path(dir, path)) {
      return send(res, api_error::invalid_path, "every path must be relative, inside the workspace, not in node_modules, dist or .git");
    }
    if (!content.is_string() || !is_text(content.get_ref<const std::string&>())) {
      return send(res, api_error::invalid_body, "every file must be UTF-8 text without NUL");
    }
    total += content.get_ref<const std::string&>().size();
  }
  if (total > snapshot_max_bytes) return send(res, api_error::snapshot_too_large, "the files exceed 32 MiB");
  std::error_code ec;
  std::size_t removed = 0;
  if (fs::is_directory(dir, ec)) {
    auto current = take_snapshot(dir);
    if (!current) return send(res, current.error());
    for (const auto& [path, content] : current->files) {
      if (files->contains(path)) continue;
      if (fs::remove(fs::path(dir) / path, ec); !ec) ++removed;
    }
  }
  std::map<std::string, std::string> written;
  for (auto& [path, content] : files->items()) {
    const auto& text = content.get_ref<const std::string&>();
    if (auto w = write_file(dir, path, text); !w) return send(res, w.error());
    written.emplace(path, text);
  }
  res.set_content(json({{"ok", true}, {"written", written.size()}, {"removed", removed},
                        {"digest", platform::source_digest(written)}}).dump(),
                  "application/json");
}

}  // namespace platform::worker
