#include "benchmark/plot.hpp"

#include "exit_codes.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/wait.h>
#include <unistd.h>

namespace cudabridge::cli {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "''";  // gnuplot's single-quote escape
        else
            out += c;
    }
    return out + "'";
}

bool gnuplot_present() {
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= p.size()) {
        const size_t end = p.find(':', start);
        const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!dir.empty() && ::access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return false;
}

}  // namespace

void plot_bandwidth(const std::vector<bench_figure>& figures, const std::string& png_path, const std::string& title,
                    bool simulated) {
    if (!gnuplot_present()) throw cli_error(exit_error, "--plot needs gnuplot (Debian: apt-get install gnuplot-nox)");
    char tmpl[] = "/tmp/cudabridge-plot-XXXXXX";
    if (!::mkdtemp(tmpl)) throw cli_error(exit_error, "cannot make a temporary folder for the plot");
    const fs::path dir = tmpl;
    // One data block per transfer kind: size, device-timed GB/s, wall GB/s.
    std::map<std::string, std::vector<const bench_figure*>> by_name;
    std::vector<std::string> order;
    for (const auto& f : figures)
        if (f.group == "transfer") {
            if (!by_name.count(f.name)) order.push_back(f.name);
            by_name[f.name].push_back(&f);
        }
    if (order.empty()) throw cli_error(exit_error, "no transfer figures to plot");
    {
        std::ofstream data(dir / "bandwidth.dat");
        for (const auto& name : order) {
            data << "# " << name << "\n";
            for (const auto* f : by_name[name]) data << f->size << " " << f->device << " " << f->wall << "\n";
            data << "\n\n";
        }
    }
    {
        std::ofstream script(dir / "plot.gp");
        script << "set terminal pngcairo size 1100,650 noenhanced font 'sans,10'\n"
               << "set output " << quoted(png_path) << "\n"
               << "set title " << quoted(title) << "\n"
               << "set logscale x 2\n"
               << "set logscale y 10\n"
               << "set format x '%.0b%B'\n"
               << "set xlabel 'transfer size (bytes)'\n"
               << "set ylabel 'GB/s'\n"
               << "set grid\n"
               << "set key outside right\n"
               << "plot ";
        for (size_t i = 0; i < order.size(); ++i) {
            script << (i ? ", " : "") << quoted((dir / "bandwidth.dat").string()) << " index " << i
                   << " using 1:2 with linespoints lw 2 lc " << i + 1 << " title "
                   << quoted(order[i] + (simulated ? " (device, modeled)" : " (device, measured)")) << ", "
                   << quoted((dir / "bandwidth.dat").string()) << " index " << i << " using 1:3 with lines dt 2 lc "
                   << i + 1 << " title " << quoted(order[i] + " (wall clock, measured)");
        }
        script << "\n";
    }
    const std::string log = (dir / "gnuplot.log").string();
    const pid_t pid = ::fork();
    if (pid == 0) {
        std::FILE* f = std::freopen(log.c_str(), "w", stderr);
        (void)f;
        ::execlp("gnuplot", "gnuplot", (dir / "plot.gp").c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::ifstream in(log);
        std::string why((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        fs::remove_all(dir);
        throw cli_error(exit_error, "gnuplot could not draw " + png_path + (why.empty() ? "" : ": " + why));
    }
    fs::remove_all(dir);
}

}  // namespace cudabridge::cli
