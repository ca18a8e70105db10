// data/'s writers (Matrix Market, CSV series and tables, HDF5) write through an AtomicFile: a temporary file beside
// the target, renamed over it when complete, so a writer killed or failing midway never leaves a partial file under
// the target's name, an existing target is replaced in one step, and a device, FIFO or folder is never written.
#include "data/atomic_file.h"
#include "data/expression_table.h"
#include "data/point_cloud.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"
#include "test_support.h"

#include <chrono>
#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::TempDirTest;

class DataWriters : public TempDirTest {
protected:
    std::string read(const std::string& path) const
    {
        std::ifstream in(path, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    /// The names in the test's folder, so a temporary file left behind shows.
    std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        for (const auto& entry : std::filesystem::directory_iterator(m_dir))
            out.push_back(entry.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
    static CsrMatrix diagonal(std::uint64_t n)
    {
        CsrMatrix m;
        m.rows = m.cols = n;
        for (std::uint64_t i = 0; i <= n; ++i)
            m.rowPtr.push_back(static_cast<std::int64_t>(i));
        for (std::uint64_t i = 0; i < n; ++i) {
            m.colIdx.push_back(static_cast<std::int32_t>(i));
            m.values.push_back(1.0 / static_cast<double>(i + 1));
        }
        return m;
    }
};

TEST_F(DataWriters, AnExistingTargetIsReplacedWholeAndNoTemporaryFileStays)
{
    const std::string p = writeFile("a.mtx", "old content\n");
    writeMatrixMarket(p, diagonal(3));
    EXPECT_TRUE(read(p).starts_with("%%MatrixMarket matrix coordinate real general\n"));
    EXPECT_EQ(readMatrixMarket(p).nnz(), 3u);
    const std::string csv = writeFile("s.csv", "old\n");
    Series2D s;
    s.x = {1, 2};
    s.y = {3, 4};
    writeSeriesCsv(csv, s);
    EXPECT_EQ(read(csv), "x,y\n1,3\n2,4\n");
    const std::string h5 = writeFile("s.h5", "not HDF5 yet");
    writeSeriesHdf5(h5, s);
    EXPECT_EQ(readSeriesHdf5(h5).y, s.y);
    EXPECT_EQ(names(), (std::vector<std::string> {"a.mtx", "s.csv", "s.h5"}));
}

TEST_F(DataWriters, ANonRegularTargetIsRefusedAndLeftAlone)
{
    const std::string folder = tempPath("folder");
    std::filesystem::create_directory(folder);
    const std::string fifo = tempPath("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const CsrMatrix m = diagonal(2);
    for (const std::string& target : {folder, fifo, std::string("/dev/null")}) {
        const auto error = catchDatasetError([&] { writeMatrixMarket(target, m); });
        ASSERT_TRUE(error) << target;
        EXPECT_TRUE(contains(error->what(), "not a regular file")) << error->what();
        EXPECT_EQ(error->file(), target);
    }
    Series2D s;
    s.x = {1};
    s.y = {2};
    EXPECT_TRUE(catchDatasetError([&] { writeSeriesHdf5(folder, s); }));
    EXPECT_TRUE(catchDatasetError([&] { writeSeriesCsv(fifo, s); }));
    EXPECT_TRUE(std::filesystem::is_directory(folder));
    EXPECT_TRUE(std::filesystem::is_fifo(fifo));
    EXPECT_EQ(names(), (std::vector<std::string> {"fifo", "folder"}));
}

TEST_F(DataWriters, AWriteFailingMidwayLeavesTheOldFileAndNoTemporaryFile)
{
    // RLIMIT_FSIZE in a child stands for a full disk: the write fails with EFBIG part way through.
    const std::string p = writeFile("big.mtx", "old content\n");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit {64 * 1024, 64 * 1024};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(3);
        try {
            writeMatrixMarket(p, diagonal(100000));
        } catch (const DatasetError& e) {
            _exit(std::string(e.what()).find("write failed") != std::string::npos ? 0 : 1);
        }
        _exit(2);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: another error; 2: no error; 3: setrlimit failed";
    EXPECT_EQ(read(p), "old content\n");
    EXPECT_EQ(names(), (std::vector<std::string> {"big.mtx"}));
}

TEST_F(DataWriters, AWriterKilledMidwayLeavesNoPartialFileUnderTheTargetsName)
{
    const std::string fresh = tempPath("fresh.csv");
    const std::string old = writeFile("old.mtx", "old content\n");
    for (const std::string& target : {fresh, old}) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            const bool csv = target.ends_with(".csv");
            Series2D s;
            s.x.assign(4'000'000, 1.25);
            s.y.assign(4'000'000, -3.5);
            if (csv)
                writeSeriesCsv(target, s);
            else
                writeMatrixMarket(target, diagonal(4'000'000));
            _exit(0);
        }
        // Killed once its temporary file holds something: the writer is midway.
        bool midway = false;
        for (int i = 0; i < 2000 && !midway; ++i) {
            for (const auto& entry : std::filesystem::directory_iterator(m_dir))
                if (entry.path().filename().string().find(".kernelscope-") != std::string::npos
                    && entry.file_size() > 0)
                    midway = true;
            if (!midway)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ::kill(pid, SIGKILL);
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(midway) << "the writer never got going";
        EXPECT_TRUE(WIFSIGNALED(status)) << "the writer finished before it was killed";
        if (target == fresh)
            EXPECT_FALSE(std::filesystem::exists(fresh));
        else
            EXPECT_EQ(read(old), "old content\n");
    }
}

TEST_F(DataWriters, AFailingWriteCallbackLeavesTheTargetAsItWas)
{
    const std::string p = writeFile("t.txt", "old\n");
    EXPECT_THROW(writeFileAtomically(p,
                     [](AtomicFile& file) {
                         file.stream() << "half a row";
                         throw std::runtime_error("stopped");
                     }),
        std::runtime_error);
    EXPECT_EQ(read(p), "old\n");
    EXPECT_EQ(names(), (std::vector<std::string> {"t.txt"}));
}

} // namespace
} // namespace ks::data
