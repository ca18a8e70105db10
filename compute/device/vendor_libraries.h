#pragma once

#include <string>

namespace ks::device {

/// Empty when cuBLAS can be loaded (it is opened at run time, so the app itself needs only the NVIDIA driver);
/// otherwise why not.
std::string cublasUnavailableReason();
/// The same for cuSPARSE.
std::string cusparseUnavailableReason();
/// The same for cuDNN 9.
std::string cudnnUnavailableReason();
/// The same for NCCL 2 (the multi-device variants' collectives).
std::string ncclUnavailableReason();
/// NCCL's version ("2.28.9") once loaded; empty when it cannot be.
std::string ncclVersionText();

} // namespace ks::device
