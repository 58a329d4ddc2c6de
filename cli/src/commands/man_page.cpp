#include "commands/man_page.hpp"

#include "app.hpp"

#include <sstream>

#ifndef CB_VERSION_STRING
#define CB_VERSION_STRING "0.0.0"
#endif

namespace cudabridge::cli {
namespace {

// Text as troff shows it literally: backslashes escaped, and a line that starts with a period
// or an apostrophe guarded so it is not read as a request.
std::string literal(const std::string& text) {
    std::string out;
    bool line_start = true;
    for (char c : text) {
        if (line_start && (c == '.' || c == '\'')) out += "\\&";
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
        line_start = c == '\n';
    }
    return out;
}

// A block shown as written: the help text's own line breaks and indentation.
void verbatim(std::ostringstream& out, const std::string& text) {
    out << ".PP\n.nf\n" << literal(text) << (text.empty() || text.back() != '\n' ? "\n" : "") << ".fi\n";
}

}  // namespace

std::string man_page(const std::string& exit_codes) {
    std::ostringstream out;
    out << ".TH CUDABRIDGE\\-CLI 1 \"\" \"CudaBridge " CB_VERSION_STRING "\" \"CudaBridge manual\"\n"
        << ".SH NAME\ncudabridge\\-cli \\- manage CudaBridge: CUDA on an external NVIDIA GPU over USB4 or "
           "Thunderbolt\n"
        << ".SH SYNOPSIS\n.B cudabridge\\-cli\n[\\fIglobal options\\fR] \\fICOMMAND\\fR [\\fIarguments\\fR]\n"
        << ".SH DESCRIPTION\nConnects, watches, diagnoses and benchmarks an eGPU, real or simulated, and "
           "keeps its history. Each command is described below as \\fBcudabridge\\-cli help\\fR "
           "\\fICOMMAND\\fR shows it.\n"
        << ".SH GLOBAL OPTIONS\n";
    verbatim(out, global_options_help());
    out << ".SH COMMANDS\n";
    for (const auto& c : app::commands()) {
        out << ".SS " << literal(c.name) << (c.alias.empty() ? "" : " (alias " + literal(c.alias) + ")") << "\n"
            << literal(c.summary) << "\n";
        verbatim(out, "cudabridge-cli " + c.usage);
        if (!c.details.empty()) verbatim(out, c.details);
    }
    out << ".SH EXIT STATUS\n";
    verbatim(out, exit_codes);
    out << ".SH FILES\nThe store is \\fI$CUDABRIDGE_HOME/cudabridge.db\\fR, else "
           "\\fI~/.local/state/cudabridge/cudabridge.db\\fR (\\fB\\-\\-db\\fR and \\fBCUDABRIDGE_DB\\fR "
           "choose another).\n"
        << ".SH SEE ALSO\n.BR nvidia\\-smi (1),\n.BR boltctl (1)\n";
    return out.str();
}

}  // namespace cudabridge::cli
