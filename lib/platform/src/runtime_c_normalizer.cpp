#include "runtime_normalizers.hpp"

namespace platform {
namespace {

class runtime_c_normalizer final : public runtime_normalizer {
 public:
  void feed(std::string_view, std::string&) override {}
  void finish(std::string&) override {}
};

}  // namespace

std::unique_ptr<runtime_normalizer> make_runtime_c_normalizer() {
  return std::make_unique<runtime_c_normalizer>();
}

}  // namespace platform
