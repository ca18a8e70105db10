// The generators behind the built-in spmv data: uniform and power-law random patterns, 2-D and 3-D Laplacians and
// banded matrices, each row a function of (seed, row) only, built in parallel.

#include "data/cancel.h"
#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/number_text.h"
#include "data/random.h"
#include "data/sparse_matrix.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace ks::data {

namespace {

// CounterRng streams: draw n of row r is bits(stream + n, r), a value's draw is bits(kValueStream + retry, position),
// so every row is a function of (seed, row) only and the matrix is the same for any thread count. The bases are far
// apart so no two uses share a stream (generateVector's, in vector.cpp, is 5 << 40).
constexpr std::uint64_t kLengthStream = 1ULL << 40; // row lengths, index = row
constexpr std::uint64_t kColumnStream = 2ULL << 40; // column draws, index = row
constexpr std::uint64_t kValueStream = 3ULL << 40; // values, index = position in colIdx
constexpr std::uint64_t kPermutationStream = 4ULL << 40; // Feistel round keys (power-law ranks)

/// Rows per OpenMP work item: rows of one pattern cost about the same, except power-law rows, hence dynamic.
constexpr std::int64_t kRowChunk = 2048;
/// Above this variance a binomial row length is drawn from its normal approximation; below, by inversion.
constexpr double kBinomialNormalAbove = 200.0;
/// Rows of cols / kBitmapRatio entries or more take their columns through a bitmap instead of a sort.
constexpr std::uint64_t kBitmapRatio = 1024;
/// The power law's exponent must exceed 1; near 1 the rank law rank^(−1/(α−1)) overflows doubles.
constexpr double kMinExponent = 1.05;

const char* const kGenerator = "generator";

/// Binomial(n, p) row lengths: inversion through a CDF table built once (lower_bound of a uniform) for small
/// variance, the rounded normal approximation above kBinomialNormalAbove; p > 1/2 by symmetry, so (1 − p)^n never
/// underflows when the table starts.
class BinomialLengths {
public:
    BinomialLengths(std::uint64_t n, double p)
        : m_n(n)
        , m_mirrored(p > 0.5)
    {
        const double q = m_mirrored ? 1.0 - p : std::max(p, 0.0);
        const double nd = static_cast<double>(n);
        m_mean = nd * q;
        m_sd = std::sqrt(m_mean * (1.0 - q));
        if (n == 0 || q == 0.0 || m_sd * m_sd > kBinomialNormalAbove)
            return;
        const double ratio = q / (1.0 - q);
        double pmf = std::exp(nd * std::log1p(-q));
        double cdf = pmf;
        m_cdf.push_back(cdf);
        for (std::uint64_t k = 0; k < n && cdf < 1.0 && pmf > 0.0; ++k) {
            pmf *= static_cast<double>(n - k) / static_cast<double>(k + 1) * ratio;
            cdf += pmf;
            m_cdf.push_back(cdf);
        }
    }

