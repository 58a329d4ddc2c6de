// nvidia-smi pmon's lines: one per process on each GPU, its type and, per engine, the share of
// the sample it used ("-": no sample, as nvidia-smi prints for a process it has no figure for),
// optionally the device memory it holds ("fb", MB). A pure function of the process rows.
#pragma once

#include <cudabridge/gpu.h>

#include <string>
#include <vector>

namespace cudabridge::cli::query {

struct pmon_columns {
    bool utilization = true;  // -s u: sm mem enc dec jpg ofa
    bool memory = false;      // -s m: fb
};

// The two heading lines ("# gpu ... command", "# Idx ... name").
std::vector<std::string> pmon_heading(const pmon_columns& columns);
// One line per process of GPU `gpu`; a line of dashes when there is none, as nvidia-smi prints.
std::vector<std::string> pmon_lines(int gpu, const std::vector<cb_gpu_process>& processes, const pmon_columns& columns);

}  // namespace cudabridge::cli::query
