// platformctl setup validate: integration-setup.json as present_integration_setup checks it.
#include "cli.hpp"
#include "platform/integration_setup.hpp"

namespace platformctl {

int run_setup(int argc, char** argv) {
  std::string err;
  auto a = parse_args(argc, argv, 2, {}, err);
  if (!a) return usage_error("setup: " + err);
  if (a->positional.empty() || a->positional[0] != "validate") {
    return usage_error("setup: expected 'validate'");
  }
  if (a->positional.size() != 2) return usage_error("setup validate: expected FILE (or - for stdin)");
  auto text = read_input(a->positional[1]);
  if (!text) return exit_usage;
  auto report = platform::validate_integration_setup(*text);
  print_line(platform::violations_to_json(report.problems));
  return report.problems.empty() ? exit_ok : exit_invalid;
}

}  // namespace platformctl