    std::uint64_t draw(DrawSequence& draws) const
    {
        std::uint64_t k = 0;
        if (!m_cdf.empty())
            k = std::min<std::uint64_t>(m_cdf.size() - 1,
                static_cast<std::uint64_t>(
                    std::lower_bound(m_cdf.begin(), m_cdf.end(), draws.uniform()) - m_cdf.begin()));
        else if (m_mean > 0.0)
            k = static_cast<std::uint64_t>(
                std::clamp(std::round(m_mean + m_sd * draws.normal()), 0.0, static_cast<double>(m_n)));
        return m_mirrored ? m_n - k : k;
    }

private:
    std::uint64_t m_n;
    bool m_mirrored;
    double m_mean = 0.0;
    double m_sd = 0.0;
    std::vector<double> m_cdf; ///< P(X ≤ k) for k = 0, 1, ... until it reaches 1
};

/// k distinct columns of [0, cols), ascending, into out[0, k). Short rows: uniform draws, sorted, with repeated
/// columns drawn again until k are distinct. Rows of cols / kBitmapRatio or more: draws marked in a bitmap (the
/// columns left out instead when more than half are in), then read off in order — O(k + cols / 64), where sorting
/// the long rows of the power law would dominate its generation.
void drawColumns(const CounterRng& rng, std::uint64_t row, std::uint64_t cols, std::uint64_t k, std::int32_t* out,
    std::vector<std::uint64_t>& bitmap)
{
    if (k >= cols) {
        std::iota(out, out + cols, 0);
        return;
    }
    DrawSequence draws(rng, kColumnStream, row);
    if (k * kBitmapRatio >= cols) {
        const std::uint64_t words = (cols + 63) / 64;
        bitmap.assign(words, 0);
        const bool complement = 2 * k > cols;
        const std::uint64_t marks = complement ? cols - k : k;
        for (std::uint64_t placed = 0; placed < marks;) {
            const std::uint64_t c = draws.below(cols);
            std::uint64_t& word = bitmap[c / 64];
            const std::uint64_t bit = std::uint64_t {1} << (c % 64);
            if ((word & bit) == 0) {
                word |= bit;
                ++placed;
            }
        }
        std::uint64_t n = 0;
        for (std::uint64_t i = 0; i < words; ++i) {
            std::uint64_t word = complement ? ~bitmap[i] : bitmap[i];
            if (i + 1 == words && cols % 64 != 0)
                word &= (std::uint64_t {1} << (cols % 64)) - 1;
            for (; word != 0; word &= word - 1)
                out[n++] = static_cast<std::int32_t>(i * 64 + static_cast<std::uint64_t>(std::countr_zero(word)));
        }
        return;
    }
    std::uint64_t distinct = 0;
    while (distinct < k) {
        for (std::uint64_t j = distinct; j < k; ++j)
            out[j] = static_cast<std::int32_t>(draws.below(cols));
        std::sort(out, out + k);
        distinct = static_cast<std::uint64_t>(std::unique(out, out + k) - out);
    }
}

/// Uniform in [−1, 1) without zero (a zero draw, probability 2^-53, is drawn again).
double valueAt(const CounterRng& rng, std::uint64_t position)
{
    for (std::uint64_t retry = 0;; ++retry) {
        const double v = 2.0 * rng.uniform(kValueStream + retry, position) - 1.0;
        if (v != 0.0)
            return v;
    }
}

/// A pseudo-random permutation of [0, n) keyed by the seed: a 4-round Feistel network over the smallest even number
/// of bits that holds n, with cycle walking back into [0, n) (Black & Rogaway 2002). O(1) per element, so every row
/// finds its rank on its own.
class RankPermutation {
public:
    RankPermutation(std::uint64_t n, const CounterRng& rng)
        : m_n(n)
        , m_rng(rng)
    {
        const auto bits = n <= 1 ? 2U : static_cast<unsigned>(std::bit_width(n - 1));
        m_half = std::max(1U, (bits + 1) / 2);
        m_mask = (std::uint64_t {1} << m_half) - 1;
    }
    std::uint64_t operator()(std::uint64_t i) const
    {
        if (m_n <= 1)
            return 0;
        std::uint64_t v = i;
        do
            v = encrypt(v);
        while (v >= m_n);
        return v;
    }

private:
    std::uint64_t encrypt(std::uint64_t v) const
    {
        std::uint64_t left = v >> m_half;
        std::uint64_t right = v & m_mask;
        for (std::uint64_t round = 0; round < 4; ++round) {
            const std::uint64_t next = left ^ (m_rng.bits(kPermutationStream + round, right) & m_mask);
            left = right;
            right = next;
        }
        return (left << m_half) | right;
    }

    std::uint64_t m_n;
    const CounterRng& m_rng;
    unsigned m_half = 1;
    std::uint64_t m_mask = 1;
};

/// The power law's row lengths. The row of rank i (1-based) has the real length L(i) = min(cols, C · i^(−β)),
/// β = 1/(exponent − 1) (Zipf's rank–frequency law), with C chosen so that Σ L(i) = mean · rows (bisection on
/// log C; the clamped ranks are 1..K with K = (C/cols)^(1/β)). Each row's rank comes from RankPermutation, and its
/// integer length is L rounded up with probability frac(L) (unbiased, so the mean holds). 1M × 1M rows of mean 16:
/// with exponent 2 the longest rows are full (1M entries, 62,500 × the mean) and 55% of the rows have one or two
/// entries; with 1.5, a few rows hold nearly everything and 98% are empty; with 3 the longest has about 8,000.
class PowerLawLengths {
public:
    PowerLawLengths(std::uint64_t rows, std::uint64_t cols, double mean, double exponent)
        : m_cols(static_cast<double>(cols))
        , m_beta(1.0 / (exponent - 1.0))
    {
        const double n = static_cast<double>(rows);
        const double target = mean * n;
        if (target >= m_cols * n) {
            m_full = true;
            return;
        }
        // prefix[k] = Σ_{i ≤ k} i^(−β), summed serially so it is the same for any thread count.
        m_prefix.resize(rows + 1);
        m_prefix[0] = 0.0;
        for (std::uint64_t i = 1; i <= rows; ++i)
            m_prefix[i] = m_prefix[i - 1] + std::pow(static_cast<double>(i), -m_beta);
        double lo = std::log(target / m_prefix[rows]); // no clamping at this C: the sum is target or less
        double hi = std::log(m_cols) + m_beta * std::log(n) + 1.0; // every row clamped: the sum is cols · rows
        for (int iteration = 0; iteration < 200 && hi - lo > 1e-13 * std::max(1.0, std::abs(hi)); ++iteration) {
            const double mid = 0.5 * (lo + hi);
            (total(mid, rows) < target ? lo : hi) = mid;
        }
        m_logC = 0.5 * (lo + hi);
    }

