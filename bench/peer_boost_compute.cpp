// clqsort-peer-boost - Boost.Compute's sort measured the way clqsort-bench measures clqsort, so
// that both can be compared from one CSV: device-resident median after warm-up runs, input
// restored from a device copy before each run, every run verified against std::sort.
//   clqsort-peer-boost [--vendor SUBSTRING] [--n LIST] [--runs N] [--warmup N] [--csv FILE]
// LIST: comma-separated sizes, numbers or 2^k. Exit status 1 if any run is wrong.
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace bc = boost::compute;

static size_t parse_size(const std::string &s)
{
    if (s.size() > 2 && s[0] == '2' && s[1] == '^')
        return size_t(1) << std::atoi(s.c_str() + 2);
    return size_t(std::strtoull(s.c_str(), nullptr, 10));
}

static bool contains_nocase(std::string hay, std::string needle)
{
    for (auto &c : hay)
        c = char(std::tolower((unsigned char)c));
    for (auto &c : needle)
        c = char(std::tolower((unsigned char)c));
    return hay.find(needle) != std::string::npos;
}

int main(int argc, char **argv)
{
    std::string vendor, n_list = "2^20", csv_path;
    int runs = 5, warmup = 1;
    for (int a = 1; a < argc; a++) {
        std::string s = argv[a];
        if (s == "--vendor" && a + 1 < argc)
            vendor = argv[++a];
        else if (s == "--n" && a + 1 < argc)
            n_list = argv[++a];
        else if (s == "--runs" && a + 1 < argc)
            runs = std::max(1, std::atoi(argv[++a]));
        else if (s == "--warmup" && a + 1 < argc)
            warmup = std::max(0, std::atoi(argv[++a]));
        else if (s == "--csv" && a + 1 < argc)
            csv_path = argv[++a];
        else {
            std::puts("usage: clqsort-peer-boost [--vendor SUBSTRING] [--n LIST] [--runs N] [--warmup N] [--csv FILE]");
            return s == "--help" ? 0 : 2;
        }
    }
    // the device clqsort-bench picks by default: the first GPU of a matching platform, else the
    // first device of one
    bc::device dev;
    bool found = false, gpu = false;
    for (auto &p : bc::system::platforms()) {
        if (!vendor.empty() && !contains_nocase(p.name(), vendor) && !contains_nocase(p.vendor(), vendor))
            continue;
        for (auto &d : p.devices())
            if (!gpu && (d.type() & CL_DEVICE_TYPE_GPU)) {
                dev = d;
                found = gpu = true;
            }
        if (!found && !p.devices().empty()) {
            dev = p.devices()[0];
            found = true;
        }
    }
    if (!found) {
        std::fprintf(stderr, "no OpenCL platform matches \"%s\"\n", vendor.c_str());
        return 2;
    }
    bc::context ctx(dev);
    bc::command_queue q(ctx, dev);
    std::printf("device: %s\n", dev.name().c_str());
    FILE *csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "a");
    if (!csv_path.empty() && !csv) {
        std::perror(csv_path.c_str());
        return 2;
    }
    if (csv && std::ftell(csv) == 0) // the columns of clqsort-bench --csv
        std::fputs("library,device,path,type,dist,n,runs,median_ms,min_ms,transfer_ms,mkeys_per_s,qsort_ms,levels,"
                   "launches,round_trips,verified\n",
                   csv);

    int failures = 0;
    std::stringstream sizes(n_list);
    for (std::string item; std::getline(sizes, item, ',');) {
        const size_t n = parse_size(item);
        std::vector<unsigned> keys(n), ref, out(n);
        std::mt19937 rng(12345 + unsigned(n));
        for (auto &k : keys)
            k = rng();
        ref = keys;
        std::sort(ref.begin(), ref.end());
        bc::vector<unsigned> src(n, ctx), work(n, ctx);
        bc::copy(keys.begin(), keys.end(), src.begin(), q);
        std::vector<double> ms;
        int ok_runs = 0;
        for (int r = -warmup; r < runs; r++) {
            bc::copy(src.begin(), src.end(), work.begin(), q);
            q.finish();
            auto t0 = std::chrono::steady_clock::now();
            bc::sort(work.begin(), work.end(), q);
            q.finish();
            auto t1 = std::chrono::steady_clock::now();
            bc::copy(work.begin(), work.end(), out.begin(), q);
            const bool ok = out == ref;
            if (r < 0) { // not timed, but a wrong warm-up run fails the program too
                failures += !ok;
                continue;
            }
            ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            ok_runs += ok;
            failures += !ok;
        }
        std::vector<double> sorted_ms = ms;
        std::sort(sorted_ms.begin(), sorted_ms.end());
        const double med = sorted_ms.size() % 2 ? sorted_ms[sorted_ms.size() / 2]
                                                : 0.5 * (sorted_ms[sorted_ms.size() / 2 - 1] + sorted_ms[sorted_ms.size() / 2]);
        std::printf("n=%zu uint32 uniform: boost.compute median %.3f ms (%.1f Mkeys/s), min %.3f ms; %d/%d runs verified\n",
                    n, med, n / med / 1e3, sorted_ms[0], ok_runs, runs);
        if (csv) {
            std::fprintf(csv, "boost.compute,\"%s\",-,uint32,uniform,%zu,%d,%.4f,%.4f,,%.2f,,,,,%d\n", dev.name().c_str(), n,
                         runs, med, sorted_ms[0], n / med / 1e3, ok_runs == runs);
            std::fflush(csv); // a sweep cut short keeps the rows it finished
        }
    }
    if (csv)
        std::fclose(csv);
    return failures ? 1 : 0;
}
