#pragma once
// Where a server finds the project's files when no variable names them: from its executable's
// directory upwards. A binary in a build tree (<checkout>/build/servers/web) finds the
// checkout it was built from, an installed one (<prefix>/bin) its prefix.
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace platform::servers {

// The running executable: /proc/self/exe resolved, else argv[0].
inline std::string executable_path(const char* argv0) {
  std::error_code ec;
  auto exe = std::filesystem::canonical("/proc/self/exe", ec);
  return ec ? std::string(argv0 ? argv0 : "") : exe.string();
}

// `dir/relative` for the first directory from the executable's upwards (the root excluded)
// where `dir/relative/marker` exists, trying the `relatives` in order at each level; empty
// when there is none. An empty marker tests `dir/relative` itself.
inline std::string find_upwards(const std::string& exe_path, std::initializer_list<std::string_view> relatives,
                                std::string_view marker = {}) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::path dir = fs::path(exe_path).parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
    for (std::string_view relative : relatives) {
      fs::path candidate = dir / relative;
      if (fs::exists(marker.empty() ? candidate : candidate / marker, ec)) return candidate.string();
    }
  }
  return {};
}

}  // namespace platform::servers
