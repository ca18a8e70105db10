// The lrv workload: propr's pair order on a hand-computed case, accuracy on planted nearly proportional pairs,
// the sampled comparison used for outputs too large for a full reference, and streamed output chunks.
#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "compute/core/runner.h"
#include "compute/workloads/lrv/lrv.h"
#include "compute/workloads/lrv/table_log.h"
#include "data/hdf5_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <set>

namespace ks {
namespace {

const Workload& lrvWorkload()
{
    return *defaultRegistry().find("lrv");
}

data::Dataset table(
    std::size_t samples, std::size_t features, std::vector<double> values, std::vector<double> weights = {})
{
    data::ExpressionTable t;
    t.samples = samples;
    t.features = features;
    t.values = std::move(values);
    t.weights = std::move(weights);
    for (std::size_t k = 0; k < samples; ++k)
        t.sampleNames.push_back("S" + std::to_string(k + 1));
    for (std::size_t i = 0; i < features; ++i)
        t.featureNames.push_back("G" + std::to_string(i + 1));
    return data::makeExpressionDataset(std::move(t), "hand", "test");
}

Result runVariant(const std::string& id, const data::Dataset& d, std::map<std::string, std::string> params = {})
{
    const auto parsed = ParamSet::parse(lrvWorkload().parameters(), params);
    RunContext context {0, &steadyClock()};
    auto run = lrvWorkload().findVariant(id)->prepare(d, parsed, context);
    run->run();
    return run->fetch();
}

data::Dataset generated(std::map<std::string, std::string> g)
{
    return lrvWorkload().generate(ParamSet::parse(lrvWorkload().generatorParameters(), g));
}

/// The textbook sample variance of log(a_k / b_k), for checking by hand.
double sampleVarianceOfLogRatio(const std::vector<double>& a, const std::vector<double>& b)
{
    double mean = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k)
        mean += std::log(a[k] / b[k]);
    mean /= static_cast<double>(a.size());
    double s = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k)
        s += (std::log(a[k] / b[k]) - mean) * (std::log(a[k] / b[k]) - mean);
    return s / static_cast<double>(a.size() - 1);
}

TEST(LrvPairs, IndexAndInverseAgreeFar64Bit)
{
    for (std::uint64_t i : std::vector<std::uint64_t> {1, 2, 3, 1000, 46341, 50000, 3000000})
        for (std::uint64_t j : std::vector<std::uint64_t> {0, i / 2, i - 1}) {
            std::uint64_t a = 0, b = 0;
            lrv::pairAt(lrv::pairIndex(i, j), a, b);
            EXPECT_EQ(a, i);
            EXPECT_EQ(b, j);
        }
    EXPECT_EQ(lrv::pairCount(50000), 1249975000ull);
    EXPECT_EQ(lrv::pairCount(100000), 4999950000ull) << "beyond 32 bits";
}

TEST(LrvPairs, TheGroupedTriangleOrderVisitsEveryEntryOfItsRowsOnceColumnByColumnInEachGroup)
{
    // The tensor-core kernel takes its tiles in triangleAtGrouped's order: over a chunk's rows (from row 0 or not,
    // the last group whole or short), every entry of those rows once, inside the group row by row would hold it, and
    // a group's columns in increasing order; near the last row that starts below 2^32 too.
    for (const std::uint32_t groupRows : {1u, 3u, 8u})
        for (const auto& [firstRow, endRow] : std::vector<std::pair<std::uint32_t, std::uint32_t>> {
                 {0, 1}, {0, 17}, {5, 6}, {5, 29}, {8, 24}, {100, 157}, {469, 470}, {92000, 92010}}) {
            const std::uint64_t first = std::uint64_t {firstRow} * (firstRow + 1) / 2;
            const std::uint64_t end = std::uint64_t {endRow} * (endRow + 1) / 2;
            std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
            std::uint64_t lastColumn = 0, lastGroup = firstRow;
            for (std::uint64_t k = first; k < end; ++k) {
                std::uint64_t r = 0, c = 0;
                triangleAtGrouped(static_cast<std::uint32_t>(k), firstRow, endRow, groupRows, r, c);
                ASSERT_TRUE(r >= firstRow && r < endRow && c <= r) << "k " << k << ": (" << r << ", " << c << ")";
                ASSERT_TRUE(seen.emplace(r, c).second) << "k " << k << ": (" << r << ", " << c << ") twice";
                const std::uint64_t group = firstRow + (r - firstRow) / groupRows * groupRows;
                std::uint64_t rowMajor = 0, ignored = 0;
                triangleAtSmall(static_cast<std::uint32_t>(k), rowMajor, ignored);
                ASSERT_EQ(group, firstRow + (rowMajor - firstRow) / groupRows * groupRows) << "k " << k;
                if (group == lastGroup && k > first) {
                    ASSERT_GE(c, lastColumn) << "k " << k;
                }
                lastGroup = group;
                lastColumn = c;
            }
            EXPECT_EQ(seen.size(), end - first);
        }
}

