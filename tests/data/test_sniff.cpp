// sniffDatasetKinds: every good file of each workload's corpus points to its own reader, and the files of one
// workload that another workload's user opens by mistake point away from theirs.
#include "data/sniff.h"

#include "test_support.h"

#include <algorithm>
#include <filesystem>

namespace ks::data {
namespace {

using test::corpusPath;

bool names(const std::vector<std::string>& kinds, const std::string& kind)
{
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::string joined(const std::vector<std::string>& kinds)
{
    std::string out;
    for (const auto& k : kinds)
        out += (out.empty() ? "" : ",") + k;
    return out;
}

struct Corpus {
    const char* workload;
    const char* kind;
};

TEST(SniffDatasetKinds, EveryGoodCorpusFilePointsToItsOwnReader)
{
    for (const Corpus c : {Corpus {"linreg", "series2d"}, Corpus {"lrv", "expression"}, Corpus {"sdh", "points"},
             Corpus {"spmv", "csr"}}) {
        int files = 0;
        for (const auto& entry : std::filesystem::directory_iterator(corpusPath("good", c.workload))) {
            const auto kinds = sniffDatasetKinds(entry.path().string());
            EXPECT_TRUE(names(kinds, c.kind)) << entry.path() << " sniffs as [" << joined(kinds) << "]";
            ++files;
        }
        EXPECT_GT(files, 3) << c.workload;
    }
}

class SniffText : public test::TempDirTest { };

TEST_F(SniffText, APdbUnderAnyNameIsAPointCloudOnly)
{
    const std::string pdb = "HEADER    PROTEIN\n"
                            "ATOM      1  N   MET A   1      27.340  24.430   2.614  1.00  9.67           N\n"
                            "ATOM      2  CA  MET A   1      26.266  25.413   2.842  1.00 10.38           C\n";
    EXPECT_EQ(sniffDatasetKinds(writeFile("protein.pdb", pdb)), std::vector<std::string> {"points"});
    EXPECT_EQ(sniffDatasetKinds(writeFile("protein.txt", pdb)), std::vector<std::string> {"points"})
        << "by its records, whatever its extension";
}

TEST_F(SniffText, AMatrixMarketFileIsASparseMatrixOnly)
{
    const std::string mtx = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 3.5\n";
    EXPECT_EQ(sniffDatasetKinds(writeFile("a.mtx", mtx)), std::vector<std::string> {"csr"});
    EXPECT_EQ(sniffDatasetKinds(writeFile("a.txt", mtx)), std::vector<std::string> {"csr"});
}

TEST_F(SniffText, TablesByTheirShape)
{
    const auto xy = sniffDatasetKinds(writeFile("xy.csv", "x,y\n1,2\n3,4\n"));
    EXPECT_TRUE(names(xy, "series2d")) << joined(xy);
    EXPECT_FALSE(names(xy, "points")) << joined(xy);
    const auto xyz = sniffDatasetKinds(writeFile("xyz.csv", "1 2 3\n4 5 6\n"));
    EXPECT_TRUE(names(xyz, "points")) << joined(xyz);
    EXPECT_FALSE(names(xyz, "series2d")) << joined(xyz);
    const auto expression = sniffDatasetKinds(writeFile("e.tsv", "\tG1\tG2\tG3\nS1\t1\t2\t3\nS2\t4\t5\t6\n"));
    EXPECT_EQ(expression, std::vector<std::string> {"expression"});
}

TEST_F(SniffText, WhatNothingTellsIsEmpty)
{
    EXPECT_TRUE(sniffDatasetKinds(tempPath("missing.csv")).empty());
    EXPECT_TRUE(sniffDatasetKinds(writeFile("prose.txt", "Dear user,\nthis is a letter, not a table.\n")).empty());
    EXPECT_TRUE(sniffDatasetKinds(writeFile("blob.dat", std::string("\x01\x00\x02", 3))).empty());
}

} // namespace
} // namespace ks::data
