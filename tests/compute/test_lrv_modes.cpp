// propr's weighted and alpha modes of lrv: the weights, reference and reference weights read beside the table (matched
// by name), each mode against values worked out by hand from the formulas, the identities that tie the modes
// together, and the refusals.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/workloads/lrv/lrv.h"
#include "data/dataset_error.h"
#include "data/dataset_wire.h"
#include "data/expression_table.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace ks {
namespace {

const Workload& lrvWorkload()
{
    return *defaultRegistry().find("lrv");
}

class LrvModes : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("ks_lrv_modes_" + std::to_string(::getpid()) + "_"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_dir);
        // Y: 4 samples × 3 features; W its weights; Yfull Y and one more sample; Wfull its weights.
        write("y.tsv", "\tA\tB\tC\nS1\t2\t5\t1.5\nS2\t3\t4\t2.5\nS3\t7\t1\t3\nS4\t1\t9\t8\n");
        write("w.tsv", "\tA\tB\tC\nS1\t1\t0.5\t2\nS2\t0.25\t1\t1.5\nS3\t3\t2\t0.5\nS4\t1\t1\t1\n");
        write("yfull.tsv", "\tA\tB\tC\nS1\t2\t5\t1.5\nS2\t3\t4\t2.5\nS3\t7\t1\t3\nS4\t1\t9\t8\nS5\t4\t6\t2\n");
        write("wfull.tsv", "\tA\tB\tC\nS1\t1\t0.5\t2\nS2\t0.25\t1\t1.5\nS3\t3\t2\t0.5\nS4\t1\t1\t1\nS5\t0.5\t2\t1\n");
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }

    std::string path(const std::string& name) const { return (m_dir / name).string(); }
    void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

    /// The table y.tsv with the reader options given (file names completed with the folder).
    data::Dataset load(std::map<std::string, std::string> options) const
    {
        data::ReadOptions read;
        for (auto& [key, value] : options)
            read.params[key] = path(value);
        return lrvWorkload().load(path("y.tsv"), read);
    }

    static std::vector<double> run(const std::string& variant, const data::Dataset& d, double alpha = 0.0)
    {
        std::map<std::string, std::string> values;
        if (alpha != 0.0)
            values["alpha"] = std::to_string(alpha);
        const auto params = ParamSet::parse(lrvWorkload().parameters(), values);
        RunContext context {0, &steadyClock()};
        auto prepared = lrvWorkload().findVariant(variant)->prepare(d, params, context);
        prepared->run();
        return prepared->fetch().values;
    }

    static void expectNear(
        const std::vector<double>& got, const std::vector<double>& expected, double tolerance, const std::string& what)
    {
        ASSERT_EQ(got.size(), expected.size()) << what;
        for (std::size_t k = 0; k < got.size(); ++k)
            EXPECT_NEAR(got[k], expected[k], tolerance * std::fabs(expected[k])) << what << ", pair " << k;
    }

    std::filesystem::path m_dir;
};

// The pairs in propr's order (B,A), (C,A), (C,B), worked out from the formulas in double, term by term:
//   weighted:  w = W_i·W_j, x = log(Y_i/Y_j), lrv = Σw(x − x̄_w)² · Σw / ((Σw)² − Σw²)
//   alpha:     x = Y_i^a/m_i − Y_j^a/m_j, m = the feature's mean of Yfull^a, lrv = Σ(x − x̄)² / (a²(N − 1))
//   weighted alpha: m over Yfull^a weighted by Wfull_i·Wfull_j, then the weighted variance over a².
const std::vector<double> kLog = {3.002415533076102, 1.6709261832096518, 0.9237208252940289};
const std::vector<double> kWeighted = {6.014714401806032, 1.659246550970344, 0.8430875267168577};
const std::vector<double> kAlphaHalfWithReference = {2.4441201455176462, 1.7937023524650524, 0.5405805270884592};
const std::vector<double> kWeightedAlphaHalfWithReference = {5.843988002755522, 1.8533330153592402, 0.5083838738224088};
const std::vector<double> kWeightedAlphaHalf = {6.469455745972863, 1.8501311442457204, 0.499132394912548};

TEST_F(LrvModes, EachModeMatchesItsFormulaWorkedOutByHand)
{
    for (const char* variant : {"reference", "cpu_openmp"}) {
        expectNear(run(variant, load({})), kLog, 1e-13, std::string(variant) + " log");
        expectNear(run(variant, load({{"weights", "w.tsv"}})), kWeighted, 1e-13, std::string(variant) + " weighted");
        expectNear(run(variant, load({{"reference", "yfull.tsv"}}), 0.5), kAlphaHalfWithReference, 1e-13,
            std::string(variant) + " alpha");
        expectNear(
            run(variant, load({{"weights", "w.tsv"}, {"reference", "yfull.tsv"}, {"reference_weights", "wfull.tsv"}}),
                0.5),
            kWeightedAlphaHalfWithReference, 1e-13, std::string(variant) + " weighted alpha with a reference");
        expectNear(run(variant, load({{"weights", "w.tsv"}}), 0.5), kWeightedAlphaHalf, 1e-13,
            std::string(variant) + " weighted alpha");
    }
}

