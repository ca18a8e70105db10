// The content hash that identifies a dataset in result rows, the built-in linreg generator, and the metadata
// makeSeriesDataset attaches.

#include "data/dataset.h"
#include "data/dataset_error.h"
#include "data/hash.h"
#include "data/random.h"
#include "data/series2d.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::errorSays;

std::vector<unsigned char> patternBytes(std::size_t n)
{
    std::vector<unsigned char> bytes(n);
    for (std::size_t i = 0; i < n; ++i)
        bytes[i] = static_cast<unsigned char>((i * 131u + 7u) ^ (i >> 3));
    return bytes;
}

ContentHasher hashInPieces(const std::vector<unsigned char>& bytes, std::size_t piece)
{
    ContentHasher hasher;
    for (std::size_t pos = 0; pos < bytes.size(); pos += piece)
        hasher.add(bytes.data() + pos, std::min(piece, bytes.size() - pos));
    return hasher;
}

std::uint64_t hashOf(const std::vector<unsigned char>& bytes)
{
    ContentHasher hasher;
    hasher.add(bytes.data(), bytes.size());
    return hasher.value();
}

// --- ContentHasher --------------------------------------------------------------------------------------------

TEST(ContentHasherTest, SameValueHoweverTheBytesAreSplit)
{
    // 1001 bytes: not a multiple of 8 or 32, so pending bytes and the four-lane loop both matter.
    const auto bytes = patternBytes(1001);
    const ContentHasher whole = hashInPieces(bytes, bytes.size());
    for (const std::size_t piece : {1u, 3u, 7u, 8u, 9u, 31u, 32u, 33u, 100u}) {
        const ContentHasher split = hashInPieces(bytes, piece);
        EXPECT_EQ(split.value(), whole.value()) << piece << "-byte pieces";
        EXPECT_EQ(split.hex(), whole.hex()) << piece << "-byte pieces";
    }
}

TEST(ContentHasherTest, IrregularSplitsAgreeToo)
{
    const auto bytes = patternBytes(517);
    ContentHasher hasher;
    std::size_t pos = 0;
    for (std::size_t piece = 1; pos < bytes.size(); piece = piece * 3 % 41 + 1) {
        const std::size_t n = std::min(piece, bytes.size() - pos);
        hasher.add(bytes.data() + pos, n);
        pos += n;
    }
    EXPECT_EQ(hasher.value(), hashOf(bytes));
}

TEST(ContentHasherTest, EmptyAddsChangeNothing)
{
    const auto bytes = patternBytes(40);
    ContentHasher hasher;
    hasher.add(nullptr, 0);
    hasher.add(bytes.data(), 13);
    hasher.add(bytes.data() + 13, 0);
    hasher.add(bytes.data() + 13, 27);
    EXPECT_EQ(hasher.value(), hashOf(bytes));
}

TEST(ContentHasherTest, DifferentContentGivesDifferentValues)
{
    const auto bytes = patternBytes(256);
    const std::uint64_t reference = hashOf(bytes);
    for (const std::size_t flip : {0u, 7u, 8u, 31u, 32u, 200u, 255u}) {
        auto changed = bytes;
        changed[flip] ^= 0x01;
        EXPECT_NE(hashOf(changed), reference) << "bit flipped in byte " << flip;
    }
    // Swapping two 8-byte words that land in different lanes.
    auto swapped = bytes;
    std::swap_ranges(swapped.begin(), swapped.begin() + 8, swapped.begin() + 8);
    EXPECT_NE(hashOf(swapped), reference);
}

TEST(ContentHasherTest, DifferentLengthGivesDifferentValues)
{
    const std::vector<unsigned char> empty;
    std::vector<unsigned char> zeros;
    std::vector<std::uint64_t> seen = {hashOf(empty)};
    for (std::size_t n = 1; n <= 40; ++n) {
        zeros.assign(n, 0);
        const std::uint64_t h = hashOf(zeros);
        for (const auto earlier : seen)
            EXPECT_NE(h, earlier) << n << " zero bytes hash like a shorter run of zeros";
        seen.push_back(h);
    }
    const auto bytes = patternBytes(64);
    EXPECT_NE(hashOf(bytes), hashOf(std::vector<unsigned char>(bytes.begin(), bytes.end() - 1)));
}

