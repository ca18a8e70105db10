#pragma once

// Shared by the ks_data_tests sources: a fixture with a private temporary directory, and helpers to catch a
// DatasetError and check what it says.

#include "data/dataset_error.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>

namespace ks::data::test {

/// The committed corpus of text files (tests/data/linreg/{good,bad}/...).
inline std::string corpusPath(const std::string& relative)
{
    return std::string(KS_TEST_DATA_DIR) + "/linreg/" + relative;
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

} // namespace ks::data::test
