// `reset [--hard]`: a manual GPU reset; clears a "failed" mark or an emergency stop.
#include "app.hpp"
#include "json_output.hpp"
#include "process_table.hpp"

#include <cudabridge/core/error.hpp>

#include <iostream>

namespace cudabridge::cli {

namespace {

int run_reset(app& a, const std::vector<std::string>& args) {
    bool hard = false;
    for (const auto& arg : args) {
        if (arg == "--hard")
            hard = true;
        else if (arg == "--soft")
            hard = false;
        else
            throw usage_error("unknown argument '" + arg + "' (reset takes --hard or --soft)");
    }
    // A hard reset must also reach a GPU that no longer answers: it is reset through the link.
    if (hard) a.reset_unanswering_gpus();
    auto& d = a.device();
    // Whoever else uses the device loses its queued work (and, hard, its memory): say who.
    const json_array others = process_rows(other_processes(d));
    if (!a.options().json) {
        std::cout << (hard ? "Hard" : "Soft") << "-resetting " << d.properties().name << " ("
                  << (hard ? "engines, memory and a function-level reset; allocations are lost"
                           : "engines; memory stays")
                  << ")\n";
        if (others->size()) print_process_table(std::cout, others);
    }
    const cb_status st = d.manual_reset(hard);
    const std::string why = st == CB_OK ? "" : core::last_error();
    if (a.options().json) {
        auto o = make_object();
        o->set("reset", hard ? "hard" : "soft");
        o->set("ok", st == CB_OK);
        o->set("state", std::string(host::state_name(d.state())));
        o->set("processes", others);
        if (st != CB_OK) o->set("error", why);
        print_json(o);
    } else if (st == CB_OK) {
        std::cout << "Done: the device answers again (state " << host::state_name(d.state()) << ").\n";
    }
    if (st != CB_OK) throw cli_error(exit_code_for(st), why);
    return exit_ok;
}

}  // namespace

command reset_command() {
    return {"reset",
            "r",
            "reset the GPU (soft, or --hard)",
            "reset [--hard]",
            "Soft (the default): the GPU's engines are reset and queued work is abandoned; memory\n"
            "stays. --hard: a full reset (a function-level reset through the link when the GPU does\n"
            "not answer, a reconnect when that fails); allocations are gone. Either clears a 'failed'\n"
            "mark left by exhausted recovery and an emergency stop. The other processes using the\n"
            "eGPU are listed first: their queued work is abandoned too.\n"
            "Examples:\n"
            "  cudabridge-cli reset\n"
            "  cudabridge-cli reset --hard",
            false,
            run_reset};
}

}  // namespace cudabridge::cli
