// The spmv workload descriptor and its variant list. A new spmv variant is its kernel file plus, here, one row in
// the list and its factory's declaration; the registry-wide test (tests/compute/test_variants.cpp) then checks it.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/device/vendor_libraries.h"
#include "compute/workloads/spmv/spmv.h"
#include "compute/workloads/spmv/spmv_policy.h"
#include "data/host_memory.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks::spmv {

// Variant factories: each is defined in its kernel file and registered in the list below.
PrepareSignature prepareReference;
PrepareSignature prepareCpuOpenMp;
PrepareSignature prepareScalar;
PrepareSignature prepareVector;
PrepareSignature prepareAdaptive;
PrepareSignature prepareRowBinning;
PrepareSignature prepareEll;
PrepareSignature prepareDia;
PrepareSignature prepareSubwarp;
PrepareSignature prepareMergePath;
PrepareSignature prepareRowTiles;
PrepareSignature prepareAuto;
PrepareSignature prepareCusparse;
PrepareSignature prepareCusparseAlg2;

namespace {

data::SparsePattern patternOf(const std::string& name)
{
    if (name == "powerlaw")
        return data::SparsePattern::PowerLaw;
    if (name == "laplacian2d")
        return data::SparsePattern::Laplacian2d;
    if (name == "laplacian3d")
        return data::SparsePattern::Laplacian3d;
    if (name == "banded")
        return data::SparsePattern::Banded;
    return data::SparsePattern::Uniform;
}

/// Σ_j |a_ij|·|x_j| per row, on the values as a variant of this precision reads them: the scale each row's
/// rounding error is measured against.
template <class T> std::vector<double> rowScales(const data::SparseSystem& system)
{
    const HostOperands<T> in(system);
    const auto& a = system.matrix;
    std::vector<double> scales(a.rows);
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t si = 0; si < static_cast<std::int64_t>(a.rows); ++si) {
        const auto i = static_cast<std::size_t>(si);
        double s = 0.0;
        for (auto k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) {
            const auto kk = static_cast<std::size_t>(k);
            s += std::fabs(static_cast<double>(in.values()[kk]))
                * std::fabs(static_cast<double>(in.x()[static_cast<std::size_t>(a.colIdx[kk])]));
        }
        scales[i] = s;
    }
    return scales;
}

