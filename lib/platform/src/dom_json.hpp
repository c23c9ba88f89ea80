#pragma once
// The compact JSON text of a value of a simdjson DOM, byte for byte as simdjson::minify prints
// it, appended to a std::string: minify builds it one character at a time in a vector and then
// copies it, which showed in profiles of the bridge and runtime-b (a result line's usage, a
// tool's input or output).
#include <string>

#include <simdjson.h>

namespace platform::dom_json {

void append_minified(std::string& out, simdjson::dom::element value);

// `[item,item,...]`, each item written by `write_item(out, item)`: the array form of every
// printer of DOM values.
template <class WriteItem>
void append_array(std::string& out, simdjson::dom::array items, WriteItem&& write_item) {
  out.push_back('[');
  bool first = true;
  for (simdjson::dom::element item : items) {
    if (!first) out.push_back(',');
    first = false;
    write_item(out, item);
  }
  out.push_back(']');
}

inline std::string minified(simdjson::dom::element value) {
  std::string out;
  append_minified(out, value);
  return out;
}

}  // namespace platform::dom_json