TEST(LrvPairs, TheSinglePrecisionTriangleIndexIsExactBelow2To32)
{
    // The tensor-core kernel finds its tile with triangleAtSmall: every row's first and last entries, up to the last
    // row that starts below 2^32, and random entries in between, as triangleAt finds them.
    auto check = [](std::uint64_t k) {
        std::uint64_t r = 0, c = 0, r64 = 0, c64 = 0;
        triangleAtSmall(static_cast<std::uint32_t>(k), r, c);
        triangleAt(k, r64, c64);
        ASSERT_EQ(r, r64) << "k " << k;
        ASSERT_EQ(c, c64) << "k " << k;
    };
    for (std::uint64_t row = 0; row * (row + 1) / 2 <= 0xffffffffULL; row += 1 + row / 64) {
        const std::uint64_t start = row * (row + 1) / 2;
        check(start);
        if (start > 0)
            check(start - 1);
        if (start + row <= 0xffffffffULL)
            check(start + row);
    }
    std::mt19937_64 random(32);
    for (int t = 0; t < 100000; ++t)
        check(random() & 0xffffffffULL);
    check(0xffffffffULL);
}

TEST(LrvCancellation, TheHighWordTestFlagsEveryPairUnderTauAndFewAbove)
{
    // The tensor-core kernel's integer form of value < tau·terms must flag every such pair (a pair it misses keeps the
    // expansion's lost digits) and may flag a few more, up to 1.13·tau·terms, which are only recomputed.
    std::mt19937_64 random(15);
    std::uniform_real_distribution<double> exponent(-40.0, 40.0);
    std::uniform_real_distribution<double> ratio(-0.5, 2.0);
    for (std::uint64_t n : {3, 80, 1000, 100000}) {
        const double tau = lrv::cancellationThreshold(n);
        const int shift = lrv::cancellationShift(tau);
        for (int t = 0; t < 200000; ++t) {
            const double terms = std::exp2(exponent(random));
            const double value = ratio(random) * tau * terms; // around the threshold, negative ones too
            const bool flagged = lrv::cancelsByHighWords(value, terms, shift);
            if (value < tau * terms) {
                ASSERT_TRUE(flagged) << "n " << n << " value " << value << " terms " << terms;
            } else if (value >= 1.13 * tau * terms) {
                ASSERT_FALSE(flagged) << "n " << n << " value " << value << " terms " << terms;
            }
        }
        EXPECT_TRUE(lrv::cancelsByHighWords(-1e-300, 1.0, shift));
        EXPECT_TRUE(lrv::cancelsByHighWords(0.0, 1.0, shift));
        EXPECT_FALSE(lrv::cancelsByHighWords(0.5, 1.0, shift));
        EXPECT_FALSE(lrv::cancelsByHighWords(0.0, 0.0, shift)) << "two constant features: lrv 0, exactly";
    }
}

