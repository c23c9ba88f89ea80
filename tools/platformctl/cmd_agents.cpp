#include "cli.hpp"

namespace platformctl {

int run_agents(int, char**) { return usage_error("agents: not built yet"); }

}  // namespace platformctl
