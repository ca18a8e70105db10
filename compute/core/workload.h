#pragma once

#include "compute/core/params.h"
#include "compute/core/result.h"
#include "compute/core/variant.h"
#include "data/dataset.h"
#include "data/read_options.h"

#include <optional>
#include <string>
#include <vector>

namespace ks {

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
    /// The first `size` elements of a loaded dataset for size sweeps over a file; nullopt when not meaningful.
    virtual std::optional<data::Dataset> subset(const data::Dataset&, std::uint64_t) const { return std::nullopt; }
    /// False when the full reference would take too long (minutes) on this dataset: the runner then hands compare()
    /// an empty reference Result and the workload checks a sample of the output against reference values it
    /// computes for just those elements.
    virtual bool fullReferenceAffordable(const data::Dataset&, const ParamSet&) const { return true; }

    virtual Cost cost(const data::Dataset& dataset, const ParamSet& params) const = 0;
    virtual double tolerance(const ParamSet& params) const = 0;
    /// Compares a variant's result with the reference's, on this dataset.
    virtual Delta compare(
        const Result& result, const Result& reference, const data::Dataset& dataset, const ParamSet& params) const = 0;

    const std::vector<Variant>& variants() const { return m_variants; }
    const Variant* findVariant(const std::string& id) const;
    /// The oracle every variant is compared with: the variant with id "reference".
    const Variant& referenceVariant() const;

protected:
    std::vector<Variant> m_variants;
};

} // namespace ks