TEST(LrvCancellation, ThePartsTestFlagsEveryPairTheExactTestFlags)
{
    // The tensor-core kernel knows s_i + s_j only as its two parts: its test must flag every pair under tau·(s_i +
    // s_j) — everything cancelsByHighWords flags — and may flag more, up to twice that bound.
    std::mt19937_64 random(16);
    std::uniform_real_distribution<double> exponent(-40.0, 40.0);
    std::uniform_real_distribution<double> spread(-30.0, 30.0);
    std::uniform_real_distribution<double> ratio(-0.5, 3.0);
    for (std::uint64_t n : {3, 80, 1000, 100000}) {
        const double tau = lrv::cancellationThreshold(n);
        const int shift = lrv::cancellationShift(tau);
        for (int t = 0; t < 200000; ++t) {
            const double si = std::exp2(exponent(random));
            // Equal parts too (the bound is tight there), and a zero or subnormal part beside a normal one.
            const double sj = t % 7 == 0 ? si
                : t % 11 == 0            ? (t % 2 == 0 ? 0.0 : std::numeric_limits<double>::denorm_min() * (t % 1000))
                                         : si * std::exp2(spread(random));
            const double terms = si + sj;
            const double value = ratio(random) * tau * terms;
            const bool flagged = lrv::cancelsByPartsHighWords(value, lrv::highWord(si), lrv::highWord(sj), shift);
            if (lrv::cancelsByHighWords(value, terms, shift) || value < tau * terms) {
                ASSERT_TRUE(flagged) << "n " << n << " value " << value << " s_i " << si << " s_j " << sj;
            } else if (value >= 2.26 * tau * terms) {
                ASSERT_FALSE(flagged) << "n " << n << " value " << value << " s_i " << si << " s_j " << sj;
            }
            // The kernel's forms: the parts' bounds worked out apart flag exactly these pairs, and one bound for a
            // thread's pairs, the largest of several parts' bounds, flags every one of them too.
            const int boundI = lrv::cancellationBound(lrv::highWord(si), shift);
            const int boundJ = lrv::cancellationBound(lrv::highWord(sj), shift);
            ASSERT_EQ(lrv::cancelsByBounds(value, boundI, boundJ), flagged)
                << "n " << n << " value " << value << " s_i " << si << " s_j " << sj;
            const int other = lrv::cancellationBound(lrv::highWord(si * std::exp2(spread(random))), shift);
            if (flagged) {
                ASSERT_LT(lrv::highWord(value), std::max({boundI, boundJ, other})) << "n " << n << " value " << value;
            }
        }
        const int one = lrv::highWord(1.0);
        EXPECT_TRUE(lrv::cancelsByPartsHighWords(-1e-300, one, one, shift));
        EXPECT_TRUE(lrv::cancelsByPartsHighWords(0.0, one, 0, shift));
        EXPECT_FALSE(lrv::cancelsByPartsHighWords(0.5, one, one, shift));
        EXPECT_FALSE(lrv::cancelsByPartsHighWords(0.0, 0, 0, shift)) << "two constant features: lrv 0, exactly";
        EXPECT_TRUE(lrv::cancelsByPartsHighWords(1.0, lrv::highWord(std::numeric_limits<double>::infinity()), 0, shift))
            << "a finite value beside an infinite part";
    }
}

TEST(LrvReference, ProprOrderOnAHandComputedThreeByFourTable)
{
    // Y is 3 samples × 4 features; columns as vectors:
    const std::vector<std::vector<double>> col {{1, 2, 4}, {2, 2, 2}, {3, 9, 27}, {5, 1, 2}};
    std::vector<double> values(12);
    for (std::size_t k = 0; k < 3; ++k)
        for (std::size_t i = 0; i < 4; ++i)
            values[k * 4 + i] = col[i][k];
    const auto d = table(3, 4, values);
    const Result r = runVariant("reference", d);
    ASSERT_EQ(r.values.size(), 6u);
    // propr: for i = 1 … p − 1, for j = 0 … i − 1.
    const std::vector<std::pair<int, int>> order {{1, 0}, {2, 0}, {2, 1}, {3, 0}, {3, 1}, {3, 2}};
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto [i, j] = order[k];
        EXPECT_NEAR(r.values[k],
            sampleVarianceOfLogRatio(col[static_cast<std::size_t>(i)], col[static_cast<std::size_t>(j)]), 1e-15)
            << "pair (" << i << ", " << j << ")";
    }
    // log(4/2), log(2/2), log(1/2) = ln 2, 0, −ln 2: variance (ln 2)².
    EXPECT_NEAR(r.values[0], std::log(2.0) * std::log(2.0), 1e-15);
    EXPECT_EQ(r.names, (std::vector<std::string> {"G1", "G2", "G3", "G4"}));
    EXPECT_EQ(r.quantity, "lrv");
}

TEST(LrvReference, ExactlyProportionalColumnsHaveZeroVariance)
{
    const auto d = table(4, 2, {1, 3, 2, 6, 5, 15, 7, 21});
    EXPECT_LT(runVariant("reference", d).values[0], 1e-30);
}

