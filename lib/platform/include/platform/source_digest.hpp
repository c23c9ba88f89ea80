#pragma once
// The digest of an app's source files, the same on the web server (its stored draft) and on a
// worker (its workspace, walked as for the source snapshot). A worker whose workspace does not
// hash to the draft's digest holds a stale copy, as after its apps moved to another worker and
// came back, and gets the draft written in before the turn (docs/operations.md, "Several
// workers"); without the check the stale files would replace the draft after the turn.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace platform {

// "sha256:<hex>" over every (path, content) pair in path order, each part length-prefixed so
// that no two different file sets share an input.
std::string source_digest(const std::map<std::string, std::string>& files);

// "sha256:<hex>" of some bytes (one stored file's content).
std::string sha256_digest(std::string_view bytes);

// Whether a worker may run an app's builder turn in the workspace it holds:
// - `missing`: the app has a draft (`has_draft`) and the worker no workspace: a turn on the
//   template would replace the draft afterwards;
// - `stale`: the web sent the draft's digest (`draft_digest`, empty when it did not) and the
//   workspace's (`workspace_digest`, read only when there is a workspace) differs;
// - `ready` otherwise. For both refusals the web server writes the draft in and asks again.
enum class workspace_verdict : unsigned char { ready, missing, stale };
workspace_verdict check_workspace(bool has_draft, bool has_workspace, std::string_view draft_digest,
                                  const std::optional<std::string>& workspace_digest);

}  // namespace platform
