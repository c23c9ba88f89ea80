#include "builder_checks.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "platform/ascii.hpp"
#include "platform/redaction.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

// ---- output tail ----

std::string strip_ansi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b') {
      out += line[i];
      continue;
    }
    if (i + 1 < line.size() && line[i + 1] == '[') {  // CSI: parameters, then one final byte
      i += 2;
      while (i < line.size() && !(line[i] >= 0x40 && line[i] <= 0x7e)) ++i;
    } else if (i + 1 < line.size() && line[i + 1] == ']') {  // OSC: up to BEL or ESC '\'
      i += 2;
      while (i < line.size() && line[i] != '\x07' && !(line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '\\')) ++i;
      if (i < line.size() && line[i] == '\x1b') ++i;
    } else {
      ++i;  // a two-byte escape
    }
  }
  return out;
}

void output_tail::append_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string clean = strip_ansi(line);
  clean += '\n';
  total_ += clean.size();
  buffer_ += clean;
  // Trimming only past twice the limit keeps appends amortized O(1).
  if (buffer_.size() > 2 * limit_) buffer_.erase(0, buffer_.size() - limit_);
}

std::string output_tail::text() const {
  if (!truncated()) return buffer_;
  std::size_t start = buffer_.size() - kept_bytes();
  while (start < buffer_.size() && continuation_byte(buffer_[start])) ++start;
  std::string kept = buffer_.substr(start);
  return "[output truncated: the first " + std::to_string(total_ - kept.size()) + " of " + std::to_string(total_) +
         " bytes are not shown]\n" + kept;
}

// ---- asset references ----

namespace {

// A URL that names a file of the build: no scheme, not protocol-relative, not a fragment.
bool local_url(std::string_view url) {
  if (url.empty() || url.front() == '#' || url.substr(0, 2) == "//") return false;
  std::size_t i = 0;
  while (i < url.size() && (std::isalnum(static_cast<unsigned char>(url[i])) || url[i] == '+' || url[i] == '-' || url[i] == '.')) ++i;
  bool scheme = i > 0 && i < url.size() && url[i] == ':' && std::isalpha(static_cast<unsigned char>(url[0]));
  return !scheme;
}

std::string without_query(std::string_view url) {
  std::size_t cut = url.find_first_of("?#");
  return std::string(url.substr(0, cut));
}

struct html_scanner {
  std::string_view html;
  std::size_t pos = 0;

  bool at_end() const { return pos >= html.size(); }
  char peek() const { return html[pos]; }
  void skip_spaces() {
    while (!at_end() && (std::isspace(static_cast<unsigned char>(peek())) || peek() == '/')) ++pos;
  }
  std::string read_name() {
    std::string name;
    while (!at_end() && !std::isspace(static_cast<unsigned char>(peek())) && peek() != '=' && peek() != '>' && peek() != '/') {
      name += ascii_lower(html[pos++]);
    }
    return name;
  }
  std::string read_value() {
    if (at_end()) return {};
    char quote = peek();
    if (quote == '"' || quote == '\'') {
      std::size_t end = html.find(quote, pos + 1);
      if (end == std::string_view::npos) end = html.size();
      std::string v(html.substr(pos + 1, end - pos - 1));
      pos = end + 1;
      return v;
    }
    std::size_t start = pos;
    while (!at_end() && !std::isspace(static_cast<unsigned char>(peek())) && peek() != '>') ++pos;
    return std::string(html.substr(start, pos - start));
  }
  // Reads the attributes of the tag whose name was just read, up to and including '>'; the
  // value of `wanted` when present.
  std::string read_attributes(std::string_view wanted) {
    std::string found;
    while (true) {
      skip_spaces();
      if (at_end()) return found;
      if (peek() == '>') {
        ++pos;
        return found;
      }
      std::string name = read_name();
      if (name.empty()) {
        ++pos;  // a stray character: step over it rather than loop
        continue;
      }
      while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) ++pos;
      if (at_end() || peek() != '=') continue;
      ++pos;
      while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) ++pos;
      std::string value = read_value();
      if (name == wanted) found = std::move(value);
    }
  }
  // Raw text elements: their content is not markup.
  void skip_raw_text(std::string_view tag) {
    std::string close = "</" + std::string(tag);
    for (std::size_t i = pos; i + close.size() <= html.size(); ++i) {
      if (istarts_with(html.substr(i), close)) {
        pos = i;
        return;
      }
    }
    pos = html.size();
  }
};

}  // namespace