TEST(LrvCpu, AgreesWithTheReferenceOnPlantedPairs)
{
    const auto d = generated({{"samples", "40"}, {"features", "300"}, {"planted", "8"}, {"noise", "1e-5"}});
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {});
    const Delta delta = lrvWorkload().compare(runVariant("cpu_openmp", d), runVariant("reference", d), d, params);
    EXPECT_TRUE(delta.withinTolerance()) << delta.value;
    EXPECT_EQ(delta.details[2].second, static_cast<double>(lrv::pairCount(300)));
}

TEST(LrvCompare, TheSampledCheckFindsAnErrorAmongTheMostProportionalPairs)
{
    const auto d = generated({{"samples", "20"}, {"features", "400"}, {"planted", "6"}, {"noise", "1e-4"}});
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {});
    Result result = runVariant("reference", d);
    const Result deferred {"deferred", {}, {}, {}, {}, {}, {}};
    const Delta clean = lrvWorkload().compare(result, deferred, d, params);
    EXPECT_TRUE(clean.withinTolerance()) << clean.value;
    // Spoil the most proportional pair by one part in a million: the sampled check always looks at it.
    const auto smallest = std::min_element(result.values.begin(), result.values.end());
    *smallest *= 1.0 + 1e-6;
    const Delta spoiled = lrvWorkload().compare(result, deferred, d, params);
    EXPECT_FALSE(spoiled.withinTolerance());
    EXPECT_NEAR(spoiled.details[1].second, 1e-6, 1e-8) << "reported among the most proportional";
    // The histograms describe the sample, and say so; the spoiled pair is the one element in the 1e-6 bin.
    ASSERT_TRUE(clean.relError && spoiled.relError && spoiled.stepError);
    EXPECT_TRUE(spoiled.relError->sampled);
    EXPECT_EQ(spoiled.relError->elements, lrv::pairCount(400));
    EXPECT_EQ(spoiled.relError->compared(), spoiled.details[2].second);
    EXPECT_EQ(spoiled.stepError->compared(), spoiled.relError->compared());
    EXPECT_EQ(clean.relError->highestBin(), std::optional<std::size_t>(ErrorHistogram::binOf(clean.value)));
    EXPECT_EQ(spoiled.relError->highestBin(), std::optional<std::size_t>(ErrorHistogram::binOf(spoiled.value)));
    EXPECT_GE(spoiled.relError->counts[ErrorHistogram::binOf(spoiled.value)], 1u);
}

TEST(LrvWorkload, ReferenceIsSampledOnlyForHugeOutputs)
{
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {});
    EXPECT_TRUE(lrvWorkload().fullReferenceAffordable(generated({{"samples", "80"}, {"features", "1000"}}), params));
    // 150 × 20,000: 2·10^8 pairs of 150 samples is past what the full reference does in reasonable time.
    const auto wide = table(150, 20000, std::vector<double>(150 * 20000, 1.0));
    EXPECT_FALSE(lrvWorkload().fullReferenceAffordable(wide, params));
}

TEST(LrvWorkload, CostAndSubset)
{
    const auto d = generated({{"samples", "10"}, {"features", "100"}});
    const Cost c = lrvWorkload().cost(d, ParamSet::parse(lrvWorkload().parameters(), {}));
    EXPECT_EQ(c.items, 4950.0);
    EXPECT_EQ(c.itemName, "pairs");
    EXPECT_EQ(c.flops, 3.0 * 10 * 4950);
    EXPECT_EQ(c.roof, Roof::Fp64);
    const auto part = lrvWorkload().subset(d, 7);
    ASSERT_TRUE(part.has_value());
    const auto& t = part->as<data::ExpressionTable>();
    EXPECT_EQ(t.features, 7u);
    EXPECT_EQ(t.samples, 10u);
    EXPECT_EQ(t.values[1 * 7 + 3], d.as<data::ExpressionTable>().values[1 * 100 + 3]);
    EXPECT_EQ(t.featureNames.size(), 7u);
}

