#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace ks::data {

/// Counter-based random numbers: value i of stream s depends only on (seed, s, i), so generators can fill
/// arrays in parallel and give the same data whatever the thread count.
class CounterRng {
public:
    explicit CounterRng(std::uint64_t seed)
        : m_seed(seed)
    {
    }

    /// SplitMix64 finaliser (Steele, Lea & Flood 2014) over the combined counter.
    std::uint64_t bits(std::uint64_t stream, std::uint64_t index) const
    {
        std::uint64_t z
            = m_seed * 0x9E3779B97F4A7C15ULL + stream * 0xD1B54A32D192ED03ULL + index * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ULL;
        return z ^ (z >> 32);
    }

    /// Uniform in [0, 1) with 53 random bits.
    double uniform(std::uint64_t stream, std::uint64_t index) const
    {
        return static_cast<double>(bits(stream, index) >> 11) * 0x1.0p-53;
    }

    /// Standard normal by Box–Muller from two uniforms of streams 2s and 2s+1.
    double normal(std::uint64_t stream, std::uint64_t index) const
    {
        const double u1 = 1.0 - uniform(2 * stream, index); // (0, 1]
        const double u2 = uniform(2 * stream + 1, index);
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }

private:
    std::uint64_t m_seed;
};

/// The draws of one index in consecutive streams (draw n is stream `firstStream` + n): as many random values per row
/// or cell as its sampling needs (rejection, repeated draws), each still a function of (seed, index) only.
class DrawSequence {
public:
    DrawSequence(const CounterRng& rng, std::uint64_t firstStream, std::uint64_t index)
        : m_rng(rng)
        , m_stream(firstStream)
        , m_index(index)
    {
    }

    double uniform() { return m_rng.uniform(m_stream + m_next++, m_index); }

    /// Standard normal by Box–Muller from the next two uniforms.
    double normal()
    {
        const double u1 = 1.0 - uniform(); // (0, 1]
        const double u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }

    /// Uniform in [0, n) (the bias of 53-bit uniforms is below 2^-22 for n < 2^31).
    std::uint64_t below(std::uint64_t n)
    {
        return std::min<std::uint64_t>(n - 1, static_cast<std::uint64_t>(uniform() * static_cast<double>(n)));
    }

private:
    const CounterRng& m_rng;
    std::uint64_t m_stream;
    std::uint64_t m_index;
    std::uint64_t m_next = 0;
};

} // namespace ks::data
