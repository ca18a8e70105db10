// The vendor-library reference: cuSPARSE's generic cusparseSpMV on the same CSR arrays, its analysis done once at
// prepare (cusparseSpMV_preprocess) like any caller that multiplies by one matrix many times.
#include "compute/device/cusparse_loader.cuh"
#include "compute/workloads/spmv/spmv_device.cuh"

#include <memory>

namespace ks::spmv::gpu {

namespace {
template <class T> constexpr cudaDataType kValueType = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;

const char* algorithmName(cusparseSpMVAlg_t algorithm)
{
    switch (algorithm) {
    case CUSPARSE_SPMV_CSR_ALG1:
        return "CUSPARSE_SPMV_CSR_ALG1";
    case CUSPARSE_SPMV_CSR_ALG2:
        return "CUSPARSE_SPMV_CSR_ALG2 (deterministic)";
    default:
        return "CUSPARSE_SPMV_ALG_DEFAULT";
    }
}

/// Owners of cuSPARSE descriptors: destroyed however the prepare that made them ends.
struct MatrixDeleter {
    void operator()(cusparseSpMatDescr* a) const { device::cusparse().destroySpMat(a); }
};
struct VectorDeleter {
    void operator()(cusparseDnVecDescr* v) const { device::cusparse().destroyDnVec(v); }
};
using MatrixDescriptor = std::unique_ptr<cusparseSpMatDescr, MatrixDeleter>;
using VectorDescriptor = std::unique_ptr<cusparseDnVecDescr, VectorDeleter>;

template <class T> class CusparseRun final : public SpmvDeviceRun<T> {
public:
    CusparseRun(const data::SparseSystem& system, cusparseSpMVAlg_t algorithm)
        : SpmvDeviceRun<T>(system, 0)
        , m_algorithm(algorithm)
        , m_handle(this->stream())
    {
        const auto& api = device::cusparse();
        cusparseSpMatDescr_t a = nullptr;
        KS_CUSPARSE_CHECK(api.createCsr(&a, this->m_rows, this->m_cols, this->m_nnz, this->m_rowPtr.data(),
            this->m_colIdx.data(), this->m_values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
            CUSPARSE_INDEX_BASE_ZERO, kValueType<T>));
        m_matA.reset(a);
        cusparseDnVecDescr_t v = nullptr;
        KS_CUSPARSE_CHECK(api.createDnVec(&v, this->m_cols, this->m_x.data(), kValueType<T>));
        m_vecX.reset(v);
        KS_CUSPARSE_CHECK(api.createDnVec(&v, this->m_rows, this->m_y.data(), kValueType<T>));
        m_vecY.reset(v);
        std::size_t bytes = 0;
        KS_CUSPARSE_CHECK(api.spmvBufferSize(m_handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &m_one, m_matA.get(),
            m_vecX.get(), &m_zero, m_vecY.get(), kValueType<T>, m_algorithm, &bytes));
        m_buffer = device::DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1));
        if (api.spmvPreprocess)
            KS_CUSPARSE_CHECK(api.spmvPreprocess(m_handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &m_one, m_matA.get(),
                m_vecX.get(), &m_zero, m_vecY.get(), kValueType<T>, m_algorithm, m_buffer.data()));
        m_note = "cuSPARSE " + device::cusparseVersion() + " cusparseSpMV, " + algorithmName(m_algorithm)
            + (api.spmvPreprocess ? ", preprocessed at prepare" : "") + "; work buffer " + std::to_string(bytes)
            + " bytes";
        KS_CUDA_CHECK(cudaStreamSynchronize(this->stream()));
    }
    void run() override
    {
        KS_CUSPARSE_CHECK(device::cusparse().spmv(m_handle.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &m_one,
            m_matA.get(), m_vecX.get(), &m_zero, m_vecY.get(), kValueType<T>, m_algorithm, m_buffer.data()));
    }
    std::string note() const override { return m_note; }

private:
    cusparseSpMVAlg_t m_algorithm;
    device::CusparseHandle m_handle;
    MatrixDescriptor m_matA;
    VectorDescriptor m_vecX;
    VectorDescriptor m_vecY;
    device::DeviceBuffer<unsigned char> m_buffer;
    const T m_one = 1;
    const T m_zero = 0;
    std::string m_note;
};
} // namespace

} // namespace ks::spmv::gpu

namespace ks::spmv {

std::unique_ptr<PreparedRun> prepareCusparse(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::CusparseRun>(d, p, CUSPARSE_SPMV_ALG_DEFAULT);
}

std::unique_ptr<PreparedRun> prepareCusparseAlg2(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::CusparseRun>(d, p, CUSPARSE_SPMV_CSR_ALG2);
}

} // namespace ks::spmv
