// Precompiled for the unit test executable (meson cpp_pch): the two heavy headers most test
// files include, parsed once instead of once per file.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
