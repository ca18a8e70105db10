#pragma once

// Shared by the ks_data_tests sources: a fixture with a private temporary directory, helpers to catch a
// DatasetError and check what it says, and a real Debian package's files fetched with apt-get download.

#include "data/dataset_error.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace ks::data::test {

/// A file of a workload's committed corpus: tests/data/<workload>/{good,bad}/...
inline std::string corpusPath(const std::string& relative, const std::string& workload = "linreg")
{
    // Appended in place: GCC 12 reports a false -Warray-bounds on this chain of operator+ (its bug 105329's kind).
    std::string path(KS_TEST_DATA_DIR);
    path.append("/").append(workload).append("/").append(relative);
    return path;
}

/// Every test gets its own empty directory under the system temp directory, removed in TearDown.
class TempDirTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string(info->test_suite_name()) + "_" + info->name();
        for (char& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)))
                c = '_';
        m_dir = std::filesystem::temp_directory_path() / ("ks_data_tests_" + std::to_string(::getpid()) + "_" + name);
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }

    void TearDown() override
    {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }

    std::string tempPath(const std::string& name) const { return (m_dir / name).string(); }

    /// Writes `bytes` verbatim (binary mode, so CRLF and NUL survive) and returns the file's path.
    std::string writeFile(const std::string& name, std::string_view bytes) const
    {
        const std::string p = tempPath(name);
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
        EXPECT_TRUE(out.good()) << "could not write " << p;
        return p;
    }

    std::filesystem::path m_dir;
};

/// Runs `f` and returns the DatasetError it threw; nullopt when it threw nothing. Other exceptions propagate, so
/// gtest reports them as failures.
template <class F> std::optional<DatasetError> catchDatasetError(F&& f)
{
    try {
        f();
    } catch (const DatasetError& error) {
        return error;
    }
    return std::nullopt;
}

inline ::testing::AssertionResult contains(std::string_view haystack, std::string_view needle)
{
    if (haystack.find(needle) != std::string_view::npos)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << haystack << "\" does not contain \"" << needle << "\"";
}

/// Checks an error names exactly `file` and `place`, that its problem mentions `problemPart`, and that what()
/// carries all three.
inline ::testing::AssertionResult errorSays(const std::optional<DatasetError>& error, const std::string& file,
    const std::string& place, std::string_view problemPart)
{
    if (!error)
        return ::testing::AssertionFailure() << "no DatasetError was thrown";
    if (error->file() != file)
        return ::testing::AssertionFailure()
            << "file() is \"" << error->file() << "\", expected \"" << file << "\" (what: " << error->what() << ")";
    if (error->place() != place)
        return ::testing::AssertionFailure()
            << "place() is \"" << error->place() << "\", expected \"" << place << "\" (what: " << error->what() << ")";
    if (error->problem().find(problemPart) == std::string::npos)
        return ::testing::AssertionFailure()
            << "problem() \"" << error->problem() << "\" does not mention \"" << problemPart << "\"";
    const std::string_view what = error->what();
    const std::string expectedPrefix = (file.empty() ? std::string("<input>") : file) + ": ";
    if (what.substr(0, expectedPrefix.size()) != expectedPrefix || what.find(place) == std::string_view::npos
        || what.find(error->problem()) == std::string_view::npos)
        return ::testing::AssertionFailure() << "what() \"" << what << "\" does not name file, place and problem";
    return ::testing::AssertionSuccess();
}

/// Runs a shell command with its output going to `log`; returns its exit status (-1 when it did not exit).
inline int runLogged(const std::string& command, const std::string& log)
{
    const int status = std::system((command + " >'" + log + "' 2>&1").c_str());
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The last `chars` characters of a file (a command's log in a skip or failure message).
inline std::string tail(const std::string& path, std::size_t chars = 400)
{
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > chars ? text.substr(text.size() - chars) : text;
}

/// apt's "E:" lines from a log (what went wrong, without the warnings around it), else the log's tail.
inline std::string aptErrors(const std::string& log)
{
    std::ifstream in(log);
    std::string line;
    std::string errors;
    while (std::getline(in, line))
        if (line.rfind("E: ", 0) == 0)
            errors += (errors.empty() ? "" : "; ") + line;
    return errors.empty() ? tail(log) : errors;
}

/// A Debian package unpacked for a test: `root` is where `dpkg-deb -x` put its files; empty with `skipReason` set
/// when the package could not be fetched (no network, no apt source), which is a reason to skip, not a failure.
struct DebianPackage {
    std::string root;
    std::string deb;
    std::string skipReason;
};

/// Fetches `package` with `apt-get download` and unpacks it under `workDir` (a test's own temporary directory).
/// The .deb is cached under the system temporary directory, so a second run needs no download; it is downloaded
/// into `workDir` first and renamed into the cache, so tests running in parallel never see a partial file. A
/// cached file that dpkg-deb cannot unpack is fetched again once; a fresh one that it cannot unpack is a failure.
inline DebianPackage fetchDebianPackage(const std::string& package, const std::string& workDir)
{
    namespace fs = std::filesystem;
    std::string key = package;
    for (char& c : key)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    const fs::path cache = fs::temp_directory_path() / ("ks_data_tests_" + key);
    fs::create_directories(cache);
    auto findDeb = [&](const fs::path& directory) -> std::string {
        for (const auto& entry : fs::directory_iterator(directory))
            if (entry.path().extension() == ".deb" && entry.path().filename().string().rfind(package + "_", 0) == 0)
                return entry.path().string();
        return {};
    };
    DebianPackage result;
    const std::string extracted = (fs::path(workDir) / ("deb_" + key)).string();
    const std::string extractLog = (fs::path(workDir) / ("extract_" + key + ".log")).string();
    auto extract = [&](const std::string& deb) {
        std::error_code ec;
        fs::remove_all(extracted, ec);
        return runLogged("dpkg-deb -x '" + deb + "' '" + extracted + "'", extractLog) == 0;
    };
    std::string deb = findDeb(cache);
    if (!deb.empty() && !extract(deb)) {
        std::error_code ec;
        fs::remove(deb, ec);
        deb.clear();
    }
    if (deb.empty()) {
        const fs::path download = fs::path(workDir) / ("download_" + key);
        fs::create_directories(download);
        const std::string log = (fs::path(workDir) / ("download_" + key + ".log")).string();
        const int rc = runLogged("cd '" + download.string()
                + "' && apt-get -o Acquire::Retries=0 -o Acquire::http::Timeout=30 download " + package,
            log);
        const std::string fresh = findDeb(download);
        if (rc != 0 || fresh.empty()) {
            result.skipReason = "apt-get download " + package + " failed (exit status " + std::to_string(rc)
                + "; no network or no apt source?): " + aptErrors(log);
            return result;
        }
        deb = (cache / fs::path(fresh).filename()).string();
        std::error_code ec;
        fs::rename(fresh, deb, ec);
        if (ec)
            deb = fresh;
        if (!extract(deb)) {
            ADD_FAILURE() << "dpkg-deb -x " << deb << " failed: " << tail(extractLog);
            result.skipReason = "dpkg-deb could not unpack " + deb;
            return result;
        }
    }
    result.root = extracted;
    result.deb = deb;
    return result;
}

} // namespace ks::data::test
