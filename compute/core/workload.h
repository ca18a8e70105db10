#pragma once

#include "compute/core/params.h"
#include "compute/core/result.h"
#include "compute/core/variant.h"
#include "data/dataset.h"
#include "data/read_options.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ks {

/// A named set of parameter values: a data class (generator settings) or a parameter class (run settings).
struct TestClass {
    std::string name; ///< part of the test's name: "offset", "b512"; may be empty for the only class
    std::map<std::string, std::string> values;
};

/// What the registry-wide test runs for a workload: every variant × size × parameter combination × data class,
/// on fresh random data from the workload's generator.
struct TestPlan {
    std::vector<std::uint64_t> sizes; ///< values of the generator's size parameter: awkward ones
    std::vector<TestClass> dataClasses; ///< generator settings (data far from the origin, irregular rows, ...)
    /// Run-parameter settings besides the enum combinations (sdh: bucket widths); none: one empty class.
    std::vector<TestClass> parameterClasses;
    /// Adjusts generator values to a size where a data class cannot hold as written (lrv: at most features / 2
    /// planted pairs); may be empty.
    std::function<void(std::map<std::string, std::string>& generator, std::uint64_t size)> fitToSize;

    /// Every combination of the workload's enum run parameters (reader options excluded: they do not change what a
    /// variant computes on generated data), crossed with the parameter classes. Names join the enum values and the
    /// class name with '_'.
    std::vector<TestClass> parameterCombinations(const std::vector<Axis>& parameters) const;
};

/// A problem with one reference and several variants. Owns what every variant shares: parameters, datasets,
/// the comparison that turns a result into a Delta, and the cost model.
class Workload {
public:
    Workload() = default;
    Workload(const Workload&) = delete;
    Workload& operator=(const Workload&) = delete;
    virtual ~Workload() = default;

    virtual std::string id() const = 0; ///< "linreg"
    virtual std::string name() const = 0; ///< "Linear regression (OLS)"
    virtual std::string description() const = 0;
    virtual std::string datasetKind() const = 0; ///< matches DatasetMeta::kind
    /// File patterns the loader accepts, for dialogs: "*.csv *.tsv *.txt *.h5 *.hdf5 *.gz".
    virtual std::string filePatterns() const = 0;

    /// Run parameters every variant reads (precision, bucket width, ...).
    virtual std::vector<Axis> parameters() const = 0;
    /// Parameters of the embedded generator.
    virtual std::vector<Axis> generatorParameters() const = 0;
    /// The generator parameter a size sweep varies.
    virtual std::string sizeParameter() const = 0;
    /// Sizes a quick demonstration sweeps (the desktop app's --demo): a few seconds of work on a laptop.
    virtual std::string demoSizes() const { return {}; }
    virtual data::Dataset generate(const ParamSet& generator) const = 0;
    virtual data::Dataset load(const std::string& path, const data::ReadOptions& options) const = 0;
    /// True when load() reads a second operand file (ReadOptions::vectorPath: spmv's x); otherwise --vector is refused.
    virtual bool takesVector() const { return false; }
    /// Refuses, with a ParameterError naming the parameter or the data, a run that would give no meaningful answer
    /// or could not fit (linreg on constant x, sdh with more buckets than memory holds), before any variant runs.
    /// planSweep calls it for each size: with the loaded `dataset` (whose first `size` elements that size runs on),
    /// or with that size's `generator` settings when the data is generated. Nothing by default.
    virtual void checkRun(const ParamSet&, const data::Dataset*, const ParamSet*, std::uint64_t) const { }
    /// The first `size` elements of a loaded dataset for size sweeps over a file; nullopt when not meaningful.
    virtual std::optional<data::Dataset> subset(const data::Dataset&, std::uint64_t) const { return std::nullopt; }
    /// False when the full reference would take too long (minutes) on this dataset: the runner then hands compare()
    /// an empty reference Result and the workload checks a sample of the output against reference values it
    /// computes for just those elements.
    virtual bool fullReferenceAffordable(const data::Dataset&, const ParamSet&) const { return true; }

    virtual Cost cost(const data::Dataset& dataset, const ParamSet& params) const = 0;
    virtual double tolerance(const ParamSet& params) const = 0;
    /// A run of exactly this many repetitions, whatever the noise and the time limit (cnn: the `steps` training
    /// steps the user asked for, each a Sample with its loss); nullopt: the runner's stopping rule decides.
    /// Cancellation still stops it between repetitions.
    virtual std::optional<int> fixedRepetitions(const ParamSet&) const { return std::nullopt; }
    /// Compares a variant's result with the reference's, on this dataset.
    virtual Delta compare(
        const Result& result, const Result& reference, const data::Dataset& dataset, const ParamSet& params) const = 0;

    /// What a variant's result says besides its Delta, measured once after the run (cnn: the trained weights'
    /// accuracy on held-out images): appended to Summary::facts. `backend` is where the variant ran (a GPU variant's
    /// result may be evaluated on the GPU). Nothing by default.
    virtual Facts resultFacts(const Result&, const data::Dataset&, const ParamSet&, Backend) const { return {}; }

    /// The sizes, data classes and parameter combinations the registry-wide test checks every variant on.
    virtual TestPlan testPlan() const = 0;

    const std::vector<Variant>& variants() const { return m_variants; }
    const Variant* findVariant(const std::string& id) const;
    /// The oracle every variant is compared with: the variant with id "reference".
    const Variant& referenceVariant() const;

protected:
    std::vector<Variant> m_variants;
};

} // namespace ks
