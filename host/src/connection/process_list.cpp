#include "connection/process_list.hpp"

#include <algorithm>

namespace cudabridge::host {

cb_status list_processes(const cb_gpu_table* table, void* instance, cb_gpu_device* handle,
                         std::vector<cb_gpu_process>& out) {
    out.clear();
    if (!table || !handle || !CB_HAS_FIELD(table, cb_gpu_table, processes) || !table->processes)
        return CB_ERR_UNSUPPORTED;
    cb_gpu_process blank{};
    blank.struct_size = sizeof blank;
    out.assign(4, blank);
    for (;;) {
        size_t count = 0;
        if (cb_status st = table->processes(instance, handle, out.data(), out.size(), &count); st != CB_OK) {
            out.clear();
            return st;
        }
        if (count <= out.size()) {
            out.resize(count);
            return CB_OK;
        }
        out.assign(count, blank);
    }
}

}  // namespace cudabridge::host