TEST(ContentHasherTest, HexIsPrefixedSixteenLowercaseDigits)
{
    ContentHasher hasher;
    const auto bytes = patternBytes(10);
    hasher.add(bytes.data(), bytes.size());
    const std::string hex = hasher.hex();
    ASSERT_EQ(hex.size(), 5u + 16u);
    EXPECT_EQ(hex.substr(0, 5), "ks64:");
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef", 5), std::string::npos) << hex;
    EXPECT_EQ(std::stoull(hex.substr(5), nullptr, 16), hasher.value());
}

TEST(ContentHasherTest, AddSpanHashesTheValuesBytes)
{
    const std::vector<double> values = {0.1, -2.5, 1e300, 0.0};
    ContentHasher viaSpan;
    viaSpan.addSpan(std::span<const double>(values));
    ContentHasher viaBytes;
    viaBytes.add(values.data(), values.size() * sizeof(double));
    EXPECT_EQ(viaSpan.value(), viaBytes.value());
    // -0.0 and 0.0 compare equal but are different content.
    const std::vector<double> negativeZero = {0.1, -2.5, 1e300, -0.0};
    ContentHasher other;
    other.addSpan(std::span<const double>(negativeZero));
    EXPECT_NE(other.value(), viaSpan.value());
}

// --- CounterRng -----------------------------------------------------------------------------------------------

TEST(CounterRngTest, ValuesDependOnlyOnSeedStreamAndIndex)
{
    const CounterRng a(42), b(42), c(43);
    EXPECT_EQ(a.bits(0, 5), b.bits(0, 5));
    EXPECT_NE(a.bits(0, 5), c.bits(0, 5));
    EXPECT_NE(a.bits(0, 5), a.bits(1, 5));
    EXPECT_NE(a.bits(0, 5), a.bits(0, 6));
    for (std::uint64_t i = 0; i < 1000; ++i) {
        const double u = a.uniform(3, i);
        EXPECT_GE(u, 0.0);
        EXPECT_LT(u, 1.0);
        EXPECT_TRUE(std::isfinite(a.normal(1, i)));
    }
}

// --- generateSeries -------------------------------------------------------------------------------------------

TEST(GenerateSeriesTest, SameSeedGivesIdenticalData)
{
    SeriesGenerator g;
    g.n = 10000;
    g.seed = 7;
    const Series2D a = generateSeries(g);
    const Series2D b = generateSeries(g);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.y, b.y);
}

TEST(GenerateSeriesTest, DifferentSeedGivesDifferentData)
{
    SeriesGenerator g;
    g.n = 1000;
    g.seed = 7;
    const Series2D a = generateSeries(g);
    g.seed = 8;
    const Series2D b = generateSeries(g);
    std::size_t sameX = 0;
    for (std::size_t i = 0; i < a.x.size(); ++i)
        sameX += a.x[i] == b.x[i];
    EXPECT_EQ(sameX, 0u);
    EXPECT_NE(a.y, b.y);
}

