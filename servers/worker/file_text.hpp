#pragma once
// A whole small file the worker wrote itself or the CLI left (its config, a session file) as
// text; empty when it cannot be read. Files from the app's workspace are read with their own
// size bounds instead (app_packages.cpp, builder_tools.cpp).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace platform::worker {

inline std::string read_whole_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace platform::worker
