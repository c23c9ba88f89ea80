#include "platform/app_version.hpp"

#include "platform/source_digest.hpp"

namespace platform {

std::string version_blob_digest(std::string_view content) { return sha256_digest(content); }

std::string restored_version_note(std::int64_t restored_from) {
  return "[Platform note: before this message the user restored version " + std::to_string(restored_from) +
         " of the app. The workspace now holds exactly that version's files; anything written after it is gone. "
         "Read the files again before changing them.]\n\n";
}

version_changes compare_manifests(const version_manifest& from, const version_manifest& to) {
  version_changes c;
  for (const auto& [path, digest] : to) {
    auto was = from.find(path);
    if (was == from.end()) ++c.added;
    else if (was->second != digest) ++c.modified;
  }
  for (const auto& [path, digest] : from) {
    if (!to.contains(path)) ++c.removed;
  }
  return c;
}

}  // namespace platform
