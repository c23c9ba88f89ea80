#include "cli.hpp"

namespace platformctl {

int run_runtime(int, char**) { return usage_error("runtime: not built yet"); }

}  // namespace platformctl
