#pragma once
// An app's history as a git bundle (issue 35: git is the tool people know): every version a
// commit on `main`, oldest first, whose tree is that version's files and whose message is the
// turn's words. `git clone app.bundle` makes a repository of it. The objects are written as
// git writes them (blob, tree, commit, SHA-1 named), packed whole and zlib-wrapped in stored
// deflate blocks: nothing to tune, and git reads it like any pack. Sans-I/O: versions in, the
// bundle's bytes out.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace platform {

struct git_commit_input {
  std::map<std::string, std::string> files;  // '/'-separated path -> content
  std::string message;
  std::string author_name;
  std::string author_email;
  std::int64_t unix_seconds = 0;
};

// The SHA-1 object name (40 hex) git gives `content` of `type` ("blob", "tree", "commit").
std::string git_object_id(std::string_view type, std::string_view content);

// A v2 bundle of `commits` (oldest first, each the parent of the next) with refs/heads/main at
// the last; empty input makes an empty string (git has no bundle without a ref).
std::string git_bundle(const std::vector<git_commit_input>& commits);

}  // namespace platform
