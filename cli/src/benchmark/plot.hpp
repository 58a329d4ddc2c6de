// `benchmark --plot FILE.png`: bandwidth against transfer size, drawn by gnuplot (Debian's
// gnuplot-nox) from a data file and a script written to a temporary folder.
#pragma once

#include "benchmark/runner.hpp"

#include <string>
#include <vector>

namespace cudabridge::cli {

// Throws cli_error when gnuplot is missing or fails (its message included).
void plot_bandwidth(const std::vector<bench_figure>& figures, const std::string& png_path, const std::string& title,
                    bool simulated);

}  // namespace cudabridge::cli
