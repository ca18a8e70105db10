#pragma once

// The distribution of a result's per-element errors against the reference, beside the Delta's single worst value:
// "passed at 2e-12 everywhere" and "exact but for one element off by 1e-7" have the same kind of Delta and very
// different histograms.

#include "compute/core/precision.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ks {

/// How an ErrorHistogram's bins are laid out. Both layouts are fixed, so histograms of any two runs line up bin by bin
/// and a histogram is at most a few dozen counts however many elements it covers.
enum class ErrorBins {
    /// Errors ≥ 0 on a log10 scale: bin 0 holds exactly 0; bin 1 holds (0, 1e-17); then half-decade bins
    /// [10^(k/2), 10^((k+1)/2)) from 1e-17 up to 1e+1; the last bin holds every finite error ≥ 1e+1.
    Log10,
    /// Whole numbers of steps (ULPs, or counts): bin 0 holds 0, bin 1 holds 1, bin k ≥ 2 holds (2^(k−2), 2^(k−1)]:
    /// 2, 3–4, 5–8, 9–16, ... up to 2^64.
    PowersOfTwo,
};

/// A histogram of per-element errors. NaN or infinite errors (a NaN or infinite result where the reference is finite,
/// or the reverse) are counted in `nonFinite`, not in a bin.
struct ErrorHistogram {
    ErrorBins bins = ErrorBins::Log10;
    std::string measure; ///< what one element's error is: "scaled_err", "ulp_f32", "count_diff", ...
    std::vector<std::uint64_t> counts; ///< binCount(bins) entries
    std::uint64_t nonFinite = 0;
    /// Elements of the result.
    std::uint64_t elements = 0;
    /// The workload checked a sample of the elements (its full reference being too costly): the histogram describes
    /// that sample, `compared()` elements of them.
    bool sampled = false;
    /// The per-element tolerance the Delta's value is held to, when the Delta is the largest of these errors (so the
    /// tolerance can be drawn across the bins); absent when the Delta is not per-element (sdh's L1 fraction).
    std::optional<double> tolerance;

    static constexpr int kLowExponent = -17; ///< Log10: the lowest bin edge is 10^kLowExponent
    static constexpr int kHighExponent = 1; ///< Log10: errors from 10^kHighExponent up share the last bin
    static constexpr int kBinsPerDecade = 2;

    /// An empty histogram of this layout.
    ErrorHistogram(ErrorBins layout = ErrorBins::Log10, std::string measureName = {});

    static std::size_t binCount(ErrorBins layout);
    /// The bin of an error (a finite error ≥ 0; Log10) or of a step count (PowersOfTwo).
    static std::size_t binOf(double error);
    static std::size_t binOfSteps(std::uint64_t steps);
    /// The bin's lower and upper edges in the error's unit (Log10: [low, high); PowersOfTwo: (low, high], whole
    /// steps). The last Log10 bin's upper edge is infinity.
    static double binLow(ErrorBins layout, std::size_t bin);
    static double binHigh(ErrorBins layout, std::size_t bin);
    /// A short label: "0", "<1e-17", "1e-9", "≥1e+1" (Log10, by the lower edge); "0", "1", "2", "3–4", "5–8", …
    /// "513–1024", "≤2^11", … (steps).
    static std::string binLabel(ErrorBins layout, std::size_t bin);

    /// Counts one element's error (Log10): NaN and infinity go to nonFinite, a negative error is taken as its
    /// magnitude.
    void add(double error);
    /// Counts one element's distance in steps (PowersOfTwo); nullopt (no distance: NaN, or infinity against a finite
    /// value) goes to nonFinite.
    void addSteps(std::optional<std::uint64_t> steps);

    /// Elements counted: the bins plus nonFinite.
    std::uint64_t compared() const;
    /// The highest bin holding any element; nullopt when every counted element is non-finite or none was counted.
    std::optional<std::size_t> highestBin() const;

    bool operator==(const ErrorHistogram&) const = default;
};

/// The relative error every workload without a measure of its own uses: |x − r| / max(|r|, floor). The floor keeps
/// an element whose reference is 0 or nearly so from turning a rounding error into a huge relative one: the workload
/// picks it from the scale of the values the element is made of (e.g. max |r| · ε of the computed precision). NaN in
/// both is agreement (0); NaN in one is infinitely wrong.
double relativeError(double value, double reference, double floor);

/// Distance between two doubles in units in the last place: the number of representable doubles between them (+0 and
/// −0 are the same). nullopt when either is NaN, or exactly one is infinite.
std::optional<std::uint64_t> ulpDistance(double value, double reference);
/// The same in float steps, for a result computed in float and stored as double: both are rounded to float (the
/// result's value is one already; the reference is rounded to nearest), then the floats between them are counted. A
/// reference beyond float's range rounds to infinity and then matches only an infinite result.
std::optional<std::uint64_t> ulpDistanceFloat(double value, double reference);
/// ulpDistance or ulpDistanceFloat, in the precision the variant computed in.
std::optional<std::uint64_t> ulpDistance(double value, double reference, Precision precision);
/// "ulp_f64" or "ulp_f32": the measure name of a ULP histogram in that precision.
const char* ulpMeasure(Precision precision);

} // namespace ks
