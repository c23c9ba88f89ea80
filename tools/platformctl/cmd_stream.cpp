#include "cli.hpp"

namespace platformctl {

int run_stream(int, char**) { return usage_error("stream: not built yet"); }

}  // namespace platformctl
