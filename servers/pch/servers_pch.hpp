// Precompiled for every server source (meson cpp_pch): the two heavy headers nearly all of them
// include, parsed once per target instead of once per file (about 2 s of each file's compile).
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
