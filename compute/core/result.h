#pragma once

#include "compute/core/error_histogram.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ks {

/// A named array a result saves beside its values (a trained network's weights, one per tensor): --output writes each
/// as a dataset of its own with these dimensions.
struct NamedArray {
    std::string name; ///< "conv1.weight"
    std::vector<std::uint64_t> dims; ///< row-major; their product is values.size()
    std::vector<float> values;
};

/// Named numbers a run measured besides its time (a trained model's held-out accuracy, one step's time per layer),
/// in the order measured.
using Facts = std::vector<std::pair<std::string, double>>;

/// A variant's computed answer in a workload-neutral form that comparisons, files and views can read.
struct Result {
    std::string quantity; ///< "fit", "histogram", "y", "lrv", ...: the header of an --output CSV
    std::vector<std::string> labels; ///< names of the values when each has one (linreg: slope, intercept)
    std::vector<double> values; ///< real-valued outputs
    std::vector<std::uint64_t> counts; ///< integer outputs (histograms)
    std::vector<std::string> names; ///< names along the result's axis (lrv: the features of the half matrix)
    std::string arraysQuantity; ///< what `arrays` are ("trained weights"); --output saves them instead of the values
    std::vector<NamedArray> arrays;
};

/// How far a result is from the reference, in the workload's own measure.
struct Delta {
    std::string kind; ///< "max_rel_err", "l1_pairs", ...
    double value = 0.0; ///< the number compared with the tolerance
    double tolerance = 0.0;
    std::vector<std::pair<std::string, double>> details; ///< e.g. slope and intercept errors apart
    bool computed = false;
    /// Each compared element's error, in the measure whose largest value is `value` where the Delta is a maximum
    /// over elements (ErrorBins::Log10). Absent where no element was compared against a reference value.
    std::optional<ErrorHistogram> relError;
    /// Each compared element's distance in steps (ErrorBins::PowersOfTwo): ULPs in the precision the variant computed
    /// in, or for integer outputs (sdh's counts) the count difference, where no ULP applies. Absent where neither fits.
    std::optional<ErrorHistogram> stepError;

    /// NaN is never within tolerance.
    bool withinTolerance() const { return computed && value <= tolerance; }
};

/// What one run of a workload costs, from its cost model.
enum class Roof { ReadBandwidth, CopyBandwidth, Fp32, Fp64 };

struct Cost {
    double bytes = 0.0; ///< fewest bytes that must move through memory
    double flops = 0.0; ///< floating-point operations
    double items = 0.0; ///< the workload's own unit of work (pair distances, non-zeros, ...)
    std::string itemName; ///< "points", "pairs", ... (empty: rate shown as GB/s)
    Roof roof = Roof::ReadBandwidth; ///< the ceiling the % of peak is taken against
};

const char* roofName(Roof roof);

} // namespace ks
