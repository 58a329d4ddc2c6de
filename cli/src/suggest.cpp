#include "suggest.hpp"

#include "app.hpp"

#include <algorithm>
#include <regex>
#include <set>

namespace cudabridge::cli {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring characters, each costing one.
size_t distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

std::string nearest(const std::string& typed, const std::vector<std::string>& known) {
    if (typed.empty()) return {};
    // A close misspelling: at most one edit in short words, two in longer ones.
    const size_t allowed = typed.size() <= 4 ? 1 : 2;
    std::string best;
    size_t best_distance = allowed + 1;
    for (const auto& k : known) {
        const size_t d = distance(typed, k);
        if (d < best_distance) {
            best = k;
            best_distance = d;
        }
    }
    if (!best.empty()) return best;
    // Else the start of exactly one word ("disc" for disconnect).
    std::vector<std::string> starting;
    for (const auto& k : known)
        if (k.size() > typed.size() && k.compare(0, typed.size(), typed) == 0) starting.push_back(k);
    return starting.size() == 1 ? starting.front() : std::string();
}

std::vector<std::string> options_named_in(const command& c) {
    static const std::regex option("--[a-z][a-z0-9-]*");
    std::set<std::string> seen;
    const std::string text = c.usage + "\n" + c.details;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), option); it != std::sregex_iterator(); ++it)
        seen.insert(it->str());
    return {seen.begin(), seen.end()};
}

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& known) {
    const std::string n = nearest(typed, known);
    return n.empty() ? std::string() : " (did you mean '" + n + "'?)";
}

}  // namespace cudabridge::cli