    /// The real length of the row of 1-based rank i.
    double length(std::uint64_t rank) const
    {
        if (m_full)
            return m_cols;
        return std::min(m_cols, std::exp(m_logC - m_beta * std::log(static_cast<double>(rank))));
    }

private:
    double total(double logC, std::uint64_t rows) const
    {
        std::uint64_t clamped = 0;
        if (logC > std::log(m_cols))
            clamped = static_cast<std::uint64_t>(
                std::min(static_cast<double>(rows), std::floor(std::exp((logC - std::log(m_cols)) / m_beta))));
        return m_cols * static_cast<double>(clamped) + std::exp(logC) * (m_prefix[rows] - m_prefix[clamped]);
    }

    double m_cols;
    double m_beta;
    bool m_full = false;
    double m_logC = 0.0;
    std::vector<double> m_prefix;
};

void checkDimension(std::uint64_t value, const char* name)
{
    if (value < 1 || value > kMaxSparseDimension)
        throw DatasetError(kGenerator, name,
            "must be between 1 and " + std::to_string(kMaxSparseDimension) + " (32-bit indices), got "
                + std::to_string(value));
}

/// The rows × cols a pattern produces; DatasetError for parameters it cannot use.
std::pair<std::uint64_t, std::uint64_t> checkGenerator(const SparseGenerator& g)
{
    switch (g.pattern) {
    case SparsePattern::Uniform:
    case SparsePattern::PowerLaw: {
        checkDimension(g.rows, "rows");
        checkDimension(g.cols, "cols");
        const bool powerLaw = g.pattern == SparsePattern::PowerLaw;
        if (!std::isfinite(g.density) || g.density > 1.0 || (powerLaw ? g.density <= 0.0 : g.density < 0.0))
            throw DatasetError(kGenerator, "density",
                std::string("must be in ") + (powerLaw ? "(0, 1]" : "[0, 1]") + ", got " + formatNumber(g.density));
        if (powerLaw && (!std::isfinite(g.exponent) || g.exponent < kMinExponent))
            throw DatasetError(kGenerator, "exponent",
                "must be finite and at least " + formatNumber(kMinExponent) + ", got " + formatNumber(g.exponent));
        return {g.rows, g.cols};
    }
    case SparsePattern::Laplacian2d:
    case SparsePattern::Laplacian3d: {
        const int dimensions = g.pattern == SparsePattern::Laplacian2d ? 2 : 3;
        const std::uint64_t limit = dimensions == 2 ? 46340 : 1290; // side^d ≤ kMaxSparseDimension
        if (g.side < 1 || g.side > limit)
            throw DatasetError(kGenerator, "side",
                "must be between 1 and " + std::to_string(limit) + " (side^" + std::to_string(dimensions)
                    + " rows with 32-bit indices), got " + std::to_string(g.side));
        const std::uint64_t n = dimensions == 2 ? g.side * g.side : g.side * g.side * g.side;
        return {n, n};
    }
    case SparsePattern::Banded:
        checkDimension(g.rows, "rows");
        return {g.rows, g.rows};
    }
    throw DatasetError(kGenerator, "pattern", "unknown sparse pattern");
}

/// Where one row of the matrix goes: its `length` columns and values start at `position` of colIdx and values.
struct RowSlot {
    std::uint64_t row;
    std::uint64_t length;
    std::uint64_t position;
    std::int32_t* cols;
    double* values;
    std::vector<std::uint64_t>& scratch; ///< the thread's scratch (drawColumns' bitmap), reused across rows
};

/// Builds the matrix in two parallel passes over the rows: lengths (then a serial prefix sum), then each row's
/// columns and values. `rowLength(r)` and `fillRow(slot)` see only their row.
template <class RowLength, class FillRow>
CsrMatrix buildRows(
    std::uint64_t rows, std::uint64_t cols, const std::string& what, RowLength rowLength, FillRow fillRow)
{
    requireHostMemory(8 * (rows + 1), kGenerator, what, "the row pointers");
    // A stop request (Ctrl-C, Cancel) is checked while the memory is first touched and once a row: the rows left are
    // skipped and the generator throws.
    const CancelPoint cancel = ambientCancelPoint();
    CsrMatrix m;
    m.rows = rows;
    m.cols = cols;
    resizeCancellably(m.rowPtr, rows + 1, cancel);
    const auto n = static_cast<std::int64_t>(rows);
#pragma omp parallel for schedule(dynamic, kRowChunk)
    for (std::int64_t r = 0; r < n; ++r)
        if (!cancel.stopRequested())
            m.rowPtr[static_cast<std::size_t>(r) + 1]
                = static_cast<std::int64_t>(rowLength(static_cast<std::uint64_t>(r)));
    cancel.throwIfStopped();
    for (std::uint64_t r = 0; r < rows; ++r)
        m.rowPtr[r + 1] += m.rowPtr[r];
    const auto nnz = static_cast<std::uint64_t>(m.rowPtr[rows]);
    requireHostMemory(
        nnz * (sizeof(std::int32_t) + sizeof(double)), kGenerator, what, "the " + std::to_string(nnz) + " non-zeros");
    resizeCancellably(m.colIdx, nnz, cancel);
    resizeCancellably(m.values, nnz, cancel);
#pragma omp parallel
    {
        std::vector<std::uint64_t> scratch;
#pragma omp for schedule(dynamic, kRowChunk)
        for (std::int64_t r = 0; r < n; ++r) {
            if (cancel.stopRequested())
                continue;
            const auto begin = m.rowPtr[static_cast<std::size_t>(r)];
            const auto end = m.rowPtr[static_cast<std::size_t>(r) + 1];
            fillRow(RowSlot {static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(end - begin),
                static_cast<std::uint64_t>(begin), m.colIdx.data() + begin, m.values.data() + begin, scratch});
        }
    }
    cancel.throwIfStopped();
    return m;
}

std::string describe(const SparseGenerator& g)
{
    switch (g.pattern) {
    case SparsePattern::Uniform:
        return "uniform " + std::to_string(g.rows) + " × " + std::to_string(g.cols) + ", density "
            + formatNumber(g.density);
    case SparsePattern::PowerLaw:
        return "power-law " + std::to_string(g.rows) + " × " + std::to_string(g.cols) + ", density "
            + formatNumber(g.density) + ", exponent " + formatNumber(g.exponent);
    case SparsePattern::Laplacian2d:
        return "2-D Laplacian, side " + std::to_string(g.side);
    case SparsePattern::Laplacian3d:
        return "3-D Laplacian, side " + std::to_string(g.side);
    case SparsePattern::Banded:
        return "banded " + std::to_string(g.rows) + " × " + std::to_string(g.rows) + ", bandwidth "
            + std::to_string(g.bandwidth);
    }
    return "sparse generator";
}

/// The 5-point (2-D) or 7-point (3-D) Laplacian with Dirichlet boundaries: 2·d on the diagonal, −1 for each grid
/// neighbour, columns in ascending order.
CsrMatrix laplacian(std::uint64_t side, int dimensions, const std::string& what)
{
    const std::uint64_t rows = dimensions == 2 ? side * side : side * side * side;
    // Neighbour offsets in ascending column order, and the grid coordinate each steps along.
    const std::uint64_t plane = side * side;
    auto coordinates = [&](std::uint64_t r) {
        return dimensions == 2 ? std::array<std::uint64_t, 3> {0, r / side, r % side}
                               : std::array<std::uint64_t, 3> {r / plane, (r / side) % side, r % side};
    };
    const std::uint64_t strides[3] = {plane, side, 1};
    const int first = dimensions == 2 ? 1 : 0;
    auto rowLength = [&](std::uint64_t r) {
        const auto c = coordinates(r);
        std::uint64_t length = 1;
        for (int d = first; d < 3; ++d)
            length += (c[d] > 0) + (c[d] + 1 < side);
        return length;
    };
    const double diagonal = 2.0 * dimensions;
    auto fillRow = [&](const RowSlot& slot) {
        const std::uint64_t r = slot.row;
        const auto c = coordinates(r);
        std::size_t k = 0;
        auto put = [&](std::uint64_t col, double v) {
            slot.cols[k] = static_cast<std::int32_t>(col);
            slot.values[k] = v;
            ++k;
        };
        for (int d = first; d < 3; ++d)
            if (c[d] > 0)
                put(r - strides[d], -1.0);
        put(r, diagonal);
        for (int d = 2; d >= first; --d)
            if (c[d] + 1 < side)
                put(r + strides[d], -1.0);
    };
    return buildRows(rows, rows, what, rowLength, fillRow);
}

} // namespace

