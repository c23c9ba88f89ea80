#pragma once
// The digest of an app's source files, the same on the web server (its stored draft) and on a
// worker (its workspace, walked as for the source snapshot). A worker whose workspace does not
// hash to the draft's digest holds a stale copy, as after its apps moved to another worker and
// came back, and gets the draft written in before the turn (docs/operations.md, "Several
// workers"); without the check the stale files would replace the draft after the turn.
#include <map>
#include <string>

namespace platform {

// "sha256:<hex>" over every (path, content) pair in path order, each part length-prefixed so
// that no two different file sets share an input.
std::string source_digest(const std::map<std::string, std::string>& files);

}  // namespace platform
