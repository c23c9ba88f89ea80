// platformctl stream check: an SSE body against the UI message stream invariants.
#include "cli.hpp"
#include "platform/stream_check.hpp"

namespace platformctl {

int run_stream(int argc, char** argv) {
  std::string err;
  auto a = parse_args(argc, argv, 2, {}, err);
  if (!a) return usage_error(err);
  if (a->positional.empty() || a->positional[0] != "check") return usage_error("stream: expected 'check'");
  if (a->positional.size() > 2) return usage_error("stream check: expected at most one FILE");
  auto input = read_input(a->positional.size() > 1 ? a->positional[1] : "-");
  if (!input) return exit_usage;
  auto report = platform::check_ui_stream(*input);
  print_line(platform::stream_report_to_json(report));
  return report.ok ? exit_ok : exit_invalid;
}

}  // namespace platformctl
