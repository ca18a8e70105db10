#!/usr/bin/env bash
# Sets up and runs every test: installs missing packages, builds the CI preset (with CUDA when nvcc exists) and
# runs its tests; where CUDA was built, also builds and tests the CPU-only configuration a machine without nvcc
# gets. CUDA tests skip with the reason when no GPU is present and run for real on a GPU machine. Last, the Debian
# package of the CI build is packed from that build, linted, installed, run and removed (check-package.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
if grep -q "^KS_HAVE_CUDA:INTERNAL=ON" build/ci/CMakeCache.txt 2>/dev/null; then
    cmake --preset nocuda
    cmake --build --preset nocuda
    ctest --preset nocuda
fi
bash packaging/check-package.sh build/ci
