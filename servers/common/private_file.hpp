#pragma once
// Files only this user may read (keys, provider credentials), written so that no reader ever
// sees half of one or a moment of wider permissions: the bytes go to a temp file created 0600
// beside the final name, are synced, and only then take the name.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <string_view>

#include "platform/api_error.hpp"
#include "platform/error.hpp"

namespace platform::servers {

enum class private_write {
  replace,      // the new content replaces any old file (rename)
  create_only,  // an existing file wins: two processes creating it at once keep one (link)
};

enum class private_written { written, existed };

inline result<private_written> write_private_file(const std::string& path, std::string_view bytes, private_write how) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(api_error::private_file_unwritable, "cannot create " + tmp);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  bool ok = done == bytes.size() && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  private_written outcome = private_written::written;
  if (ok && how == private_write::replace) {
    ok = ::rename(tmp.c_str(), path.c_str()) == 0;
  } else if (ok) {
    if (::link(tmp.c_str(), path.c_str()) != 0) {
      if (errno == EEXIST) outcome = private_written::existed;
      else ok = false;
    }
  }
  if (how == private_write::create_only || !ok) ::unlink(tmp.c_str());
  if (!ok) return fail(api_error::private_file_unwritable, "cannot write " + path);
  return outcome;
}

}  // namespace platform::servers
