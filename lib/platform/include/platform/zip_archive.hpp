#pragma once
// A version as a .zip download (issue 35: people take their app with them). Files are stored,
// not compressed: a workspace's text source is small, a zip of it opens everywhere, and the
// writer stays a few lines with nothing to configure. Sans-I/O: files in, the archive's bytes out.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace platform {

struct zip_entry {
  std::string path;  // '/'-separated, relative
  std::string bytes;
};

// CRC-32 (the zip and gzip polynomial) of `data`.
std::uint32_t crc32_of(std::string_view data);

// The archive of `entries`, each stamped with `unix_seconds` (UTC). Every entry sits under
// `root/` when `root` is not empty, so unzipping makes one folder.
std::string zip_archive(const std::vector<zip_entry>& entries, std::int64_t unix_seconds, std::string_view root = {});

}  // namespace platform
