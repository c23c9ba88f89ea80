#pragma once
// The JSON forms of the runtime registry and of normalized settings: what GET /runtimes and
// `platformctl runtime` answer, and the settings a turn carries to the worker.
#include <string>

#include "platform/error.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/runtime_settings.hpp"

namespace platform {

// {"settings":{"runtimeId","runtimeModel","runtimeParams"},"downgrades":[{param,from,to,reason}],
//  "args":[...],"protocolParams":{...}}
std::string normalized_settings_to_json(const normalized_settings& s);

// {"error":{"code","message"}}
std::string error_to_json(const error& e);

// {"runtimes":[{id, displayName, defaultModel, dynamicModels, params:[...], fallbacks:[...],
//  models:[{id, displayName, description, aliases, params:{name:{values, default}}, pricing?}]}]}
// Each model lists the values available on it and its effective default.
std::string runtime_registry_to_json(const runtime_registry& registry);

}  // namespace platform
