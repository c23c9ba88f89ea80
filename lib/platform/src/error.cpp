#include "platform/error.hpp"

#include <nlohmann/json.hpp>

namespace platform {

std::string violations_to_json(const violations& v) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& x : v) {
    list.push_back({{"path", x.path}, {"code", x.code}, {"message", x.message}});
  }
  return nlohmann::json{{"ok", v.empty()}, {"violations", std::move(list)}}.dump();
}

}  // namespace platform