std::vector<asset_ref> local_asset_refs(std::string_view html) {
  std::vector<asset_ref> refs;
  html_scanner s{html};
  while (true) {
    std::size_t lt = html.find('<', s.pos);
    if (lt == std::string_view::npos) break;
    s.pos = lt + 1;
    if (html.substr(lt, 4) == "<!--") {
      std::size_t end = html.find("-->", lt + 4);
      if (end == std::string_view::npos) break;
      s.pos = end + 3;
      continue;
    }
    std::string tag;
    while (!s.at_end() && std::isalnum(static_cast<unsigned char>(s.peek()))) tag += ascii_lower(html[s.pos++]);
    if (tag.empty()) continue;  // closing tags, doctype
    bool loads = tag == "script" || tag == "link" || tag == "img" || tag == "source";
    std::string url = s.read_attributes(tag == "link" ? "href" : "src");
    if (loads && local_url(url)) refs.push_back({tag, without_query(url)});
    if (tag == "script" || tag == "style") s.skip_raw_text(tag);
  }
  return refs;
}

// ---- build output ----

namespace {

constexpr std::uintmax_t max_index_bytes = 4u << 20;
constexpr std::size_t max_listed_files = 20000;

std::string read_prefix(const fs::path& p, std::uintmax_t max) {
  std::ifstream in(p, std::ios::binary);
  std::string s(static_cast<std::size_t>(max), '\0');
  in.read(s.data(), static_cast<std::streamsize>(max));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

struct digest_ctx {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  digest_ctx() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
  void update(std::string_view s) { EVP_DigestUpdate(ctx.get(), s.data(), s.size()); }
  void update_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::array<char, 65536> buf{};
    while (in.read(buf.data(), buf.size()) || in.gcount() > 0) update({buf.data(), static_cast<std::size_t>(in.gcount())});
  }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &n);
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
      out += digits[md[i] >> 4];
      out += digits[md[i] & 15];
    }
    return out;
  }
};

void list_files(const fs::path& dist, artifact_report& r) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dist, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && r.files.size() < max_listed_files; it.increment(ec)) {
    // Links could point anywhere on the machine: only what the build wrote counts.
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    r.files.push_back({fs::relative(it->path(), dist, ec).generic_string(), it->file_size(ec)});
  }
  std::sort(r.files.begin(), r.files.end(), [](const built_file& a, const built_file& b) { return a.path < b.path; });
  digest_ctx d;
  for (const auto& f : r.files) {
    r.total_bytes += f.bytes;
    d.update(f.path);
    d.update(std::string_view("\0", 1));
    d.update(std::to_string(f.bytes));
    d.update(std::string_view("\0", 1));
    d.update_file(dist / f.path);
  }
  r.digest = "sha256:" + d.hex();
}

// A reference resolved inside `dist`, or an empty path when it would leave it.
fs::path resolve_ref(const std::string& url) {
  std::string_view rel = url;
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  fs::path p = fs::path(rel).lexically_normal();
  if (p.empty() || p == "." || *p.begin() == "..") return {};
  return p;
}

void check_refs(const fs::path& dist, std::string_view html, artifact_report& r) {
  std::size_t scripts = 0;
  for (const auto& ref : local_asset_refs(html)) {
    if (ref.tag == "script") ++scripts;
    fs::path rel = resolve_ref(ref.url);
    if (rel.empty()) {
      r.problems.push_back("dist/index.html references \"" + ref.url + "\", which is outside the build output");
      continue;
    }
    std::error_code ec;
    fs::path file = dist / rel;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) {
      r.problems.push_back("dist/index.html references \"" + ref.url + "\", which the build did not produce");
    } else if (fs::file_size(file, ec) == 0) {
      r.problems.push_back("dist/index.html references \"" + ref.url + "\", which is empty");
    }
  }
  if (scripts == 0) {
    r.problems.push_back("dist/index.html loads no script, so the app would be blank: keep "
                         "<script type=\"module\" src=\"/src/main.tsx\"></script> in index.html");
  }
}

}  // namespace

