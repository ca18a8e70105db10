// Keeps the README's "Adding a variant" recipe true: a variant of an existing workload is its kernel file plus, in
// register.cpp, one row and its factory's declaration. Reads the sources: every registered variant's factory is
// declared in its workload's register.cpp, defined in exactly one other file of the folder, and declared in no
// header, so no third file has to change.
#include "compute/core/registry.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

namespace ks {
namespace {

namespace fs = std::filesystem;

std::string readAll(const fs::path& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

fs::path sourceDir()
{
    return fs::path(KS_SOURCE_DIR);
}

TEST(Recipe, TheReadmeSaysTwoFiles)
{
    const std::string readme = readAll(sourceDir() / "README.md");
    const auto start = readme.find("## Adding a variant");
    ASSERT_NE(start, std::string::npos) << "README.md has no 'Adding a variant' section";
    const auto end = readme.find("\n## ", start + 1);
    const std::string section = readme.substr(start, end - start);
    EXPECT_NE(section.find("touches two files"), std::string::npos);
    EXPECT_NE(section.find("PrepareSignature prepareMyVariant;"), std::string::npos);
    EXPECT_NE(section.find("KS_GPU_PREPARE(prepareMyVariant)"), std::string::npos);
    EXPECT_EQ(section.find("<workload>.h"), std::string::npos) << "the recipe must not send anyone to the header";
}

TEST(Recipe, EveryFactoryLivesInItsKernelFileAndRegisterCpp)
{
    for (const auto& workload : defaultRegistry().workloads()) {
        const fs::path folder = sourceDir() / "compute" / "workloads" / workload->id();
        ASSERT_TRUE(fs::is_directory(folder)) << folder;
        const std::string registration = readAll(folder / "register.cpp");
        for (const auto& variant : workload->variants()) {
            SCOPED_TRACE(workload->id() + " " + variant.id);
            // The row: the quoted id, then its factory (bare, or inside KS_GPU_PREPARE) before the next row.
            const auto row = registration.find("\"" + variant.id + "\"");
            ASSERT_NE(row, std::string::npos) << "no registration row in register.cpp";
            std::smatch match;
            const std::string rest = registration.substr(row);
            ASSERT_TRUE(std::regex_search(rest, match, std::regex(R"(\b(prepare[A-Z]\w*)\b)")));
            const std::string factory = match[1];
            EXPECT_NE(registration.find("PrepareSignature " + factory + ";"), std::string::npos)
                << factory << " is not declared in register.cpp";

            int definitions = 0;
            const std::regex definition("std::unique_ptr<PreparedRun>\\s+" + factory + "\\s*\\(");
            for (const auto& entry : fs::directory_iterator(folder)) {
                const std::string name = entry.path().filename().string();
                const std::string text = readAll(entry.path());
                if (std::regex_search(text, definition))
                    ++definitions;
                const std::string ext = entry.path().extension().string();
                if (ext == ".h" || ext == ".cuh") {
                    EXPECT_EQ(text.find(factory + "("), std::string::npos)
                        << name << " declares " << factory << ": a new variant would touch a third file";
                }
            }
            EXPECT_EQ(definitions, 1) << factory << " should be defined in exactly one kernel file";
        }
    }
}

} // namespace
} // namespace ks
