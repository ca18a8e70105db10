// Requests that cannot give a meaningful run are refused up front, exit 2 with one line naming the parameter or
// file: an sdh bucket width whose histogram would not fit, linreg on constant x, a --vector nothing reads, a --device
// that does not exist, an input that is not a regular file.
#include "cli_fixture.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace ks::cli::test {
namespace {

class CliValidation : public CliTest {
protected:
    /// Runs the CLI and checks it refused the request before running anything: exit 2, and stderr exactly one line,
    /// "error: ..." containing `expected`.
    void expectRefused(std::vector<std::string> args, const std::string& expected)
    {
        SCOPED_TRACE(expected);
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(cli(std::move(args)), kExitBadInput);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
        const std::string err = m_err.str();
        EXPECT_NE(err.find(expected), std::string::npos) << "got: " << err;
        const auto at = err.find("error: ");
        ASSERT_NE(at, std::string::npos) << err;
        EXPECT_EQ(err.find('\n', at), err.size() - 1) << "one line: " << err;
        EXPECT_EQ(m_out.str().find("reference"), std::string::npos) << "nothing ran: " << m_out.str();
    }
};

TEST_F(CliValidation, SdhBucketsBeyondMemoryAreRefusedWithTheFigure)
{
    // The width is within its axis (1e-12..1e12) but makes 4·10^13 buckets over the generated box's diagonal: 290 TiB
    // a histogram copy. It used to fail the run (exit 1) once the reference allocated.
    expectRefused({"run", "-w", "sdh", "-v", "reference", "-g", "points=100", "-p", "bucket_width=1e-9", "-q"},
        "bucket_width=1e-09 makes 3.984e+13 buckets (bounding-box diagonal 3.984e+04, about, for box=23000): 289.85 "
        "TiB "
        "per histogram, over the ");
    // Below memory but above the 10^8 cap every variant allocates for.
    expectRefused({"run", "-w", "sdh", "-v", "reference", "-g", "points=100,box=1", "-p", "bucket_width=1e-8", "-q"},
        "buckets (bounding-box diagonal 1.732, about, for box=1): 1.29 GiB per histogram, at most 10^8 buckets");
}

TEST_F(CliValidation, SdhBucketsAreCountedOnTheLoadedCloud)
{
    std::ofstream(path("cloud.csv")) << "x,y,z\n0,0,0\n1000000,0,0\n0,5,0\n";
    // The file's extent is the cause, so the refusal names the file as a reader's error would.
    expectRefused({"run", "-w", "sdh", "-i", path("cloud.csv"), "-p", "bucket_width=1e-6", "-q"},
        path("cloud.csv") + ": bucket_width=1e-06 makes 1e+12 buckets (bounding-box diagonal 1e+06, this cloud)");
    // The first two points only span 10^6 too; the size's own points decide.
    expectRefused({"run", "-w", "sdh", "-i", path("cloud.csv"), "-s", "2", "-p", "bucket_width=1e-6", "-q"},
        "(bounding-box diagonal 1e+06, its first 2 points)");
    EXPECT_EQ(cli({"run", "-w", "sdh", "-v", "reference", "-i", path("cloud.csv"), "-p", "bucket_width=1000",
                  "--min-reps", "1", "--max-reps", "1", "--no-calibrate", "-q"}),
        kExitOk)
        << m_err.str();
}

TEST_F(CliValidation, LinregOnConstantXIsRefused)
{
    std::ofstream(path("flat.csv")) << "x,y\n2,1\n2,3\n2,5\n";
    expectRefused({"run", "-w", "linreg", "-i", path("flat.csv"), "-q"},
        "x is constant: the slope is undefined (flat.csv: x = 2 in every point)");
    std::ofstream(path("fine.csv")) << "x,y\n1,1\n2,3\n3,5\n";
    expectRefused({"run", "-w", "linreg", "-i", path("fine.csv"), "-s", "1,3", "-q"},
        "x is constant: the slope is undefined (fine.csv: one point)");
    expectRefused({"run", "-w", "linreg", "-g", "n=1", "-q"}, "x is constant: the slope is undefined (n=1: one point)");
    expectRefused({"run", "-w", "linreg", "-g", "n=100,x_span=0", "-q"},
        "x is constant: the slope is undefined (x_span=0 leaves every x at x_offset=0)");
    // A span below the offset's last digit rounds every x to the offset.
    expectRefused({"run", "-w", "linreg", "-g", "n=100,x_offset=1e15,x_span=0.01", "-q"}, "x is constant");
    expectRefused({"run", "-w", "linreg", "-g", "n=100", "-s", "1,100", "-q"}, "x is constant");
    EXPECT_EQ(cli({"run", "-w", "linreg", "-v", "reference", "-i", path("fine.csv"), "--min-reps", "1", "--max-reps",
                  "1", "--no-calibrate", "-q"}),
        kExitOk)
        << m_err.str();
}

TEST_F(CliValidation, WhatTheReaderNotedIsPrintedAndExplainsAnInfiniteFit)
{
    // x·y near 10^307 over three points overflows the four sums in double: the fit is infinite and the row
    // `incorrect`, which the dataset's note, printed before the runs, explains.
    std::ofstream(path("huge.csv")) << "x,y\n1,1\n2,4e307\n3,5\n";
    EXPECT_EQ(cli({"run", "-w", "linreg", "-v", "cpu_openmp", "-i", path("huge.csv"), "--min-reps", "1", "--max-reps",
                  "1", "--no-calibrate"}),
        kExitRunProblems)
        << m_err.str();
    EXPECT_NE(m_err.str().find("  note: |x| reaches 3 and |y| 4e+307: the sums of x² or x·y over 3 points may "
                               "overflow float64"),
        std::string::npos)
        << m_err.str();
    EXPECT_NE(m_out.str().find("incorrect"), std::string::npos) << m_out.str();
}

TEST_F(CliValidation, VectorIsRefusedWhereNothingReadsIt)
{
    std::ofstream(path("fine.csv")) << "x,y\n1,1\n2,3\n3,5\n";
    std::ofstream(path("x.txt")) << "1\n2\n";
    expectRefused({"run", "-w", "linreg", "-i", path("fine.csv"), "--vector", path("x.txt"), "-q"},
        "--vector: workload 'linreg' takes no vector (only spmv does)");
    expectRefused({"run", "-w", "sdh", "--vector", path("x.txt"), "-q"}, "--vector: workload 'sdh' takes no vector");
    // spmv still takes one, and still says when it has no matrix to go with.
    expectRefused({"run", "-w", "spmv", "--vector", path("x.txt"), "-q"}, "--vector needs --input");
}

TEST_F(CliValidation, DeviceMustNameADevice)
{
    expectRefused({"run", "-w", "linreg", "--device", "-1", "-q"}, "--device -1 is not a device ordinal");
    expectRefused({"run", "-w", "linreg", "--device", "99", "-q"}, "--device 99: this machine has ");
    // Device 0 is the default and stays valid without a GPU: the CPU variants run.
    EXPECT_EQ(cli({"run", "-w", "linreg", "-v", "reference", "-g", "n=100", "--device", "0", "--min-reps", "1",
                  "--max-reps", "1", "--no-calibrate", "-q"}),
        kExitOk)
        << m_err.str();
}

TEST_F(CliValidation, InputThatIsNotARegularFileIsRefusedWithoutBlocking)
{
    const std::string fifo = path("data.csv");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    for (const char* workload : {"linreg", "sdh", "spmv", "lrv", "cnn"})
        expectRefused({"run", "-w", workload, "-i", fifo, "-q"}, fifo + ": is a FIFO (named pipe), not a regular file");
    expectRefused({"run", "-w", "linreg", "-i", "/dev/null", "-q"}, "/dev/null: is a character device");
    expectRefused({"run", "-w", "linreg", "-i", m_dir.string(), "-q"}, ": is a directory, not a file");
    std::ofstream(path("a.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 5\n";
    expectRefused({"run", "-w", "spmv", "-i", path("a.mtx"), "--vector", fifo, "-q"},
        "is a FIFO (named pipe), not a regular file");
}

} // namespace
} // namespace ks::cli::test
