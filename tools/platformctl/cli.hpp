#pragma once
// Shared plumbing of platformctl's command groups: argument splitting, file input, exit codes.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace platformctl {

// Exit codes: 0 success, 1 the input is invalid, 2 usage or I/O error.
inline constexpr int exit_ok = 0;
inline constexpr int exit_invalid = 1;
inline constexpr int exit_usage = 2;

struct args {
  std::vector<std::string> positional;                 // after the group and verb
  std::multimap<std::string, std::string> options;     // --name VALUE or --name=VALUE

  [[nodiscard]] std::optional<std::string> get(const std::string& name) const;
  [[nodiscard]] std::vector<std::string> get_all(const std::string& name) const;
};

// Parses argv after the verb. `value_options` lists the --options that take a value;
// any other --option is a usage error (reported through `error`).
std::optional<args> parse_args(int argc, char** argv, int first,
                               const std::vector<std::string>& value_options, std::string& error);

// Reads a file, or standard input for "-". nullopt (and a message on stderr) on I/O errors.
std::optional<std::string> read_input(const std::string& path);

// Prints `platformctl: <message>` on stderr and returns exit_usage.
int usage_error(const std::string& message);

// Writes text plus a newline on stdout.
void print_line(const std::string& text);

// Command groups, one file each.
int run_agents(int argc, char** argv);   // agents validate|hash
int run_setup(int argc, char** argv);    // setup validate
int run_tool(int argc, char** argv);     // tool request
int run_runtime(int argc, char** argv);  // runtime normalize|list
int run_agents_hash(const args& a);  // agents hash (cmd_hash.cpp)
int run_bridge(int argc, char** argv);   // bridge translate
int run_stream(int argc, char** argv);   // stream check

}  // namespace platformctl
