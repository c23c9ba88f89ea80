#pragma once
// The builder's platform tools (spec "What the service does" 8 and 9), run by the broker.
#include <vector>

#include "broker.hpp"
#include "worker_config.hpp"

namespace platform::worker {

std::vector<tool_binding> builder_tools(const config& cfg);

}  // namespace platform::worker
