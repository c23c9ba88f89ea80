// The app package rules on arbitrary bytes: as an add_packages spec, as package.json and as
// package-lock.json. Contract: never crashes or throws; an accepted spec has a valid name and an
// exact version, and reads back to itself; an accepted manifest holds only valid names and
// exact versions, and the template pins merged into it keep it acceptable.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "platform/app_packages.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

constexpr std::string_view template_manifest =
    R"({"dependencies":{"react":"19.3.1"},"devDependencies":{"vite":"8.3.8","typescript":"7.0.2"}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto pin = platform::parse_package_pin(text)) {
    check(platform::valid_package_name(pin->name) && platform::exact_version(pin->version));
    check(pin->text() == text);
    auto again = platform::parse_package_pin(pin->text());
    check(again && *again == *pin);
  }
  auto request = platform::check_package_request({std::string(text), "clsx@2.1.1"}, {"react", "vite"});
  check(request.pins.size() + request.problems.size() == 2);
  auto manifest = platform::read_app_manifest(text);
  check(manifest.manifest.has_value() == manifest.problems.empty());
  if (manifest.manifest) {
    for (const auto& [name, version] : manifest.manifest->dependencies) {
      check(platform::valid_package_name(name) && platform::exact_version(version));
    }
    auto merged = platform::manifest_with_platform_pins(text, template_manifest);
    check(merged.has_value());
    if (merged->size() < 512 * 1024) {  // indenting a text near package.json's 1 MiB bound may pass it
      auto reread = platform::read_app_manifest(*merged);
      check(reread.manifest && reread.manifest->dev_dependencies.at("vite") == "8.3.8");
    }
    (void)platform::check_app_lock(text, &*manifest.manifest, {"registry.npmjs.org"});
  }
  (void)platform::check_app_lock(text, nullptr, {"registry.npmjs.org"});
  (void)platform::compare_installed_tree(text, {{"node_modules/a", "1.0.0"}}, platform::npm_platform{});
  return 0;
}