TEST_F(LrvModes, TheModesAgreeWhereTheirFormulasMeet)
{
    // Equal weights are no weights; alpha → 0 is the log-ratio; weighted alpha with equal weights is alpha.
    write("ones.tsv", "\tA\tB\tC\nS1\t3\t3\t3\nS2\t3\t3\t3\nS3\t3\t3\t3\nS4\t3\t3\t3\n");
    const auto plain = run("reference", load({}));
    expectNear(run("reference", load({{"weights", "ones.tsv"}})), plain, 1e-15, "equal weights");
    expectNear(run("reference", load({}), 1e-7), plain, 1e-6, "alpha near 0");
    expectNear(run("reference", load({{"weights", "ones.tsv"}}), 0.5), run("reference", load({}), 0.5), 1e-15,
        "equal weights with alpha");
    // Without a reference, Yfull is Y: the same as naming Y as its own reference.
    write("ycopy.tsv", "\tA\tB\tC\nS1\t2\t5\t1.5\nS2\t3\t4\t2.5\nS3\t7\t1\t3\nS4\t1\t9\t8\n");
    expectNear(run("reference", load({{"reference", "ycopy.tsv"}}), -0.75), run("reference", load({}), -0.75), 1e-15,
        "Y as its own reference");
}

TEST_F(LrvModes, CompanionsAreMatchedByNameAndTravelWithTheDataset)
{
    // The weights' columns and rows in another order, and the reference's columns too: matched by name.
    write("w_shuffled.tsv", "\tC\tA\tB\nS3\t0.5\t3\t2\nS1\t2\t1\t0.5\nS4\t1\t1\t1\nS2\t1.5\t0.25\t1\n");
    write("yfull_shuffled.tsv", "\tB\tC\tA\nS1\t5\t1.5\t2\nS2\t4\t2.5\t3\nS3\t1\t3\t7\nS4\t9\t8\t1\nS5\t6\t2\t4\n");
    expectNear(run("reference", load({{"weights", "w_shuffled.tsv"}})), kWeighted, 1e-13, "shuffled weights");
    expectNear(run("reference", load({{"reference", "yfull_shuffled.tsv"}}), 0.5), kAlphaHalfWithReference, 1e-13,
        "shuffled reference");

    const auto d = load({{"weights", "w.tsv"}, {"reference", "yfull.tsv"}, {"reference_weights", "wfull.tsv"}});
    const auto& t = d.as<data::ExpressionTable>();
    EXPECT_EQ(t.referenceSamples, 5u);
    EXPECT_EQ(t.weights.size(), 12u);
    EXPECT_EQ(t.referenceWeights.size(), 15u);
    EXPECT_NE(d.meta().contentHash, load({}).meta().contentHash) << "weights change the data";
    EXPECT_NE(load({{"weights", "w.tsv"}}).meta().contentHash, load({{"reference", "w.tsv"}}).meta().contentHash);

    // Through the reader worker's wire format and back.
    char name[] = "/tmp/ks_lrv_wire_XXXXXX";
    const int fd = ::mkstemp(name);
    ASSERT_GE(fd, 0);
    ::unlink(name);
    data::wire::writeDataset(fd, d);
    const auto back = data::wire::readDataset(fd, 0, static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END)), false);
    ::close(fd);
    EXPECT_EQ(back.meta().contentHash, d.meta().contentHash);
    expectNear(run("cpu_openmp", back, 0.5), kWeightedAlphaHalfWithReference, 1e-13, "after the wire");

    // The first two features, companions included.
    const auto part = lrvWorkload().subset(d, 2);
    ASSERT_TRUE(part.has_value());
    expectNear(run("reference", *part, 0.5), {kWeightedAlphaHalfWithReference[0]}, 1e-13, "subset");
}

