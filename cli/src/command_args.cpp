#include "command_args.hpp"

#include "app.hpp"

#include <charconv>

namespace cudabridge::cli {

namespace po = boost::program_options;

po::variables_map parse_options(const std::vector<std::string>& args, const po::options_description& options) {
    const po::parsed_options parsed = po::command_line_parser(args).options(options).run();
    const std::vector<std::string> stray = po::collect_unrecognized(parsed.options, po::include_positional);
    if (!stray.empty()) throw usage_error("unexpected argument '" + stray.front() + "'");
    po::variables_map vm;
    po::store(parsed, vm);
    return vm;
}

uint64_t count_arg(const std::string& text, const std::string& option, uint64_t min, uint64_t max) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
        throw usage_error(option + " must be a whole number from " + std::to_string(min) + " to " +
                          std::to_string(max) + ", not '" + text + "'");
    return v;
}

}  // namespace cudabridge::cli