TEST(LrvWorkload, OutputHdf5CarriesTheFeatureNames)
{
    const auto d = table(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 10});
    const auto path = (std::filesystem::temp_directory_path() / "ks_lrv_output.h5").string();
    writeResultFile(path, runVariant("reference", d));
    auto file = data::h5::File::open(path);
    EXPECT_EQ(file.readDoubles("/result", 1, true).size(), 3u);
    EXPECT_EQ(file.readStrings("/feature_names"), (std::vector<std::string> {"G1", "G2", "G3"}));
    EXPECT_EQ(file.readStringAttribute("/result", "quantity"), "lrv");
    std::filesystem::remove(path);
}

/// Every GPU variant, with its output streamed in small chunks, gives the same numbers as in one piece.
class LrvStreaming : public ::testing::TestWithParam<std::string> { };

TEST_P(LrvStreaming, ChunkedOutputMatchesTheWholeOutput)
{
    const Variant& v = *lrvWorkload().findVariant(GetParam());
    if (const auto reason = unavailableReason(v); !reason.empty())
        GTEST_SKIP() << reason;
    const auto d = generated({{"samples", "24"}, {"features", "1500"}, {"planted", "4"}});
    const Result whole = runVariant(GetParam(), d);
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {{"device_output_mb", "1"}});
    RunContext context {0, &steadyClock()};
    auto run = v.prepare(d, params, context);
    run->run();
    run->run(); // buffers are reused across repetitions
    const Result chunked = run->fetch();
    EXPECT_NE(run->note().find("streamed"), std::string::npos) << run->note();
    ASSERT_EQ(chunked.values.size(), whole.values.size());
    for (std::size_t k = 0; k < whole.values.size(); ++k)
        ASSERT_EQ(chunked.values[k], whole.values[k]) << "pair " << k;
}

INSTANTIATE_TEST_SUITE_P(GpuVariants, LrvStreaming,
    ::testing::Values("block_per_pair", "thread_per_pair", "logs_tiled", "dmma_refined", "dmma_refined_multi",
        "cublas_gemm", "cublas_refined"));

/// The same for weighted lrv, with the variants that compute it; a streamed run's note gives its copy ceiling.
class LrvWeightedStreaming : public ::testing::TestWithParam<std::string> { };

TEST_P(LrvWeightedStreaming, ChunkedOutputMatchesTheWholeOutput)
{
    const Variant& v = *lrvWorkload().findVariant(GetParam());
    if (const auto reason = unavailableReason(v); !reason.empty())
        GTEST_SKIP() << reason;
    const auto d = generated({{"samples", "37"}, {"features", "1500"}, {"planted", "4"}, {"weights", "random"}});
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {});
    const Result whole = runVariant(GetParam(), d);
    EXPECT_LE(lrvWorkload().compare(whole, runVariant("reference", d), d, params).value, 1e-9);
    const auto chunkedParams = ParamSet::parse(lrvWorkload().parameters(), {{"device_output_mb", "1"}});
    RunContext context {0, &steadyClock()};
    auto run = v.prepare(d, chunkedParams, context);
    run->run();
    run->run();
    const Result chunked = run->fetch();
    EXPECT_NE(run->note().find("GB/s, so the"), std::string::npos) << run->note();
    ASSERT_EQ(chunked.values.size(), whole.values.size());
    for (std::size_t k = 0; k < whole.values.size(); ++k)
        ASSERT_EQ(chunked.values[k], whole.values[k]) << "pair " << k;
}

INSTANTIATE_TEST_SUITE_P(GpuVariants, LrvWeightedStreaming,
    ::testing::Values("thread_per_pair", "logs_tiled", "dmma_refined", "dmma_refined_multi"));

/// `features` features, each a multiple of one profile with noise of 1e-5 on the log scale: every pair nearly
/// proportional, far more than a tensor-core run's worklist holds. With `weighted`, random weights in [0.2, 1.2).
/// Only the first `proportional` features so, if given; the rest independent of everything.
data::Dataset nearlyProportional(
    std::size_t n, std::size_t p, bool weighted, std::size_t proportional = std::numeric_limits<std::size_t>::max())
{
    std::vector<double> values(n * p), weights(weighted ? n * p : 0);
    std::uint64_t state = 12345;
    const auto uniform = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    std::vector<double> profile(n);
    for (double& v : profile)
        v = 1.0 + 99.0 * uniform();
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t i = 0; i < p; ++i) {
            values[k * p + i] = i < proportional
                ? profile[k] * static_cast<double>(i + 1) * std::exp(1e-5 * (uniform() - 0.5))
                : 1.0 + 99.0 * uniform();
            if (weighted)
                weights[k * p + i] = 0.2 + uniform();
        }
    return table(n, p, std::move(values), std::move(weights));
}