std::uint64_t sparseGeneratorBytes(const SparseGenerator& g, bool withVector)
{
    const auto [rows, cols] = checkGenerator(g);
    double entries = 0.0;
    std::uint64_t perRow = 8; // the row pointers
    switch (g.pattern) {
    case SparsePattern::Uniform:
        entries = static_cast<double>(rows) * static_cast<double>(cols) * g.density;
        break;
    case SparsePattern::PowerLaw:
        entries = static_cast<double>(rows) * g.density * static_cast<double>(cols);
        perRow += 8; // the length law's prefix sums
        break;
    case SparsePattern::Laplacian2d:
        entries = 5.0 * static_cast<double>(rows);
        break;
    case SparsePattern::Laplacian3d:
        entries = 7.0 * static_cast<double>(rows);
        break;
    case SparsePattern::Banded:
        entries = static_cast<double>(rows) * static_cast<double>(2 * std::min(g.bandwidth, rows) + 1);
        break;
    }
    const double bytes = entries * static_cast<double>(sizeof(std::int32_t) + sizeof(double));
    return saturatingAdd(
        saturatingAdd(bytes >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(bytes),
            saturatingMul(rows + 1, perRow)),
        withVector ? saturatingMul(cols, sizeof(double)) : 0);
}

CsrMatrix generateSparse(const SparseGenerator& g)
{
    const auto extents = checkGenerator(g);
    const std::uint64_t rows = extents.first;
    const std::uint64_t cols = extents.second;
    const std::string what = describe(g);
    requireHostMemory(sparseGeneratorBytes(g), kGenerator, what, "the matrix");
    const CounterRng rng(g.seed);
    // Uniform and power-law rows: distinct uniform columns, values uniform in [−1, 1).
    auto randomRow = [&](const RowSlot& slot) {
        drawColumns(rng, slot.row, cols, slot.length, slot.cols, slot.scratch);
        for (std::uint64_t k = 0; k < slot.length; ++k)
            slot.values[k] = valueAt(rng, slot.position + k);
    };
    switch (g.pattern) {
    case SparsePattern::Uniform: {
        const BinomialLengths lengths(cols, g.density);
        auto rowLength = [&](std::uint64_t r) {
            DrawSequence draws(rng, kLengthStream, r);
            return lengths.draw(draws);
        };
        return buildRows(rows, cols, what, rowLength, randomRow);
    }
    case SparsePattern::PowerLaw: {
        const double mean = g.density * static_cast<double>(cols);
        const PowerLawLengths lengths(rows, cols, mean, g.exponent);
        const RankPermutation rankOf(rows, rng);
        auto rowLength = [&](std::uint64_t r) {
            const double length = lengths.length(rankOf(r) + 1);
            const double whole = std::floor(length);
            DrawSequence draws(rng, kLengthStream, r);
            const auto rounded = static_cast<std::uint64_t>(whole) + (draws.uniform() < length - whole ? 1 : 0);
            return std::min(rounded, cols);
        };
        return buildRows(rows, cols, what, rowLength, randomRow);
    }
    case SparsePattern::Laplacian2d:
        return laplacian(g.side, 2, what);
    case SparsePattern::Laplacian3d:
        return laplacian(g.side, 3, what);
    case SparsePattern::Banded: {
        const std::uint64_t band = std::min(g.bandwidth, rows - 1);
        auto rowLength = [&](std::uint64_t r) { return std::min(rows - 1, r + band) - (r >= band ? r - band : 0) + 1; };
        auto fillRow = [&](const RowSlot& slot) {
            const std::uint64_t first = slot.row >= band ? slot.row - band : 0;
            for (std::uint64_t k = 0; k < slot.length; ++k) {
                slot.cols[k] = static_cast<std::int32_t>(first + k);
                slot.values[k] = valueAt(rng, slot.position + k);
            }
        };
        return buildRows(rows, rows, what, rowLength, fillRow);
    }
    }
    throw DatasetError(kGenerator, "pattern", "unknown sparse pattern");
}

} // namespace ks::data
