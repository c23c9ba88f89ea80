#include "metrics_routes.hpp"

namespace platform::web::metrics_routes {

void get_metrics(web_app&, const route_call&, httplib::Response& res) {
  res.set_content("", "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace platform::web::metrics_routes
