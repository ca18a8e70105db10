#pragma once

// The natural logarithm the centring kernel takes of every count, by a table of 128 pieces and a short series (Tang's
// method, ACM TOMS 16(4), 1990): 48 instructions in the centring's SASS where the CUDA library's log took 92, whose
// five a thread were 460 of the centring's 1,148 instructions a warp at 80 × 10,000. Within 2 units in the last place
// of max(|log x|, 1) over the positive normal doubles (1.48 the most seen, just below x = e²): what the centring needs
// is a small absolute error, since its logs are centred and differenced before anything else; near x = 1 the error
// relative to log x itself can be larger. Anything that is not a positive normal double (zero, negative, subnormal,
// infinite, NaN) goes to the library's log.
//
// x = 2^k·z with z in [0.6875, 1.375), read from the bits, and z in one of 128 pieces of equal width in the bits (1/256
// below 1, 1/128 above). With c the piece's midpoint (1 for the piece that starts at 1, so that log 1 is 0) and v = 1/c
// rounded, r = z·v − 1 (one multiply-add, |r| < 2^−7) and log x = k·ln 2 − log v + log(1 + r), where
// log(1 + r) = r + r²·P(r) by its Taylor series to r⁷ (the next term is below 2^−59).

#include "compute/core/host_device.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ks::lrv {

namespace table_log {
inline constexpr int kPieceBits = 7;
inline constexpr int kPieces = 1 << kPieceBits;
inline constexpr std::uint64_t kStart = 0x3fe6000000000000ULL; ///< the bits of 0.6875, where z starts
inline constexpr int kPieceShift = 52 - kPieceBits; ///< a piece is 2^kPieceShift apart in the bits
inline constexpr double kLn2Hi = 0x1.62e42fefa3800p-1; ///< ln 2 to 42 bits: k·kLn2Hi is exact for |k| < 2,048
inline constexpr double kLn2Lo = 0x1.ef35793c76730p-45; ///< ln 2 − kLn2Hi

KS_HOST_DEVICE inline std::uint64_t bits(double x)
{
#ifdef __CUDA_ARCH__
    return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
    std::uint64_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    return u;
#endif
}

KS_HOST_DEVICE inline double fromBits(std::uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double(static_cast<long long>(u));
#else
    double x = 0.0;
    std::memcpy(&x, &u, sizeof x);
    return x;
#endif
}
} // namespace table_log

/// One piece of the table: v = 1/c rounded, and −log v.
struct alignas(16) LogPiece {
    double inverse;
    double minusLog;
};

/// Piece i (0 … kPieces − 1) of the table; the same on the host and the device but for the last
/// place of −log v, where the two libraries' logs may differ.
KS_HOST_DEVICE inline LogPiece logPiece(int i)
{
    using namespace table_log;
    const double a = fromBits(kStart + (static_cast<std::uint64_t>(i) << kPieceShift));
    const double b = fromBits(kStart + (static_cast<std::uint64_t>(i + 1) << kPieceShift));
    const double inverse = a == 1.0 ? 1.0 : 2.0 / (a + b);
    return {inverse, -std::log(inverse)};
}

/// The series' coefficients and ln 2's parts. A kernel that takes them as a parameter has its multiply-adds read them
/// from the constant bank; written as literals, each 64-bit constant is built by two uniform moves before each use (12
/// instructions of a log's 48 in the centring's SASS).
struct LogConstants {
    double c7 = 1.0 / 7.0;
    double c6 = -1.0 / 6.0;
    double c5 = 1.0 / 5.0;
    double c3 = 1.0 / 3.0;
    double ln2Hi = table_log::kLn2Hi;
    double ln2Lo = table_log::kLn2Lo;
};

/// log x for a positive normal double x, with `pieces` the kPieces of logPiece.
KS_HOST_DEVICE inline double tableLogNormal(double x, const LogPiece* pieces, const LogConstants& constants = {})
{
    using namespace table_log;
    const std::uint64_t u = bits(x);
    const std::uint64_t t = u - kStart;
    const int piece = static_cast<int>((t >> kPieceShift) & (kPieces - 1));
    const std::int64_t k = static_cast<std::int64_t>(t) >> 52; // an arithmetic shift: −1 below 0.6875
    const double z = fromBits(u - (t & (0xfffULL << 52)));
    const LogPiece entry = pieces[piece];
    const double r = std::fma(z, entry.inverse, -1.0); // z·v − 1 rounded once
    const double kd = static_cast<double>(k);
    const double w = std::fma(kd, constants.ln2Hi, entry.minusLog); // k·kLn2Hi is exact
    const double hi = w + r;
    const double lo = (w - hi) + r;
    double q = std::fma(r, constants.c7, constants.c6); // P(r) = −1/2 + r/3 − r²/4 + r³/5 − r⁴/6 + r⁵/7
    q = std::fma(q, r, constants.c5);
    q = std::fma(q, r, -1.0 / 4.0);
    q = std::fma(q, r, constants.c3);
    q = std::fma(q, r, -1.0 / 2.0);
    return std::fma(r * r, q, std::fma(kd, constants.ln2Lo, lo)) + hi;
}

/// log x: tableLogNormal for the positive normal doubles, the library's log for the rest.
KS_HOST_DEVICE inline double tableLog(double x, const LogPiece* pieces, const LogConstants& constants = {})
{
    constexpr std::uint64_t kSmallest = 0x0010000000000000ULL; // the bits of the smallest positive normal
    constexpr std::uint64_t kInfinity = 0x7ff0000000000000ULL;
    if (table_log::bits(x) - kSmallest >= kInfinity - kSmallest)
        return std::log(x);
    return tableLogNormal(x, pieces, constants);
}

} // namespace ks::lrv
