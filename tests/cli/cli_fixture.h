#pragma once
// What every kernelscope-cli test shares: a scratch folder of its own per test, and the CLI driven in-process with
// its stdout and stderr captured.
#include "cli/cli.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ks::cli::test {

class CliTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = std::filesystem::temp_directory_path()
            / ("ks_cli_" + std::string(info->test_suite_name()) + "_" + info->name() + "_"
                + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    /// Runs the CLI with these arguments (the program name left out) and returns its exit status; m_out and m_err
    /// hold what it printed.
    int cli(std::vector<std::string> args)
    {
        m_out.str("");
        m_err.str("");
        return runCli(args, m_out, m_err);
    }

    std::filesystem::path m_dir;
    std::ostringstream m_out;
    std::ostringstream m_err;
};

} // namespace ks::cli::test
