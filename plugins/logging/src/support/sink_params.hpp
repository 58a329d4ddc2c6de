// A sink's parameters: declared to the host with help text (and a range for numbers), then read
// back. The host resolves instance config > stored setting > declared default; when a host does
// not answer for a name, the instance's config entry and then the default are used here.
// Values that do not parse or fall outside their range fail creation with a status_error naming
// the sink, the parameter and what is accepted.
#pragma once

#include <cudabridge/cpp/host.hpp>

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace cudabridge::plugins::logging {

class sink_params {
public:
    sink_params(const sdk::host& h, const sdk::config& c, std::string sink_name);

    void declare_text(const char* name, const std::string& default_value, const char* help);
    // One of `choices`; the host refuses any other value when it is set.
    void declare_choice(const char* name, const std::string& default_value, const char* help,
                        std::initializer_list<const char*> choices);
    // A folder; the host refuses one it cannot create or write when it is set.
    void declare_directory(const char* name, const std::string& default_value, const char* help);
    void declare_int(const char* name, long long default_value, long long min, long long max, const char* help);

    // The effective text value of a declared parameter.
    std::string text(const char* name) const;
    // One of the declared choices (exact match); anything else is an invalid argument.
    std::string choice(const char* name) const;
    // An integer within the declared range.
    long long integer(const char* name) const;

    const std::string& sink_name() const noexcept { return sink_; }

private:
    struct declared {
        std::string default_value;
        bool has_range = false;
        long long min = 0;
        long long max = 0;
        std::vector<std::string> choices;
    };
    const declared& find(const char* name) const;

    sdk::host host_;
    sdk::config config_;
    std::string sink_;
    std::map<std::string, declared, std::less<>> declared_;
};

}  // namespace cudabridge::plugins::logging
