#pragma once
// Factories of the per-runtime normalizers, one source file each.
#include <memory>

#include "platform/runtime_normalizer.hpp"

namespace platform {

std::unique_ptr<runtime_normalizer> make_runtime_b_normalizer();
std::unique_ptr<runtime_normalizer> make_runtime_c_normalizer();

}  // namespace platform
