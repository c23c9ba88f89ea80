#include "platform/metrics.hpp"

#include <charconv>
#include <cmath>
#include <set>

namespace platform {

std::string_view to_string(metric_kind k) {
  switch (k) {
    case metric_kind::counter: return "counter";
    case metric_kind::gauge: return "gauge";
    case metric_kind::histogram: return "histogram";
  }
  return "untyped";
}

namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

tl::unexpected<error> metrics_bug(const metric_family& f, std::string what) {
  return fail(api_error::internal, "metric family \"" + f.name + "\": " + what);
}

// A sample's label set: `extra` (le) after the family's own.
void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view extra_name = {}, std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return;
  out += '{';
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    out += names[i];
    out += "=\"";
    append_label_value(out, values[i]);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out += '"';
  }
  out += '}';
}

result<void> check_family(const metric_family& f) {
  if (!valid_metric_name(f.name)) return metrics_bug(f, "not a metric name");
  std::set<std::string_view> names;
  for (const auto& l : f.label_names) {
    if (!valid_label_name(l)) return metrics_bug(f, "\"" + l + "\" is not a label name");
    if (f.kind == metric_kind::histogram && l == "le") return metrics_bug(f, "a histogram's label may not be le");
    if (!names.insert(l).second) return metrics_bug(f, "label \"" + l + "\" twice");
  }
  std::set<std::vector<std::string>> seen;
  auto label_set = [&](const std::vector<std::string>& values) -> result<void> {
    if (values.size() != f.label_names.size()) return metrics_bug(f, "a sample's label values do not match its label names");
    if (!seen.insert(values).second) return metrics_bug(f, "two samples with one label set");
    return {};
  };
  if (f.kind == metric_kind::histogram) {
    if (!f.samples.empty()) return metrics_bug(f, "a histogram has histogram samples only");
    for (std::size_t i = 0; i < f.bounds.size(); ++i) {
      if (!std::isfinite(f.bounds[i])) return metrics_bug(f, "a bucket bound is not finite");
      if (i && !(f.bounds[i] > f.bounds[i - 1])) return metrics_bug(f, "bucket bounds must increase");
    }
    for (const auto& h : f.histograms) {
      if (auto ok = label_set(h.label_values); !ok) return ok;
      if (h.bucket_counts.size() != f.bounds.size() + 1) return metrics_bug(f, "a sample's buckets do not match the bounds");
    }
    return {};
  }
  if (!f.histograms.empty() || !f.bounds.empty()) return metrics_bug(f, "only a histogram has buckets");
  for (const auto& s : f.samples) {
    if (auto ok = label_set(s.label_values); !ok) return ok;
    if (f.kind == metric_kind::counter && !(s.value >= 0)) return metrics_bug(f, "a counter is negative or not a number");
  }
  return {};
}

void append_integer(std::string& out, std::uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

}  // namespace

bool valid_metric_name(std::string_view name) {
  if (name.empty() || !(name_start(name[0]) || name[0] == ':')) return false;
  for (char c : name) {
    if (!name_char(c) && c != ':') return false;
  }
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || !name_start(name[0]) || name.starts_with("__")) return false;
  for (char c : name) {
    if (!name_char(c)) return false;
  }
  return true;
}

void append_label_value(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

void append_help_text(std::string& out, std::string_view help) {
  for (char c : help) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

void append_metric_value(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    // As Go's strconv.FormatFloat(v, 'g', -1, 64), which Prometheus's own clients write: the
    // shortest digits that read back as `value`, in fixed notation unless the exponent is
    // below -4 or 21 and above (so one bound is one label value, "0.0005", whoever wrote it).
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(end - buf));
    int exponent = 0;
    std::string_view digits = sci.substr(sci.find('e') + 1);
    if (digits.starts_with('+')) digits.remove_prefix(1);
    std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (exponent < -4 || exponent >= 21) {
      out += sci;
    } else {
      auto [fixed_end, fixed_ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
      out.append(buf, fixed_end);
    }
  }
}

result<std::string> write_exposition(std::span<const metric_family> families) {
  std::set<std::string_view> names;
  for (const auto& f : families) {
    if (auto ok = check_family(f); !ok) return tl::unexpected(ok.error());
    if (!names.insert(f.name).second) return metrics_bug(f, "two families with this name");
  }
  std::string out;
  for (const auto& f : families) {
    out += "# HELP ";
    out += f.name;
    out += ' ';
    append_help_text(out, f.help);
    out += "\n# TYPE ";
    out += f.name;
    out += ' ';
    out += to_string(f.kind);
    out += '\n';
    for (const auto& s : f.samples) {
      out += f.name;
      append_labels(out, f.label_names, s.label_values);
      out += ' ';
      append_metric_value(out, s.value);
      out += '\n';
    }
    for (const auto& h : f.histograms) {
      std::uint64_t total = 0;
      std::string le;
      for (std::size_t i = 0; i < h.bucket_counts.size(); ++i) {
        total += h.bucket_counts[i];
        le.clear();
        if (i < f.bounds.size()) append_metric_value(le, f.bounds[i]);
        else le = "+Inf";
        out += f.name;
        out += "_bucket";
        append_labels(out, f.label_names, h.label_values, "le", le);
        out += ' ';
        append_integer(out, total);
        out += '\n';
      }
      out += f.name;
      out += "_sum";
      append_labels(out, f.label_names, h.label_values);
      out += ' ';
      append_metric_value(out, h.sum);
      out += '\n';
      out += f.name;
      out += "_count";
      append_labels(out, f.label_names, h.label_values);
      out += ' ';
      append_integer(out, total);
      out += '\n';
    }
  }
  return out;
}

}  // namespace platform
