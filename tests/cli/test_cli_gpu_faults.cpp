// kernelscope-cli after a variant broke the CUDA context: the later CUDA variants are skipped with the reason, the CPU
// variants run, every output is written, the reason is said once more on stderr, and the exit status is 6. The
// context is marked broken by hand (the variant that breaks it for real is test-only: tests/compute/test_gpu_faults),
// in a child process, since the mark is process-wide and permanent.
#include "cli/cli.h"
#include "cli_fixture.h"
#include "compute/core/device_fault.h"
#include "compute/core/results_io.h"
#include "compute/device/device_info.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <iostream>

namespace ks::cli::test {
namespace {

class CliGpuFaults : public CliTest { };

TEST_F(CliGpuFaults, ABrokenContextSkipsTheCudaVariantsWritesEverythingAndExitsSix)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            const std::string report
                = brokenContextReport("an illegal memory access was encountered", runPlace("spmv", "faulty", 4096));
            device::markCudaUnusable(report);
            const int code
                = cli({"run", "-w", "linreg", "-v", "reference,shared_tree,cpu_openmp", "-g", "n=1000", "--min-reps",
                    "2", "--max-reps", "3", "--no-calibrate", "-q", "--csv", path("r.csv"), "--json", path("r.json")});
            int failures = 0;
            auto check = [&](bool ok, const std::string& what) {
                if (!ok) {
                    std::cerr << "FAILED: " << what << '\n';
                    ++failures;
                }
            };
            check(code == kExitCudaBroken, "exit status 6, got " + std::to_string(code));
            check(m_err.str().find("error: " + report + "\n") != std::string::npos,
                "stderr says the report: " + m_err.str());
            const std::vector<Summary> rows = readCsv(path("r.csv"));
            check(rows.size() == 3, "three CSV rows");
            check(readJson(path("r.json")).size() == 3, "three JSON rows");
            for (const auto& s : rows) {
                // Without CUDA the variant was never built, and that stays its reason.
                if (s.variant == "shared_tree")
                    check(s.outcome == Outcome::Skipped && (s.message == report || !KS_HAVE_CUDA),
                        "shared_tree skipped: " + s.message);
                else
                    check(s.outcome == Outcome::Passed, s.variant + " passed: " + s.message);
            }
            std::filesystem::remove_all(m_dir);
            std::cerr.flush();
            std::exit(failures == 0 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace ks::cli::test
