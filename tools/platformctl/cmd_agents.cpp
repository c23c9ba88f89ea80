// platformctl agents validate|hash. `hash` lives in cmd_hash.cpp (run_agents_hash).
#include "cli.hpp"
#include "platform/agents_config.hpp"
#include "platform/integration_setup.hpp"

namespace platformctl {
namespace {

// An invalid setup registers no integration, so agents.json is then checked without the
// cross-rules; the setup's own violations join the report with paths prefixed `setup:`.
void add_setup_problems(platform::violations& out, const platform::violations& setup_problems) {
  for (const auto& v : setup_problems) out.push_back({"setup:" + v.path, v.code, v.message});
}

int run_validate(const args& a) {
  if (a.positional.size() != 2) return usage_error("agents validate: expected FILE (or - for stdin)");
  std::optional<platform::integration_setup_report> setup;
  if (auto setup_path = a.get("setup")) {
    auto text = read_input(*setup_path);
    if (!text) return exit_usage;
    setup = platform::validate_integration_setup(*text);
  }
  auto text = read_input(a.positional[1]);
  if (!text) return exit_usage;
  const platform::integration_setup* known = setup && setup->setup ? &*setup->setup : nullptr;
  auto report = platform::validate_agents_config(*text, known);
  if (setup) add_setup_problems(report.problems, setup->problems);
  print_line(platform::violations_to_json(report.problems));
  return report.problems.empty() ? exit_ok : exit_invalid;
}

}  // namespace

int run_agents(int argc, char** argv) {
  if (argc < 3) return usage_error("agents: expected 'validate' or 'hash'");
  std::string verb = argv[2];
  std::string err;
  if (verb == "validate") {
    auto a = parse_args(argc, argv, 2, {"setup"}, err);
    if (!a) return usage_error("agents validate: " + err);
    return run_validate(*a);
  }
  if (verb == "hash") {
    auto a = parse_args(argc, argv, 2, {}, err);
    if (!a) return usage_error("agents hash: " + err);
    return run_agents_hash(*a);
  }
  return usage_error("agents: unknown verb '" + verb + "' (expected 'validate' or 'hash')");
}

}  // namespace platformctl