artifact_report check_build_output(const fs::path& dist) {
  artifact_report r;
  std::error_code ec;
  fs::path index = dist / "index.html";
  if (!fs::is_regular_file(fs::symlink_status(index, ec))) {
    r.problems.push_back("dist/index.html is missing: the build wrote no entry page (keep index.html in the "
                         "workspace root and build.outDir \"dist\" in vite.config.ts)");
    return r;
  }
  std::uintmax_t size = fs::file_size(index, ec);
  if (ec || size == 0) {
    r.problems.push_back("dist/index.html is empty");
    return r;
  }
  check_refs(dist, read_prefix(index, max_index_bytes), r);
  list_files(dist, r);
  return r;
}

// ---- integration metadata ----

namespace {

// Members whose names sound like credentials but whose values are names or URLs.
bool metadata_name(const std::string& squashed) {
  static constexpr std::string_view names[] = {
      "secrets",     "secretnames",   "requiredsecrets", "missingsecrets", "configuredsecrets", "declaredsecrets",
      "secretname",  "secretlabel",   "tokenurl",        "authorizationurl", "authtype",        "hassecrets"};
  return std::find(std::begin(names), std::end(names), squashed) != std::end(names);
}

bool credential_member(std::string_view name) {
  std::string n = folded_member_name(name);
  if (metadata_name(n)) return false;
  if (n == "value" || n == "values" || n == "raw") return true;
  return secret_member_name(name);
}

bool secret_container(std::string_view name) {
  std::string n = folded_member_name(name);
  return metadata_name(n) && n.find("secret") != std::string::npos;
}

json filter(const json& v, bool in_secret_container);

json filter_object(const json& v, bool in_secret_container) {
  json out = json::object();
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (credential_member(it.key())) continue;
    if (it->is_string() && looks_like_secret_value(it->get_ref<const std::string&>())) continue;
    // A map of secret name → value would pass the name checks: inside a secrets container
    // only flags and nested objects survive, never a string under a secret's name.
    if (in_secret_container && !(it->is_boolean() || it->is_null() || it->is_structured()) && it.key() != "name" &&
        it.key() != "label" && it.key() != "description") {
      continue;
    }
    out[it.key()] = filter(*it, secret_container(it.key()));
  }
  return out;
}

json filter(const json& v, bool in_secret_container) {
  if (v.is_object()) return filter_object(v, in_secret_container);
  if (!v.is_array()) return v;
  json out = json::array();
  for (const auto& e : v) {
    if (e.is_string() && looks_like_secret_value(e.get_ref<const std::string&>())) continue;
    out.push_back(filter(e, false));
  }
  return out;
}

}  // namespace

json metadata_only(const json& value) { return filter(value, false); }

bool looks_like_secret_value(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (istarts_with(s, "bearer ") || istarts_with(s, "basic ") || istarts_with(s, "-----begin")) return true;
  if (s.substr(0, 3) == "eyJ" && std::count(s.begin(), s.end(), '.') >= 2) return true;  // a JWT
  static constexpr std::string_view prefixes[] = {"sk-",  "sk_live_", "sk_test_", "rk_live_", "pk_live_", "ghp_",
                                                  "gho_", "ghs_",     "ghu_",     "github_pat_", "glpat-", "xoxb-",
                                                  "xoxp-", "xapp-",   "shpat_",   "AIza",     "ya29."};
  for (auto p : prefixes) {
    if (s.substr(0, p.size()) == p && s.size() > p.size() + 8) return true;
  }
  return s.size() == 20 && s.substr(0, 4) == "AKIA";  // an AWS access key id
}

}  // namespace platform::worker
