#pragma once
// The pure parts of the builder tools (builder_tools.cpp), kept apart so unit tests can drive
// them without a worker: the bounded tail of a command's output, the check of a build's
// artifact output (done_building), and the metadata-only filter for integration keys
// (list_app_integration_keys).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace platform::worker {

// The last `limit` bytes of a command's output, verbatim except for terminal colour codes
// (compilers print them for people, the model reads them as noise). What the model gets must
// stay small whatever a compiler prints, and the end is where the summary and the first
// fatal error of a bundler are.
class output_tail {
 public:
  explicit output_tail(std::size_t limit) : limit_(limit) {}
  void append_line(std::string_view line);
  [[nodiscard]] bool truncated() const { return total_ > kept_bytes(); }
  [[nodiscard]] std::size_t total_bytes() const { return total_; }
  // The kept text (cut at a UTF-8 boundary), headed by a marker line when earlier output was
  // dropped.
  [[nodiscard]] std::string text() const;

 private:
  [[nodiscard]] std::size_t kept_bytes() const { return buffer_.size() < limit_ ? buffer_.size() : limit_; }
  std::size_t limit_;
  std::size_t total_ = 0;
  std::string buffer_;
};

// Removes ANSI escape sequences (CSI and OSC) from one line.
std::string strip_ansi(std::string_view line);

struct asset_ref {
  std::string tag;  // script, link, img, source
  std::string url;  // as written, without query or fragment
};

// The local files an HTML page loads: <script src>, <link href>, <img src>, <source src>,
// in document order. Remote (scheme, `//`) and data: URLs are not local and are left out;
// so are references inside comments.
std::vector<asset_ref> local_asset_refs(std::string_view html);

struct built_file {
  std::string path;  // relative to the output directory, with '/'
  std::uintmax_t bytes = 0;
};

struct artifact_report {
  std::vector<std::string> problems;  // empty: the output is a loadable app
  std::vector<built_file> files;      // every regular file, sorted by path
  std::uintmax_t total_bytes = 0;
  std::string digest;                 // sha256 over paths and contents: changes iff the output changed
  [[nodiscard]] bool ok() const { return problems.empty(); }
};

// Checks `dist`: index.html exists and is non-empty, loads at least one script, and every
// local file it references exists inside `dist` and is non-empty.
artifact_report check_build_output(const std::filesystem::path& dist);

// The integration-key metadata the web server returned, with anything that could be a secret
// value removed (members named like credentials, strings shaped like tokens or keys): the
// route promises metadata only, and the model must not see a secret even if it broke that
// promise. Names of secrets (`secrets`, `missingSecrets`, ...) and OAuth URLs are metadata.
nlohmann::json metadata_only(const nlohmann::json& value);

// True for strings that look like a credential: bearer/basic values, JWTs, PEM blocks,
// well-known API key prefixes.
bool looks_like_secret_value(std::string_view s);

}  // namespace platform::worker