/// Where a logarithm goes wrong if it can: log-uniform over every binade, just either side of 1, every piece's edges
/// (and their neighbours) in many binades, the 400 doubles around each e^(±2^m), whose logs sit at a power of two while
/// k·ln 2 − log v lies in the binade above (the table's worst), the extremes, and the counts an expression table holds.
std::vector<double> logTestInputs(std::size_t random)
{
    using namespace lrv::table_log;
    std::vector<double> x;
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> exponent(-1021.0, 1023.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (std::size_t e = 0; e < random; ++e) {
        x.push_back(std::exp2(exponent(rng)));
        const double d = std::ldexp(unit(rng), -static_cast<int>(rng() % 60));
        x.push_back(1.0 + d);
        x.push_back(1.0 - d / 2);
    }
    for (int piece = 0; piece <= kPieces; ++piece) {
        const double edge = fromBits(kStart + (static_cast<std::uint64_t>(piece) << kPieceShift));
        for (int k = -1020; k <= 1020; k += 17)
            for (const double v : {edge, std::nextafter(edge, 0.0), std::nextafter(edge, 2.0)})
                x.push_back(std::ldexp(v, k));
    }
    for (int m = -8; m <= 9; ++m)
        for (const long double sign : {-1.0L, 1.0L}) {
            const double centre = static_cast<double>(std::exp(sign * std::ldexp(1.0L, m)));
            double below = centre, above = centre;
            for (int step = 0; step < 200; ++step) {
                x.push_back(below = std::nextafter(below, 0.0));
                x.push_back(above = std::nextafter(above, HUGE_VAL));
            }
        }
    for (const double v : {std::numeric_limits<double>::min(), std::numeric_limits<double>::max(), 1.0})
        x.push_back(v);
    for (int c = 1; c <= 100000; ++c)
        x.push_back(c);
    return x;
}

/// |got − log x| in units in the last place of max(|log x|, 1), from long double: the centring needs a small
/// absolute error, since its logs are centred and differenced before anything else.
double ulpsFromLog(double x, double got)
{
    const long double exact = std::log(static_cast<long double>(x));
    const double scale = std::max(1.0, std::fabs(static_cast<double>(exact)));
    const double ulp = std::ldexp(1.0, std::ilogb(scale) - std::numeric_limits<double>::digits + 1);
    return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

TEST(LrvTableLog, WithinTwoUnitsInTheLastPlaceAndTheLibrarysOutsideTheNormals)
{
    std::vector<lrv::LogPiece> pieces(lrv::table_log::kPieces);
    for (int i = 0; i < lrv::table_log::kPieces; ++i)
        pieces[i] = lrv::logPiece(i);
    double worst = 0.0;
    for (const double x : logTestInputs(300000))
        worst = std::max(worst, ulpsFromLog(x, lrv::tableLog(x, pieces.data())));
    EXPECT_LT(worst, 2.0);
    EXPECT_EQ(lrv::tableLog(1.0, pieces.data()), 0.0);
    for (const double x : {0.0, -1.0, 4e-320, std::numeric_limits<double>::infinity()}) {
        const double expected = std::log(x);
        const double got = lrv::tableLog(x, pieces.data());
        EXPECT_TRUE(got == expected || (std::isnan(got) && std::isnan(expected))) << x;
    }
    EXPECT_TRUE(std::isnan(lrv::tableLog(std::nan(""), pieces.data())));
}

TEST(LrvTableLog, WithinTwoUnitsInTheLastPlaceOnTheDevice)
{
    const std::vector<double> x = logTestInputs(100000);
    const std::vector<double> device = lrv::tableLogsOnDevice(x);
    if (device.empty())
        GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(device.size(), x.size());
    double worst = 0.0;
    for (std::size_t e = 0; e < x.size(); ++e)
        worst = std::max(worst, ulpsFromLog(x[e], device[e]));
    EXPECT_LT(worst, 2.0);
    // What is not a positive normal double is the device library's.
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    const std::vector<double> special = lrv::tableLogsOnDevice({0.0, -1.0, kInfinity, std::nan(""), 4e-320});
    ASSERT_EQ(special.size(), 5u);
    EXPECT_EQ(special[0], -kInfinity);
    EXPECT_TRUE(std::isnan(special[1]));
    EXPECT_EQ(special[2], kInfinity);
    EXPECT_TRUE(std::isnan(special[3]));
    EXPECT_LT(ulpsFromLog(4e-320, special[4]), 2.0);
}

/// Weighted lrv on nearly proportional pairs: the direct tiles, and the tensor-core expansion with its refinement —
/// both its worklist (a few planted pairs) and its fallback to the tiles (every pair of a table whose features are
/// all nearly proportional, far more than the worklist holds).
TEST(LrvAccuracy, WeightedExpansionIsRefinedOnNearlyProportionalPairs)
{
    for (const char* id : {"logs_tiled", "dmma_refined"})
        if (const auto reason = unavailableReason(*lrvWorkload().findVariant(id)); !reason.empty())
            GTEST_SKIP() << reason;
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {});
    const auto planted = generated(
        {{"samples", "80"}, {"features", "2000"}, {"planted", "20"}, {"noise", "1e-5"}, {"weights", "random"}});
    const Result ref = runVariant("reference", planted);
    for (const char* id : {"thread_per_pair", "logs_tiled", "dmma_refined"})
        EXPECT_LE(lrvWorkload().compare(runVariant(id, planted), ref, planted, params).value, 1e-9) << id;

    const data::Dataset d = nearlyProportional(45, 300, true);
    const Result allRef = runVariant("reference", d);
    for (const char* id : {"logs_tiled", "dmma_refined"})
        EXPECT_LE(lrvWorkload().compare(runVariant(id, d), allRef, d, params).value, 1e-9) << id;
}

/// Unweighted, the same fallback: the tensor-core run reads only the fragment-order copies for it (up to 320 samples,
/// where the centring keeps no N × p copy) or beside that copy (past 320); the cuBLAS run reads its own.
TEST(LrvAccuracy, ExpansionFallsBackToTilesWhenEveryPairIsNearlyProportional)
{
    std::vector<const char*> ids;
    for (const char* id : {"dmma_refined", "cublas_refined"})
        if (unavailableReason(*lrvWorkload().findVariant(id)).empty())
            ids.push_back(id);
    if (ids.empty())
        GTEST_SKIP() << unavailableReason(*lrvWorkload().findVariant("dmma_refined"));
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {});
    for (const std::size_t n : {45, 330}) {
        const data::Dataset d = nearlyProportional(n, 300, false);
        const Result ref = runVariant("reference", d);
        for (const char* id : ids)
            EXPECT_LE(lrvWorkload().compare(runVariant(id, d), ref, d, params).value, 1e-9) << id << ", N = " << n;
    }
}

