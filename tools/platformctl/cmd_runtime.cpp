// platformctl runtime normalize|list|usage: the runtime registry and usage accounting.
#include <map>
#include <string>

#include "cli.hpp"
#include "platform/opencode_catalog.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/runtime_registry_json.hpp"
#include "platform/runtime_settings.hpp"
#include "platform/usage.hpp"

namespace platformctl {
namespace {

// The registry, with runtime-c's models from `--models-file` (output of
// `opencode models --verbose`) when given. On failure the exit code to return.
struct loaded_registry {
  platform::runtime_registry registry = platform::builtin_runtime_registry();
  int failure = exit_ok;
};

loaded_registry load_registry(const args& a) {
  loaded_registry out;
  auto file = a.get("models-file");
  if (!file) return out;
  auto text = read_input(*file);
  if (!text) {
    out.failure = exit_usage;
    return out;
  }
  auto catalog = platform::parse_opencode_models(*text);
  if (!catalog) {
    print_line(platform::error_to_json(catalog.error()));
    out.failure = exit_invalid;
    return out;
  }
  (void)out.registry.set_models("runtime-c", platform::runtime_c_models(*catalog));
  return out;
}

// --param K=V, each K once.
bool collect_params(const args& a, std::map<std::string, std::string>& params, std::string& err) {
  for (const auto& kv : a.get_all("param")) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      err = "--param needs KEY=VALUE, got '" + kv + "'";
      return false;
    }
    if (!params.emplace(kv.substr(0, eq), kv.substr(eq + 1)).second) {
      err = "--param " + kv.substr(0, eq) + " given twice";
      return false;
    }
  }
  return true;
}

int normalize(const args& a) {
  if (a.positional.size() != 1) return usage_error("runtime normalize: unexpected argument '" + a.positional[1] + "'");
  auto runtime = a.get("runtime");
  if (!runtime) return usage_error("runtime normalize: --runtime is required");
  if (a.get_all("runtime").size() > 1 || a.get_all("model").size() > 1) {
    return usage_error("runtime normalize: --runtime and --model may be given once");
  }
  std::map<std::string, std::string> params;
  std::string err;
  if (!collect_params(a, params, err)) return usage_error("runtime normalize: " + err);
  auto loaded = load_registry(a);
  if (loaded.failure != exit_ok) return loaded.failure;
  auto s = platform::normalize_runtime_settings(loaded.registry, *runtime, a.get("model"), params);
  if (!s) {
    print_line(platform::error_to_json(s.error()));
    return exit_invalid;
  }
  print_line(platform::normalized_settings_to_json(*s));
  return exit_ok;
}

int list(const args& a) {
  if (a.positional.size() != 1) return usage_error("runtime list: unexpected argument '" + a.positional[1] + "'");
  auto loaded = load_registry(a);
  if (loaded.failure != exit_ok) return loaded.failure;
  print_line(platform::runtime_registry_to_json(loaded.registry));
  return exit_ok;
}

// The model a turn is billed to when the output does not name it: --model, else the runtime's
// default model.
std::string usage_model(const args& a, const platform::runtime_registry& r, const std::string& runtime) {
  if (auto m = a.get("model")) {
    const platform::runtime_info* rt = r.find(runtime);
    const platform::runtime_model* known = rt ? rt->find_model(*m) : nullptr;
    return known ? known->id : *m;
  }
  const platform::runtime_info* rt = r.find(runtime);
  return rt ? rt->default_model : std::string();
}

// {"turns":[RunUsage...],"total":RunUsage}
int usage(const args& a) {
  if (a.positional.size() > 2) return usage_error("runtime usage: expected at most one FILE");
  auto runtime = a.get("runtime");
  if (!runtime) return usage_error("runtime usage: --runtime is required");
  auto loaded = load_registry(a);
  if (loaded.failure != exit_ok) return loaded.failure;
  auto input = read_input(a.positional.size() > 1 ? a.positional[1] : "-");
  if (!input) return exit_usage;
  platform::usage_context ctx;
  ctx.model = usage_model(a, loaded.registry, *runtime);
  ctx.pricing = loaded.registry.pricing();
  auto turns = platform::turn_usages(*runtime, *input, std::move(ctx));
  if (!turns) {
    print_line(platform::error_to_json(turns.error()));
    return exit_invalid;
  }
  std::string out = "{\"turns\":[";
  platform::run_usage total;
  for (std::size_t i = 0; i < turns->size(); ++i) {
    if (i > 0) out += ',';
    out += platform::run_usage_to_json((*turns)[i]);
    total += (*turns)[i];
  }
  out += "],\"total\":" + platform::run_usage_to_json(total) + "}";
  print_line(out);
  return exit_ok;
}

}  // namespace

int run_runtime(int argc, char** argv) {
  std::string err;
  auto a = parse_args(argc, argv, 2, {"runtime", "model", "param", "models-file"}, err);
  if (!a) return usage_error(err);
  if (a->positional.empty()) return usage_error("runtime: expected 'normalize', 'list' or 'usage'");
  const std::string& verb = a->positional[0];
  if (verb == "normalize") return normalize(*a);
  if (verb == "list") return list(*a);
  if (verb == "usage") return usage(*a);
  return usage_error("runtime: unknown verb '" + verb + "'");
}

}  // namespace platformctl
