// The fields `query --gpu=...` knows: nvidia-smi's names (`nvidia-smi --help-query-gpu`) where
// nvidia-smi has the field, `link.*` and `safety.*` of CudaBridge's own for the Thunderbolt side
// and the safety policy. Each field is a pure function of a gpu_snapshot to a value with its unit,
// so the table is the one place that says what a field means, where it comes from and how it reads.
#pragma once

#include "query/gpu_snapshot.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::cli::query {

// Where a figure comes from, which says whether it is modeled on a simulated GPU.
enum class origin {
    identity,   // a property of the device (on a simulated GPU: its model profile's specification)
    telemetry,  // the GPU's sensors and counters: modeled by the simulator on a simulated GPU
    link,       // the transport's link figures: modeled by the simulated fabric on a simulated link
    setting,    // a setting the GPU holds (power limit): the value set, not a reading
    store,      // the connection's state and the events recorded for it (the same on hardware)
    host        // this machine (the time of the reading, how many GPUs it covers)
};
// True when a field of this origin is computed by the simulator on a simulated GPU (identity
// fields there are the model profile's specification: facts of the product, not readings).
bool modeled_on_simulator(origin o) noexcept;

// A value: a whole number, a number with decimals, or text; missing prints "[N/A]".
struct field_value {
    enum class kind { missing, integer, number, text };
    kind type = kind::missing;
    int64_t integer = 0;
    double number = 0;
    int decimals = 2;
    std::string text;

    static field_value none() { return {}; }
    static field_value whole(int64_t v);
    static field_value real(double v, int decimals);
    static field_value words(std::string v);
};

struct field {
    std::string name;
    std::vector<std::string> aliases;  // other nvidia-smi spellings ("clocks.current.sm")
    origin from = origin::identity;
    std::string unit;         // as nvidia-smi prints it after a value: "W", "MiB", "%", "MHz"; "" for none
    std::string description;  // one line
    std::function<field_value(const gpu_snapshot&)> read;
};

// The rest of nvidia-smi's fields (fields_nvidia_smi.cpp), some read as one of `base`: what the eGPU can tell from a reading,
// and elsewhere the answer nvidia-smi gives for a GeForce board without the feature, so that a
// script written for nvidia-smi runs unchanged.
std::vector<field> nvidia_smi_fields(const std::vector<field>& base);

// Every field, in the order --help-query lists them.
const std::vector<field>& all_fields();
// The field a name or alias names (exact, case-sensitive as nvidia-smi's); nullptr when none.
const field* find_field(std::string_view name);

// A field as the command line asked for it (the CSV heading echoes the spelling given).
struct requested_field {
    const field* f = nullptr;
    std::string as_typed;
};
// "name,temperature.gpu,power.draw" -> the fields in order (spaces around names ignored). An
// unknown name goes to `unknown` (the first one) and the result is empty; an empty list likewise
// with `unknown` empty.
std::vector<requested_field> parse_field_list(std::string_view list, std::string& unknown);
// True when a list names fields but has an empty entry between them or at an end
// ("name,,temperature.gpu", "name,"): a mistake nvidia-smi refuses too.
bool has_empty_entry(std::string_view list);

// A value of field f as text: "120.50 W" with units, "120.50" without, "[N/A]" when missing.
std::string value_text(const field& f, const field_value& v, bool units);
// The field's CSV heading: "power.draw [W]" (nvidia-smi keeps the unit there with nounits too).
std::string heading(const field& f, const std::string& as_typed);

// "2026/12/03 09:15:05.123": nvidia-smi's timestamp form, local time.
std::string nvidia_smi_timestamp(int64_t unix_ns);
// "0000:05:00.0" -> "00000000:05:00.0": nvidia-smi's bus id form (8-digit domain, upper-case hex).
std::string nvidia_smi_bus_id(std::string_view id);

}  // namespace cudabridge::cli::query