/// Many cancelling pairs in one tile: the first 12 features nearly proportional (66 pairs, all in the first tile), the
/// rest independent, so the tensor-core kernel lists them all from one block and the refinement recomputes them from
/// its list (well within it: no fallback). 37 samples (a one-step last stage) and 80, at once and in 1 MiB chunks.
TEST(LrvAccuracy, ATileFullOfCancellingPairsIsRefinedWholeOrInChunks)
{
    if (const auto reason = unavailableReason(*lrvWorkload().findVariant("dmma_refined")); !reason.empty())
        GTEST_SKIP() << reason;
    for (const std::size_t n : {37, 80}) {
        const data::Dataset d = nearlyProportional(n, 700, false, 12);
        const Result ref = runVariant("reference", d);
        for (const char* chunk : {"0", "1"}) {
            const std::map<std::string, std::string> values {{"device_output_mb", chunk}};
            const auto params = ParamSet::parse(lrvWorkload().parameters(), values);
            EXPECT_LE(lrvWorkload().compare(runVariant("dmma_refined", d, values), ref, d, params).value, 1e-9)
                << "N = " << n << ", device_output_mb " << chunk;
        }
    }
}

/// The centred logs come from a kernel that holds a block's columns in shared memory up to 320 samples and from
/// one that rereads them past that: both sides of the bound, log and alpha, through every kernel that reads them.
TEST(LrvAccuracy, CentredLogsAgreeEitherSideOfTheSharedMemoryBound)
{
    const std::vector<const char*> ids {"logs_tiled", "dmma_refined", "cublas_refined"};
    for (const char* id : ids)
        if (const auto reason = unavailableReason(*lrvWorkload().findVariant(id)); !reason.empty())
            GTEST_SKIP() << reason;
    for (const char* samples : {"320", "321"})
        for (const std::map<std::string, std::string>& mode :
            {std::map<std::string, std::string> {}, std::map<std::string, std::string> {{"alpha", "0.5"}}}) {
            const auto d = generated({{"samples", samples}, {"features", "150"}, {"planted", "3"}, {"noise", "1e-5"}});
            const auto params = ParamSet::parse(lrvWorkload().parameters(), mode);
            const Result ref = runVariant("reference", d, mode);
            for (const char* id : ids)
                EXPECT_LE(lrvWorkload().compare(runVariant(id, d, mode), ref, d, params).value, 1e-9)
                    << id << ", " << samples << " samples" << (mode.empty() ? "" : ", alpha 0.5");
        }
}

