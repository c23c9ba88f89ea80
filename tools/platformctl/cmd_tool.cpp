#include "cli.hpp"

namespace platformctl {

int run_tool(int, char**) { return usage_error("tool: not built yet"); }

}  // namespace platformctl
