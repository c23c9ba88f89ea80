#pragma once
// What a row of the worker's route table (worker_routes.cpp) establishes before its handler
// runs, the same for every row: the caller (the web's internal token; a runtime's broker token
// is the broker's to check) → a draining worker's refusal of new work → the body parsed.
#include <httplib.h>

#include <cstddef>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "../common/route_table.hpp"

namespace platform::worker {

struct worker_call {
  const httplib::Request& req;
  const servers::path_ids& ids;  // the path's ids, in order
  const nlohmann::json* body;     // rows that take a body: a JSON object within the body limits

  // The path's i-th id ({app}, {run}, {key}, {mcp}), counted from 1 in the row's path.
  const std::string& id(std::size_t i) const { return ids.at(i - 1); }
};

}  // namespace platform::worker
