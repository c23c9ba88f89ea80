#include "cli.hpp"

namespace platformctl {

int run_setup(int, char**) { return usage_error("setup: not built yet"); }

}  // namespace platformctl
