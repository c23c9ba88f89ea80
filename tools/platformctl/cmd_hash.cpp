#include "cli.hpp"

namespace platformctl {

int run_agents_hash(const args&) { return usage_error("agents hash: not built yet"); }

}  // namespace platformctl