TEST(GenerateSeriesTest, HasNPointsWithXInTheHalfOpenRange)
{
    SeriesGenerator g;
    g.n = 50001;
    g.xOffset = -1000.0;
    g.xSpan = 50.0;
    const Series2D s = generateSeries(g);
    ASSERT_EQ(s.x.size(), 50001u);
    ASSERT_EQ(s.y.size(), 50001u);
    double lo = s.x[0], hi = s.x[0];
    for (const double x : s.x) {
        ASSERT_GE(x, g.xOffset);
        ASSERT_LT(x, g.xOffset + g.xSpan);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    // Uniform over the whole range, not a corner of it.
    EXPECT_LT(lo, g.xOffset + 0.01 * g.xSpan);
    EXPECT_GT(hi, g.xOffset + 0.99 * g.xSpan);
    EXPECT_EQ(s.xName, "x");
    EXPECT_EQ(s.yName, "y");
    EXPECT_EQ(s.storedType, "float64");
}

TEST(GenerateSeriesTest, FittedSlopeAndInterceptMatchTheRequestedOnes)
{
    SeriesGenerator g;
    g.n = 200000;
    g.slope = 2.5;
    g.intercept = -1.25;
    g.noise = 1.0;
    g.xOffset = 10.0;
    g.xSpan = 100.0;
    g.seed = 3;
    const Series2D s = generateSeries(g);
    // Least squares with centred sums (two passes), so the check itself loses no digits.
    const double n = static_cast<double>(s.x.size());
    double meanX = 0.0, meanY = 0.0;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
        meanX += s.x[i];
        meanY += s.y[i];
    }
    meanX /= n;
    meanY /= n;
    double sxx = 0.0, sxy = 0.0, residual = 0.0;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
        sxx += (s.x[i] - meanX) * (s.x[i] - meanX);
        sxy += (s.x[i] - meanX) * (s.y[i] - meanY);
    }
    const double slope = sxy / sxx;
    const double intercept = meanY - slope * meanX;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
        const double r = s.y[i] - (slope * s.x[i] + intercept);
        residual += r * r;
    }
    // Standard error of the slope is about noise / (sd(x)·√n) ≈ 8e-5 here.
    EXPECT_NEAR(slope, g.slope, 1e-3);
    EXPECT_NEAR(intercept, g.intercept, 0.05);
    EXPECT_NEAR(std::sqrt(residual / n), g.noise, 0.01);
}

TEST(GenerateSeriesTest, ZeroNoiseGivesPointsOnTheLine)
{
    SeriesGenerator g;
    g.n = 1000;
    g.noise = 0.0;
    g.slope = -0.5;
    g.intercept = 3.0;
    const Series2D s = generateSeries(g);
    for (std::size_t i = 0; i < s.x.size(); ++i)
        ASSERT_EQ(s.y[i], g.slope * s.x[i] + g.intercept) << i;
}

TEST(GenerateSeriesTest, ZeroSpanPutsEveryXAtTheOffset)
{
    SeriesGenerator g;
    g.n = 100;
    g.xOffset = 1e9;
    g.xSpan = 0.0;
    for (const double x : generateSeries(g).x)
        ASSERT_EQ(x, 1e9);
}

TEST(GenerateSeriesTest, ZeroPointsIsAnError)
{
    SeriesGenerator g;
    g.n = 0;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSeries(g); }), "generator", "n", "must be at least 1"));
}

TEST(GenerateSeriesTest, InvalidParametersAreErrors)
{
    const auto withNoise = [](double noise) {
        SeriesGenerator g;
        g.n = 10;
        g.noise = noise;
        return g;
    };
    std::vector<std::pair<const char*, SeriesGenerator>> cases = {
        {"negative noise", withNoise(-1.0)},
        {"NaN noise", withNoise(std::numeric_limits<double>::quiet_NaN())},
    };
    SeriesGenerator g;
    g.n = 10;
    g.xSpan = -1.0;
    cases.emplace_back("negative span", g);
    g = {};
    g.n = 10;
    g.slope = std::numeric_limits<double>::quiet_NaN();
    cases.emplace_back("NaN slope", g);
    g = {};
    g.n = 10;
    g.intercept = std::numeric_limits<double>::infinity();
    cases.emplace_back("infinite intercept", g);
    g = {};
    g.n = 10;
    g.xOffset = -std::numeric_limits<double>::infinity();
    cases.emplace_back("infinite offset", g);
    for (const auto& [what, generator] : cases)
        EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSeries(generator); }), "generator", "parameters",
            "noise and x_span non-negative"))
            << what;
}

// --- makeSeriesDataset ----------------------------------------------------------------------------------------