TEST(LrvAccuracy, EitherTileOrderGivesTheSameBitsWholeOrInChunks)
{
    // The tensor-core kernels take their tiles row by row or in groups of tile rows swept column by column; each
    // pair comes from the same tile and the same sums either way, so the bits must match — over whole groups and a
    // short last one (1,500 features: 24 tile rows of 64, 47 of 32), on the device at once and streamed in chunks
    // of 1 MiB (each chunk's rows grouped from its first), unweighted and weighted — and the reference within the bar.
    // 37 samples end on a stage of one k8 step; 45 fill every stage (the instances that take m16n8k16).
    const auto& dmma = *lrvWorkload().findVariant("dmma_refined");
    if (const auto reason = unavailableReason(dmma); !reason.empty())
        GTEST_SKIP() << reason;
    for (const char* samples : {"37", "45"})
        for (const char* weights : {"none", "random"}) {
            const auto d = generated({{"samples", samples}, {"features", "1500"}, {"planted", "10"}, {"noise", "1e-5"},
                {"weights", weights}});
            const Result ref = runVariant("reference", d);
            for (const char* chunk : {"0", "1"}) {
                std::map<std::string, std::string> rows {{"group_rows", "1"}, {"device_output_mb", chunk}};
                std::map<std::string, std::string> groups {{"group_rows", "16"}, {"device_output_mb", chunk}};
                const Result byRows = runVariant("dmma_refined", d, rows);
                const Result byGroups = runVariant("dmma_refined", d, groups);
                ASSERT_EQ(byRows.values.size(), byGroups.values.size());
                EXPECT_EQ(
                    0, std::memcmp(byRows.values.data(), byGroups.values.data(), byRows.values.size() * sizeof(double)))
                    << samples << " samples, weights " << weights << ", device_output_mb " << chunk;
                EXPECT_LE(
                    lrvWorkload().compare(byGroups, ref, d, ParamSet::parse(lrvWorkload().parameters(), groups)).value,
                    1e-9)
                    << samples << " samples, weights " << weights << ", device_output_mb " << chunk;
            }
        }
}

TEST(LrvAccuracy, TheExpansionLosesDigitsOnNearlyProportionalPairsAndRefinementRestoresThem)
{
    for (const char* id : {"cublas_gemm", "cublas_refined", "logs_tiled", "dmma_refined"})
        if (const auto reason = unavailableReason(*lrvWorkload().findVariant(id)); !reason.empty())
            GTEST_SKIP() << reason;
    const auto d = generated({{"samples", "80"}, {"features", "2000"}, {"planted", "20"}, {"noise", "1e-5"}});
    const auto params = ParamSet::parse(lrvWorkload().parameters(), {});
    const Result ref = runVariant("reference", d);
    const Delta gemm = lrvWorkload().compare(runVariant("cublas_gemm", d), ref, d, params);
    const Delta refined = lrvWorkload().compare(runVariant("cublas_refined", d), ref, d, params);
    const Delta tiled = lrvWorkload().compare(runVariant("logs_tiled", d), ref, d, params);
    const Delta dmma = lrvWorkload().compare(runVariant("dmma_refined", d), ref, d, params);
    EXPECT_LE(dmma.value, 1e-9);
    EXPECT_GT(gemm.details[1].second, 1e-9) << "the expansion was expected to lose digits";
    EXPECT_LE(refined.value, 1e-9);
    EXPECT_LE(tiled.value, 1e-9);
}

} // namespace
} // namespace ks
