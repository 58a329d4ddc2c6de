// The columns of the CSV file: one header, and one value per column for each log record.
#pragma once

#include <cudabridge/logsink.h>

#include <string>
#include <vector>

namespace csv_sink {

// time, time_ns, level, category, thread, device, message.
const std::vector<std::string>& column_names();

// The record's values in column order. A record from an older host may lack fields: the record
// is read only as far as its struct_size says.
std::vector<std::string> column_values(const cb_log_record& record);

}  // namespace csv_sink
