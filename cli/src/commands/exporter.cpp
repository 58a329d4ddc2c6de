// `exporter [--listen HOST:PORT]`: a Prometheus exporter on Poco's HTTP server. GET /metrics
// reads every connected eGPU (as `query` does: through the work gate, recording nothing) and
// answers in the Prometheus text format with dcgm-exporter's metric names; any other path is 404.
// SIGINT or SIGTERM stops it cleanly.
#include "app.hpp"
#include "command_args.hpp"
#include "exporter/listen_address.hpp"
#include "exporter/prometheus_text.hpp"
#include "interruption.hpp"
#include "process_table.hpp"
#include "query/read_snapshot.hpp"
#include "time_text.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

std::string host_name() {
    char b[256] = {};
    if (gethostname(b, sizeof b - 1) != 0) return "localhost";
    return b;
}

// What every request reads: the attached devices. One scrape at a time (the store is used by one
// thread at a time, and two scrapes at once would only read the same figures twice). With none
// attached, a scrape looks again for eGPUs connected since (as dcgm-exporter keeps serving with
// no GPU), and serves cudabridge_egpus 0 until one is.
class metrics_source {
public:
    explicit metrics_source(app& a) : a_(a), host_(host_name()) {}

    std::string scrape() {
        std::lock_guard lock(mutex_);
        const int64_t now = unix_now_ns();
        const std::vector<int> which = attached();
        std::vector<query::gpu_snapshot> gpus;
        gpus.reserve(which.size());
        auto& rt = a_.runtime();
        for (int i : which) {
            auto& d = rt.device(i);
            gpus.push_back(query::read_snapshot(rt.current_session(), d, i, static_cast<int>(which.size()), now));
            gpus.back().processes = other_processes(d);
            link_rates(gpus.back());
        }
        return exporter::render_metrics(gpus, host_);
    }

    // The eGPUs a scrape reads (the one -d names, or every one); with none, the runtime is made
    // again so that a connection made since is attached.
    std::vector<int> attached() {
        if (a_.runtime().device_count() == 0) a_.close_runtime();
        const int n = a_.runtime().device_count();
        if (a_.options().device) {
            if (*a_.options().device < n) return {*a_.options().device};
            return {};
        }
        std::vector<int> all(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
        return all;
    }

private:
    // The link's bytes per second since this GPU's previous scrape (DCGM's PCIe TX/RX rates).
    void link_rates(query::gpu_snapshot& g) {
        auto& before = previous_[g.uuid];
        const double seconds = double(g.time_ns - before.time_ns) / 1e9;
        const bool counted_on = g.link.bytes_to_device >= before.to && g.link.bytes_from_device >= before.from;
        if (before.time_ns != 0 && seconds > 0 && counted_on) {  // a link that came up again starts over
            g.link_to_device_per_s = double(g.link.bytes_to_device - before.to) / seconds;
            g.link_from_device_per_s = double(g.link.bytes_from_device - before.from) / seconds;
        }
        before = {g.time_ns, g.link.bytes_to_device, g.link.bytes_from_device};
    }
    struct link_bytes {
        int64_t time_ns = 0;
        uint64_t to = 0, from = 0;
    };
    std::map<std::string, link_bytes> previous_;  // by GPU UUID
    app& a_;
    std::string host_;
    std::mutex mutex_;
};

class metrics_handler : public Poco::Net::HTTPRequestHandler {
public:
    explicit metrics_handler(metrics_source& source) : source_(source) {}

    void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override {
        using Poco::Net::HTTPResponse;
        const std::string path = request.getURI().substr(0, request.getURI().find('?'));
        std::string body;
        if (path != "/metrics") {
            response.setStatus(HTTPResponse::HTTP_NOT_FOUND);
            body = "not found: this exporter serves /metrics\n";
        } else if (request.getMethod() != "GET" && request.getMethod() != "HEAD") {
            response.setStatus(HTTPResponse::HTTP_METHOD_NOT_ALLOWED);
            response.set("Allow", "GET, HEAD");
            body = "method not allowed: GET /metrics\n";
        } else {
            try {
                body = source_.scrape();
                response.setStatus(HTTPResponse::HTTP_OK);
                response.setContentType(exporter::prometheus_content_type);
            } catch (const std::exception& e) {
                response.setStatus(HTTPResponse::HTTP_INTERNAL_SERVER_ERROR);
                body = std::string("could not read the eGPU: ") + e.what() + "\n";
            }
        }
        if (response.getContentType() == Poco::Net::HTTPMessage::UNKNOWN_CONTENT_TYPE)
            response.setContentType("text/plain; charset=utf-8");
        response.setContentLength(static_cast<std::streamsize>(body.size()));
        auto& out = response.send();
        if (request.getMethod() != "HEAD") out << body;
    }

private:
    metrics_source& source_;
};

class handler_factory : public Poco::Net::HTTPRequestHandlerFactory {
public:
    explicit handler_factory(metrics_source& source) : source_(source) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
        return new metrics_handler(source_);
    }

private:
    metrics_source& source_;
};

