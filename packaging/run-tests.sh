#!/usr/bin/env bash
# Sets up and runs every test: installs missing packages, builds the CI preset (with CUDA when nvcc exists) and
# runs its tests (the GUI's among them); then builds and tests the CPU-only configuration a machine without nvcc
# gets, without the GUI, with AddressSanitizer and UndefinedBehaviorSanitizer (nocuda-asan), so the CPU code's tests
# also check memory and undefined behaviour (all but three CNN tests that train to convergence, 1.6 minutes there;
# they run in the first build, and the shorter CNN tests take the same code through the sanitisers). CUDA tests skip
# with the reason when no GPU is present and run for real on a GPU machine.
# Then the readers' fuzz targets are built with clang, every seed and regression input replayed and each target
# fuzzed for KS_FUZZ_SECONDS (20) seconds (tests/fuzz/ci.sh). Last, the Debian package of the CI build is packed
# from that build, linted, installed, run and removed (check-package.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
stage() { echo "== run-tests: $1 ($(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s so far)"; }
bash packaging/install-deps.sh
stage "ci"
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
stage "nocuda-asan"
cmake --preset nocuda-asan
cmake --build --preset nocuda-asan
ctest --preset nocuda-asan
stage "fuzz"
cmake --preset fuzz
cmake --build --preset fuzz
bash tests/fuzz/ci.sh build/fuzz "${KS_FUZZ_SECONDS:-20}"
stage "package"
bash packaging/check-package.sh build/ci
stage "done"