class SpmvWorkload final : public Workload {
public:
    SpmvWorkload()
    {
        Variant cusparse = gpuVariant("cusparse", "cuSPARSE SpMV",
            "the vendor library: generic cusparseSpMV with CUSPARSE_SPMV_ALG_DEFAULT on the same CSR arrays, "
            "preprocessed once",
            Backend::Library, KS_GPU_PREPARE(prepareCusparse));
        Variant cusparseAlg2 = gpuVariant("cusparse_alg2", "cuSPARSE SpMV, CSR_ALG2",
            "generic cusparseSpMV with CUSPARSE_SPMV_CSR_ALG2, its deterministic algorithm", Backend::Library,
            KS_GPU_PREPARE(prepareCusparseAlg2));
#if KS_HAVE_CUDA
        cusparse.runtimeCheck = device::cusparseUnavailableReason;
        cusparseAlg2.runtimeCheck = device::cusparseUnavailableReason;
#endif
        m_variants = {
            cpuVariant("reference", "Reference (long double)",
                "every row's dot product accumulated in long double, one thread", prepareReference),
            cpuVariant("cpu_openmp", "CPU rows (OpenMP)",
                "rows split over threads in parts of equal non-zero count, sums in the value type", prepareCpuOpenMp),
            gpuVariant("scalar", "Scalar: thread per row (seed)",
                "the seed's scalar kernel: one thread per row; threads with long rows hold up their warp (rows of "
                "more than 64 non-zeros: a block per 2,048 of them, 4,096 past 4,096)",
                Backend::Cuda, KS_GPU_PREPARE(prepareScalar)),
            gpuVariant("vector", "Vector: warp per row (seed)",
                "the seed's vector kernel: 32 lanes stride over a row, shuffle reduction (rows of more than 2,048 "
                "non-zeros: a block per 2,048 of them, 4,096 past 4,096)",
                Backend::Cuda, KS_GPU_PREPARE(prepareVector)),
            gpuVariant("adaptive", "Adaptive scalar/vector (seed)",
                "the seed's switch: a warp per row, lane 0 alone for rows of up to 32 non-zeros, the whole warp "
                "for longer ones (beyond 2,048 non-zeros: a block per 2,048 of them, 4,096 past 4,096)",
                Backend::Cuda, KS_GPU_PREPARE(prepareAdaptive)),
            gpuVariant("row_binning", "Row binning (seed strategy 2)",
                "rows binned by length at prepare: up to 8 non-zeros a thread each, 9–64 a warp, longer ones a "
                "block per 2,048 non-zeros (4,096 past 4,096)",
                Backend::Cuda, KS_GPU_PREPARE(prepareRowBinning)),
            gpuVariant("ell", "ELL (seed strategy 4)",
                "rows padded to the longest and stored column-major at prepare, a thread per row, coalesced; "
                "for regular matrices",
                Backend::Cuda, KS_GPU_PREPARE(prepareEll)),
            gpuVariant("dia", "DIA (diagonal storage)",
                "the non-zeros stored by diagonal (col − row) at prepare, zeros where a diagonal has no entry, no "
                "column indices; a thread per row; for banded matrices and stencils (skipped past 128 diagonals or "
                "3 slots per non-zero)",
                Backend::Cuda, KS_GPU_PREPARE(prepareDia)),
            gpuVariant("subwarp", "Sub-warp rows",
                "2–32 lanes per row, the width chosen from the mean row length (about two non-zeros a lane); rows of "
                "more than 64 non-zeros a lane go to a block per 2,048 of them (4,096 past 4,096)",
                Backend::Cuda, KS_GPU_PREPARE(prepareSubwarp)),
            gpuVariant("merge_path", "Merge-path load balance",
                "equal shares of the merged row ends and non-zeros per thread (Merrill & Garland 2016); "
                "indifferent to row lengths",
                Backend::Cuda, KS_GPU_PREPARE(prepareMergePath)),
            gpuVariant("row_tiles", "Row tiles, column panels",
                "consecutive rows in tiles of up to 4,093 non-zeros, staged in shared memory with 16-byte loads and "
                "summed a thread per row (a warp past 32); x cut into two column panels, a pass each, past two fifths "
                "of L2 (four fifths for rows under 8 on average; three past 1.2 × L2); rows of more than 4,093 "
                "non-zeros a block per 2,048 of them (4,096 past 4,096), beside the tiles on a stream of their own",
                Backend::Cuda, KS_GPU_PREPARE(prepareRowTiles)),
            gpuVariant("auto", "Automatic choice",
                "the kernel for the matrix chosen at prepare from its row statistics (longest row against the mean, "
                "diagonals, ELL padding, column span, rows, mean length): row_tiles, dia, ell or row_binning; the note "
                "says which and why",
                Backend::Cuda, KS_GPU_PREPARE(prepareAuto)),
            cusparse,
            cusparseAlg2,
        };
    }

    std::string id() const override
    {
        return "spmv";
    }
    std::string name() const override
    {
        return "Sparse matrix-vector product (CSR)";
    }
    std::string description() const override
    {
        return "y = A·x for a sparse matrix in CSR with 32-bit indices, float64 or float32 (seed 002)";
    }
    std::string datasetKind() const override
    {
        return "csr";
    }
    std::string filePatterns() const override
    {
        return "*.mtx *.mtx.gz *.gz *.h5 *.hdf5 *.h5ad";
    }

    std::vector<Axis> parameters() const override
    {
        return {Axis::choice(
                    "precision", "value type of A, x and y as the variants read and write them", "f64", {"f64", "f32"}),
            Axis::integer("panels",
                "row_tiles: column panels of x, a pass over A each (0: as many as x's size against the GPU's L2 asks)",
                0, 0, RowTileThresholds::kMaxPanels)
                .readOnlyBy({"row_tiles", "auto"})};
    }