TEST_F(LrvModes, CompanionsComeInTheTablesOrientationAndAnyFormat)
{
    // The weights as HDF5 (its own name lists, matched like a text file's), beside a text table.
    write("yt.tsv", "\tS1\tS2\tS3\tS4\nA\t2\t3\t7\t1\nB\t5\t4\t1\t9\nC\t1.5\t2.5\t3\t8\n");
    write("yfullt.tsv", "\tS1\tS2\tS3\tS4\tS5\nA\t2\t3\t7\t1\t4\nB\t5\t4\t1\t9\t6\nC\t1.5\t2.5\t3\t8\t2\n");
    write("wfullt.tsv", "\tS1\tS2\tS3\tS4\tS5\nA\t1\t0.25\t3\t1\t0.5\nB\t0.5\t1\t2\t1\t2\nC\t2\t1.5\t0.5\t1\t1\n");
    data::ExpressionTable w;
    w.samples = 4;
    w.features = 3;
    w.values = {1, 0.5, 2, 0.25, 1, 1.5, 3, 2, 0.5, 1, 1, 1};
    w.sampleNames = {"S1", "S2", "S3", "S4"};
    w.featureNames = {"A", "B", "C"};
    data::writeExpressionHdf5(path("w.h5"), w);
    data::ReadOptions read;
    read.params = {{"orientation", "samples-as-rows"}, {"weights", path("w.h5")}};
    expectNear(run("reference", lrvWorkload().load(path("y.tsv"), read)), kWeighted, 1e-13, "HDF5 weights");
    // Every companion is read in the table's orientation: here all three store features as rows.
    read.params = {{"orientation", "features-as-rows"}, {"weights", path("wt.tsv")}, {"reference", path("yfullt.tsv")},
        {"reference_weights", path("wfullt.tsv")}};
    write("wt.tsv", "\tS1\tS2\tS3\tS4\nA\t1\t0.25\t3\t1\nB\t0.5\t1\t2\t1\nC\t2\t1.5\t0.5\t1\n");
    expectNear(run("cpu_openmp", lrvWorkload().load(path("yt.tsv"), read), 0.5), kWeightedAlphaHalfWithReference, 1e-13,
        "features as rows");
}

TEST_F(LrvModes, BadCompanionsAreNamedInOneLine)
{
    const auto expectError
        = [&](std::map<std::string, std::string> options, const std::string& file, const std::string& problem) {
              try {
                  load(options);
                  ADD_FAILURE() << problem << ": accepted";
              } catch (const data::DatasetError& e) {
                  EXPECT_EQ(e.file(), path(file)) << e.what();
                  EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
                  EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
              }
          };
    write("zero.tsv", "\tA\tB\tC\nS1\t1\t0\t2\nS2\t1\t1\t1\nS3\t1\t1\t1\nS4\t1\t1\t1\n");
    expectError({{"weights", "zero.tsv"}}, "zero.tsv", "weight 0; propr's weights must be finite and positive");
    write("na.tsv", "\tA\tB\tC\nS1\t1\tNA\t2\nS2\t1\t1\t1\nS3\t1\t1\t1\nS4\t1\t1\t1\n");
    expectError({{"weights", "na.tsv"}}, "na.tsv", "missing weight");
    write("nofeature.tsv", "\tA\tB\tD\nS1\t1\t1\t1\nS2\t1\t1\t1\nS3\t1\t1\t1\nS4\t1\t1\t1\n");
    expectError({{"weights", "nofeature.tsv"}}, "nofeature.tsv",
        "no feature 'C' (the table's feature 3; this file has 3 features)");
    write("fewsamples.tsv", "\tA\tB\tC\nS1\t1\t1\t1\nS2\t1\t1\t1\nS3\t1\t1\t1\n");
    expectError({{"weights", "fewsamples.tsv"}}, "fewsamples.tsv", "no sample 'S4'");
    expectError({{"reference", "missing.tsv"}}, "missing.tsv", "");
    expectError({{"reference_weights", "wfull.tsv"}}, "wfull.tsv", "no reference=FILE");
    expectError({{"reference", "wfull.tsv"}, {"reference_weights", "w.tsv"}}, "w.tsv", "no sample 'S5'");
    // Weighted alpha with a reference needs the reference's weights; without alpha the reference is not used.
    const auto d = load({{"weights", "w.tsv"}, {"reference", "yfull.tsv"}});
    EXPECT_THROW(run("reference", d, 0.5), ParameterError);
    expectNear(run("reference", d), kWeighted, 1e-13, "weighted, the reference unused");
}

TEST_F(LrvModes, GpuVariantsSayWhichModesTheyCompute)
{
    const lrv::Mode mode = lrv::modeOf(load({{"weights", "w.tsv"}}).as<data::ExpressionTable>(),
        ParamSet::parse(lrvWorkload().parameters(), {{"alpha", "0.5"}}));
    EXPECT_EQ(mode.name(), "weighted alpha 0.5 lrv");
    try {
        lrv::skipMode(mode, "reference and cpu_openmp");
    } catch (const SkipRun& e) {
        EXPECT_NE(std::string(e.what()).find("not the weighted alpha 0.5 lrv (reference and cpu_openmp do)"),
            std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace ks
