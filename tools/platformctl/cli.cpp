#include "cli.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace platformctl {

std::optional<std::string> args::get(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> args::get_all(const std::string& name) const {
  std::vector<std::string> out;
  auto [lo, hi] = options.equal_range(name);
  for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  return out;
}

std::optional<args> parse_args(int argc, char** argv, int first,
                               const std::vector<std::string>& value_options, std::string& error) {
  args out;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() < 3 || a.rfind("--", 0) != 0) {
      out.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (std::find(value_options.begin(), value_options.end(), name) == value_options.end()) {
      error = "unknown option --" + name;
      return std::nullopt;
    }
    if (!value) {
      if (i + 1 >= argc) {
        error = "option --" + name + " needs a value";
        return std::nullopt;
      }
      value = argv[++i];
    }
    out.options.emplace(name, *value);
  }
  return out;
}

std::optional<std::string> read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "platformctl: cannot read %s\n", path.c_str());
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "platformctl: %s\nRun 'platformctl --help' for usage.\n", message.c_str());
  return exit_usage;
}

void print_line(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace platformctl