    std::vector<Axis> generatorParameters() const override
    {
        return {
            Axis::choice("pattern",
                "uniform random, power-law row lengths, 2-D 5-point or 3-D 7-point Laplacian, or banded", "uniform",
                {"uniform", "powerlaw", "laplacian2d", "laplacian3d", "banded"}),
            Axis::integer("rows", "number of rows (Laplacians: the nearest square or cube of a whole grid side)",
                50'000, 1, static_cast<std::int64_t>(data::kMaxSparseDimension)),
            Axis::real(
                "aspect", "columns per row of the shape (uniform, powerlaw): cols = rows × aspect", 1.0, 1e-6, 1e6),
            Axis::real(
                "density", "probability of an entry (uniform, powerlaw); the seed's preset is 0.001", 0.001, 0.0, 1.0),
            Axis::real("per_row", "mean non-zeros per row instead of a density (0: use density)", 0.0, 0.0, 1e9),
            Axis::real(
                "exponent", "powerlaw: tail exponent of the row lengths (heavier as it nears 1)", 2.0, 1.05, 10.0),
            Axis::integer("bandwidth", "banded: diagonals on each side of the main one", 3, 0, 1'000'000),
            Axis::integer("seed", "random seed of A and x", 1, 0, std::int64_t(1) << 62),
        };
    }

    std::string sizeParameter() const override
    {
        return "rows";
    }
    std::string demoSizes() const override
    {
        return "2^10..2^15";
    }

    TestPlan testPlan() const override
    {
        // Empty rows, one very long row, non-square shapes, and every generator class.
        return {{1, 31, 1000, 100003},
            {{"uniform", {{"per_row", "6"}}}, {"sparse", {{"per_row", "0.4"}}},
                {"wide", {{"aspect", "2.7"}, {"per_row", "5"}}}, {"tall", {{"aspect", "0.3"}, {"per_row", "3"}}},
                {"powerlaw", {{"pattern", "powerlaw"}, {"per_row", "8"}, {"exponent", "1.6"}}},
                {"laplacian2d", {{"pattern", "laplacian2d"}}}, {"laplacian3d", {{"pattern", "laplacian3d"}}},
                {"banded", {{"pattern", "banded"}, {"bandwidth", "2"}}}},
            {}, {}};
    }

    data::Dataset generate(const ParamSet& g) const override
    {
        data::SparseGenerator generator;
        generator.pattern = patternOf(g.text("pattern"));
        const auto rows = static_cast<std::uint64_t>(g.integer("rows"));
        generator.rows = rows;
        generator.cols = std::clamp<std::uint64_t>(
            static_cast<std::uint64_t>(std::llround(static_cast<double>(rows) * g.real("aspect"))), 1,
            data::kMaxSparseDimension);
        generator.density = g.real("per_row") > 0.0
            ? std::min(1.0, g.real("per_row") / static_cast<double>(generator.cols))
            : g.real("density");
        generator.exponent = g.real("exponent");
        generator.bandwidth = static_cast<std::uint64_t>(g.integer("bandwidth"));
        generator.seed = static_cast<std::uint64_t>(g.integer("seed"));
        const double root = generator.pattern == data::SparsePattern::Laplacian3d
            ? std::cbrt(static_cast<double>(rows))
            : std::sqrt(static_cast<double>(rows));
        generator.side = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(root)));
        // The matrix and its x together, before either is made: a refusal does not come after generating the matrix.
        data::requireHostMemory(data::sparseGeneratorBytes(generator, true), "generator", "",
            "generating a " + g.text("pattern") + " matrix of " + std::to_string(rows) + " rows and its x");
        data::SparseSystem system;
        system.matrix = data::generateSparse(generator);
        system.x = data::generateVector(system.matrix.cols, generator.seed);
        system.vectorSource = "generated (seed " + g.text("seed") + ")";
        const std::string name = "generated spmv " + g.text("pattern") + " " + std::to_string(system.matrix.rows) + "×"
            + std::to_string(system.matrix.cols) + " nnz=" + std::to_string(system.matrix.nnz())
            + " seed=" + g.text("seed");
        return data::makeSparseDataset(std::move(system), name, "generator: " + g.toString());
    }

    bool takesVector() const override
    {
        return true;
    }

    data::Dataset load(const std::string& path, const data::ReadOptions& options) const override
    {
        return data::loadSparseMatrix(path, options);
    }

    std::optional<data::Dataset> subset(const data::Dataset& dataset, std::uint64_t size) const override
    {
        const auto& system = dataset.as<data::SparseSystem>();
        const auto& a = system.matrix;
        if (size == 0 || size > a.rows)
            return std::nullopt;
        data::SparseSystem part;
        part.matrix.rows = size;
        part.matrix.cols = a.cols;
        part.matrix.rowPtr.assign(a.rowPtr.begin(), a.rowPtr.begin() + static_cast<std::ptrdiff_t>(size + 1));
        const auto nnz = static_cast<std::ptrdiff_t>(part.matrix.rowPtr.back());
        part.matrix.colIdx.assign(a.colIdx.begin(), a.colIdx.begin() + nnz);
        part.matrix.values.assign(a.values.begin(), a.values.begin() + nnz);
        if (!a.rowNames.empty())
            part.matrix.rowNames.assign(a.rowNames.begin(), a.rowNames.begin() + static_cast<std::ptrdiff_t>(size));
        part.matrix.colNames = a.colNames;
        part.matrix.storedType = a.storedType;
        part.matrix.notes = a.notes;
        part.x = system.x;
        part.vectorSource = system.vectorSource;
        return data::makeSparseDataset(
            std::move(part), dataset.meta().name + " [first " + std::to_string(size) + " rows]", dataset.meta().source);
    }

    Cost cost(const data::Dataset& dataset, const ParamSet& params) const override
    {
        const auto& a = dataset.as<data::SparseSystem>().matrix;
        const double value = precisionOf(params) == Precision::F64 ? 8.0 : 4.0;
        const double nnz = static_cast<double>(a.nnz());
        const double rows = static_cast<double>(a.rows);
        // The seed's appendix: values and column indices, row pointers, x once, y once.
        const double bytes
            = nnz * (value + 4.0) + (rows + 1.0) * 4.0 + static_cast<double>(a.cols) * value + rows * value;
        return Cost {bytes, 2.0 * nnz, nnz, "non-zeros", Roof::ReadBandwidth};
    }

    double tolerance(const ParamSet& params) const override
    {
        return precisionOf(params) == Precision::F64 ? 1e-12 : 1e-4;
    }

    Delta compare(const Result& result, const Result& reference, const data::Dataset& dataset,
        const ParamSet& params) const override
    {
        const auto& system = dataset.as<data::SparseSystem>();
        const std::uint64_t rows = system.matrix.rows;
        if (result.values.size() != rows || reference.values.size() != rows)
            throw ComputeError("spmv: a result has " + std::to_string(result.values.size()) + " values for "
                + std::to_string(rows) + " rows");
        const std::vector<double> scales
            = precisionOf(params) == Precision::F64 ? rowScales<double>(system) : rowScales<float>(system);
        double worst = 0.0;
        std::uint64_t worstRow = 0;
        std::uint64_t over = 0;
        const double tol = tolerance(params);
        const Precision precision = precisionOf(params);
        Delta d;
        // Each row's error relative to its own scale (Σ|a_ij·x_j|), as the Delta takes it.
        d.relError = ErrorHistogram(ErrorBins::Log10, "scaled_err");
        d.relError->elements = rows;
        d.relError->tolerance = tol;
        // spmv computes in its input precision: an f32 variant's y is a float, so its ULPs are float's.
        d.stepError = ErrorHistogram(ErrorBins::PowersOfTwo, ulpMeasure(precision));
        d.stepError->elements = rows;
        for (std::uint64_t i = 0; i < rows; ++i) {
            const double diff = std::fabs(result.values[i] - reference.values[i]);
            double e = 0.0;
            if (std::isnan(diff))
                e = std::numeric_limits<double>::infinity(); // an unwritten (poisoned) or non-finite row
            else if (diff > 0.0)
                e = scales[i] > 0.0 ? diff / scales[i] : std::numeric_limits<double>::infinity();
            d.relError->add(e);
            d.stepError->addSteps(ulpDistance(result.values[i], reference.values[i], precision));
            if (e > tol)
                ++over;
            if (e > worst || (i == 0 && e == worst)) {
                worst = e;
                worstRow = i;
            }
        }
        d.kind = "max_scaled_err";
        d.tolerance = tol;
        d.value = worst;
        d.details = {{"max_scaled_err", worst}, {"worst_row", static_cast<double>(worstRow)},
            {"rows_over_tolerance", static_cast<double>(over)}};
        d.computed = true;
        return d;
    }
};
} // namespace

void registerSpmv(Registry& registry)
{
    registry.add(std::make_unique<SpmvWorkload>());
}

} // namespace ks::spmv