int run_exporter(app& a, const std::vector<std::string>& args) {
    po::options_description d;
    d.add_options()("listen", po::value<std::string>()->default_value("127.0.0.1:9400"), "");
    const po::variables_map vm = parse_options(args, d);
    const std::string listen_text = vm["listen"].as<std::string>();
    std::string why;
    const auto listen = exporter::parse_listen_address(listen_text, why);
    if (!listen) throw usage_error("--listen " + why);

    Poco::Net::SocketAddress address;
    try {
        address = listen->host.empty() ? Poco::Net::SocketAddress(Poco::Net::IPAddress(), listen->port)
                                       : Poco::Net::SocketAddress(listen->host, listen->port);
    } catch (const Poco::Exception& e) {
        throw usage_error("--listen '" + listen_text + "': " + e.displayText());
    }

    // Attach before listening; with no eGPU connected yet the exporter serves all the same.
    a.read_only();
    metrics_source source(a);
    const std::vector<int> which = source.attached();

    Poco::Net::ServerSocket socket;
    try {
        // Address reuse (a restart while old connections linger), not port sharing: a second
        // exporter on a port in use is an error, not a silent neighbour.
        socket.bind(address, true, false);
        socket.listen(64);
    } catch (const Poco::Exception& e) {
        throw cli_error(exit_error, "cannot listen on " + address.toString() + ": " + e.displayText());
    }

    auto params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(4);
    params->setMaxQueued(32);
    params->setKeepAlive(false);
    Poco::Net::HTTPServer server(new handler_factory(source), socket, params);
    const interruption_scope stop;
    server.start();
    const bool modeled = !which.empty() && a.runtime().device(which.front()).properties().is_simulated != 0;
    std::cout << "Serving http://" << socket.address().toString() << "/metrics for " << which.size() << " eGPU"
              << (which.size() == 1 ? "" : "s") << " ("
              << (which.empty() ? "none connected yet: each scrape looks again"
                  : modeled     ? "figures modeled by the simulator"
                                : "figures measured on hardware")
              << "); Ctrl-C or SIGTERM stops\n"
              << std::flush;
    while (!interruption_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server.stopAll(true);
    std::cout << "Stopped.\n" << std::flush;
    return exit_ok;
}

}  // namespace

command exporter_command() {
    return {"exporter",
            "",
            "serve the eGPUs' metrics to Prometheus (dcgm-exporter's names)",
            "exporter [--listen HOST:PORT]",
            "Serves GET /metrics in the Prometheus text format until Ctrl-C or SIGTERM (exit code 0).\n"
            "Each scrape reads every connected eGPU (or the one -d N names) without recording\n"
            "anything. The GPU's figures carry dcgm-exporter's names (DCGM_FI_DEV_GPU_TEMP,\n"
            "DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_GPU_UTIL, ...) and labels (gpu,\n"
            "UUID, pci_bus_id, device, modelName, Hostname); cudabridge_link_* and cudabridge_safety_*\n"
            "cover the Thunderbolt link and the safety policy, and cudabridge_gpu_modeled is 1 when\n"
            "the figures are the simulator's. Other paths answer 404.\n"
            "  --listen HOST:PORT   where to listen (default 127.0.0.1:9400; [IPV6]:PORT; :PORT for\n"
            "                       every interface; port 0 picks a free one, printed at start)\n"
            "With no eGPU connected it serves all the same (cudabridge_egpus 0) and each scrape looks\n"
            "again. Exit code 2 for a --listen that is not HOST:PORT, 1 when the address cannot be\n"
            "listened on.\n"
            "Examples:\n"
            "  cudabridge-cli exporter\n"
            "  cudabridge-cli exporter --listen :9400",
            false,
            run_exporter};
}

}  // namespace cudabridge::cli
