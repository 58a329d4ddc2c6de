#include "query/render.hpp"

#include <iomanip>
#include <sstream>

namespace cudabridge::cli::query {

namespace {

const char* origin_word(origin o) {
    switch (o) {
    case origin::identity:
        return "spec";
    case origin::telemetry:
    case origin::link:
        return "modeled";
    case origin::setting:
        return "setting";
    case origin::store:
        return "counted";
    case origin::host:
        return "host";
    }
    return "";
}

}  // namespace

std::optional<output_format> parse_format(std::string_view spec, std::string& why) {
    output_format f;
    bool csv = false;
    size_t start = 0;
    while (start <= spec.size()) {
        const size_t comma = std::min(spec.find(',', start), spec.size());
        const std::string word(spec.substr(start, comma - start));
        start = comma + 1;
        if (word == "csv")
            csv = true;
        else if (word == "json")
            f.json = true;
        else if (word == "noheader")
            f.header = false;
        else if (word == "nounits")
            f.units = false;
        else {
            why = word.empty() ? "--format has an empty entry ('" + std::string(spec) + "')"
                               : "unknown --format entry '" + word + "' (csv, noheader, nounits, or json)";
            return std::nullopt;
        }
    }
    if (csv == f.json) {
        why = "--format names one of csv and json ('" + std::string(spec) + "')";
        return std::nullopt;
    }
    if (f.json && (!f.header || !f.units)) {
        why = "noheader and nounits go with csv, not json";
        return std::nullopt;
    }
    return f;
}

std::string csv_heading(const std::vector<requested_field>& fields) {
    std::string out;
    for (const auto& r : fields) out += (out.empty() ? "" : ", ") + heading(*r.f, r.as_typed);
    return out;
}

std::string csv_row(const std::vector<requested_field>& fields, const gpu_snapshot& s, bool units) {
    std::string out;
    bool first = true;
    for (const auto& r : fields) {
        out += (first ? "" : ", ") + value_text(*r.f, r.f->read(s), units);
        first = false;
    }
    return out;
}

json_object json_row(const std::vector<requested_field>& fields, const gpu_snapshot& s) {
    auto values = make_object();
    for (const auto& r : fields) {
        const field_value v = r.f->read(s);
        switch (v.type) {
        case field_value::kind::missing:
            values->set(r.as_typed, Poco::Dynamic::Var());
            break;
        case field_value::kind::integer:
            values->set(r.as_typed, v.integer);
            break;
        case field_value::kind::number:
            values->set(r.as_typed, v.number);
            break;
        case field_value::kind::text:
            values->set(r.as_typed, v.text);
            break;
        }
    }
    auto o = make_object();
    o->set("index", s.index);
    o->set("id", s.device_id);
    o->set("modeled", s.simulated);
    if (!s.telemetry) o->set("telemetry_error", s.telemetry_error);
    o->set("values", values);
    return o;
}

std::string help_query_text() {
    std::ostringstream out;
    out << "Fields for 'cudabridge-cli query --gpu=FIELD,...' (nvidia-smi's names where nvidia-smi has the\n"
           "field; link.* and safety.* are CudaBridge's). The second column says where a figure comes from:\n"
           "  modeled  computed by the simulator on a simulated GPU or link; measured on hardware\n"
           "  spec     a property of the device (a simulated GPU's comes from its model profile)\n"
           "  setting  a value set on the GPU (power limit), not a reading\n"
           "  counted  the connection's state and the safety events recorded for it, any process's\n"
           "  host     this machine\n"
           "A value that is not available prints [N/A]. Units follow nvidia-smi: \"120.50 W\", \"1024 MiB\",\n"
           "\"35 %\", \"1410 MHz\"; --format=csv,nounits leaves them out of the values (the heading keeps them).\n\n";
    for (const auto& f : all_fields()) {
        std::string also;
        for (const auto& a : f.aliases) also += (also.empty() ? " (also " : ", ") + a;
        if (!also.empty()) also += ")";
        out << std::left << std::setw(38) << f.name << " " << std::setw(8) << origin_word(f.from) << " " << std::setw(5)
            << f.unit << " " << f.description << also << "\n";
    }
    return out.str();
}

}  // namespace cudabridge::cli::query