class SeriesDatasetTest : public test::TempDirTest { };

TEST_F(SeriesDatasetTest, FillsTheMetadata)
{
    Series2D s;
    s.x = {3.0, -1.0, 2.0};
    s.y = {0.5, 10.0, 1e-7};
    s.xName = "time";
    s.yName = "volts";
    s.storedType = "float32";
    const Dataset d = makeSeriesDataset(s, "generated linreg (n=3)", "generator");
    ASSERT_TRUE(d.holds<Series2D>());
    EXPECT_FALSE(d.holds<int>());
    EXPECT_EQ(d.meta().kind, "series2d");
    EXPECT_EQ(d.meta().name, "generated linreg (n=3)");
    EXPECT_EQ(d.meta().source, "generator");
    EXPECT_EQ(d.meta().size, 3u);
    EXPECT_EQ(d.meta().contentHash.substr(0, 5), "ks64:");
    const std::vector<std::pair<std::string, std::string>> properties
        = {{"points", "3"}, {"time range", "[-1, 3]"}, {"volts range", "[1e-07, 10]"}, {"stored as", "float32"}};
    EXPECT_EQ(d.meta().properties, properties);
    EXPECT_EQ(d.as<Series2D>().x, s.x);
    EXPECT_THROW(d.as<int>(), std::logic_error);
    EXPECT_TRUE(Dataset().empty());
}

TEST_F(SeriesDatasetTest, ContentHashIsTheSameForCsvAndHdf5CopiesOfTheSameValues)
{
    SeriesGenerator g;
    g.n = 3000;
    g.seed = 11;
    Series2D s = generateSeries(g);
    s.xName = "time"; // names are not content
    const std::string csv = tempPath("copy.csv");
    const std::string h5 = tempPath("copy.h5");
    writeSeriesCsv(csv, s);
    writeSeriesHdf5(h5, s);

    const Dataset fromCsv = loadSeries2D(csv);
    const Dataset fromHdf5 = loadSeries2D(h5);
    const Dataset inMemory = makeSeriesDataset(generateSeries(g), "generated", "generator");
    EXPECT_EQ(fromCsv.meta().contentHash, fromHdf5.meta().contentHash);
    EXPECT_EQ(fromCsv.meta().contentHash, inMemory.meta().contentHash);
    EXPECT_EQ(fromCsv.meta().size, 3000u);
    EXPECT_EQ(fromHdf5.meta().size, 3000u);
    EXPECT_EQ(fromCsv.meta().name, "copy.csv");
    EXPECT_EQ(fromHdf5.meta().name, "copy.h5");

    // A float32 copy holds other values, so it hashes differently; so does another seed.
    const std::string h5f = tempPath("copy32.h5");
    writeSeriesHdf5(h5f, s, true);
    EXPECT_NE(loadSeries2D(h5f).meta().contentHash, fromHdf5.meta().contentHash);
    g.seed = 12;
    EXPECT_NE(
        makeSeriesDataset(generateSeries(g), "other", "generator").meta().contentHash, inMemory.meta().contentHash);
}

TEST_F(SeriesDatasetTest, SwappingXAndYChangesTheHash)
{
    Series2D s;
    s.x = {1.0, 2.0};
    s.y = {3.0, 4.0};
    Series2D swapped;
    swapped.x = s.y;
    swapped.y = s.x;
    EXPECT_NE(
        makeSeriesDataset(s, "a", "a").meta().contentHash, makeSeriesDataset(swapped, "b", "b").meta().contentHash);
}

TEST_F(SeriesDatasetTest, CopiesShareThePayload)
{
    const Dataset a = makeSeriesDataset(generateSeries({.n = 10}), "a", "generator");
    const Dataset b = a;
    EXPECT_EQ(&a.as<Series2D>(), &b.as<Series2D>());
    EXPECT_EQ(a.meta().contentHash, b.meta().contentHash);
}

} // namespace
} // namespace ks::data
