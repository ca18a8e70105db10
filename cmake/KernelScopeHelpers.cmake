# nvcc hands host code to CMAKE_CUDA_HOST_COMPILER, or to the g++ on PATH when none is named; CMake 3.25 knows neither
# its id nor its version, so ask it here once, for the CUDA -Werror below to follow the C++ rule.
set(KS_CUDA_HOST_IS_GCC_BEFORE_13 OFF)
if(CMAKE_CUDA_COMPILER)
    if(CMAKE_CUDA_HOST_COMPILER)
        set(ks_cuda_host "${CMAKE_CUDA_HOST_COMPILER}")
    else()
        set(ks_cuda_host g++)
    endif()
    execute_process(COMMAND ${ks_cuda_host} --version OUTPUT_VARIABLE ks_host_banner ERROR_QUIET)
    execute_process(COMMAND ${ks_cuda_host} -dumpfullversion OUTPUT_VARIABLE ks_host_version
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    # clang answers -dumpfullversion too; its banner names it.
    if(ks_host_version AND NOT ks_host_banner MATCHES "clang" AND ks_host_version VERSION_LESS 13)
        set(KS_CUDA_HOST_IS_GCC_BEFORE_13 ON)
    endif()
endif()

# Shared settings for every KernelScope target.
function(ks_target_defaults target)
    target_compile_features(${target} PUBLIC cxx_std_20)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
        # Errors only on the compiler CI uses (GCC 12): a newer compiler's new warnings must not break a user's build.
        $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${KS_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Werror>
        # GCC 12 reports false -Wrestrict overlaps inside std::string's operator+ (GCC bug 105329).
        $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
        $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall -Xcompiler=-Wextra>
        # The host compiler's warnings on .cu files, as errors under the same rule as C++ (nvcc's own advisories,
        # which `-Werror all-warnings` would also fail on, stay warnings).
        $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${KS_WARNINGS_AS_ERRORS}>,$<BOOL:${KS_CUDA_HOST_IS_GCC_BEFORE_13}>>:-Xcompiler=-Werror>)
    if(KS_SANITIZE)
        # Every report ends the process (a UBSan finding is not a message a passing test prints), and the frame
        # pointers keep the stacks of the reports whole.
        target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${KS_SANITIZE}
            -fno-sanitize-recover=all -fno-omit-frame-pointer ${KS_SANITIZE_COMPILE_EXTRA}>
            # GCC's sanitizer instrumentation makes -Wmaybe-uninitialized report false positives (GCC's manual says
            # so; GCC 12 reports them inside std::regex), so that warning is off in sanitised builds.
            $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
        target_link_options(${target} PUBLIC -fsanitize=${KS_SANITIZE})
    endif()
endfunction()

# Sources that are set-up, parsing and bookkeeping rather than hot loops compile at -O1 in sanitised builds, which only
# run tests: with the sanitisers -O3 doubles their compile time (cli.cpp 84 → 44 s) for nothing the tests need. The
# code the tests time or train with (the workloads) keeps the build type's optimisation.
function(ks_light_optimisation_when_sanitised)
    if(KS_SANITIZE)
        set_property(SOURCE ${ARGN} DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" APPEND PROPERTY COMPILE_OPTIONS
            $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
    endif()
endfunction()

# One way to declare a test: ks_add_test(NAME SOURCES ... LIBS ... [LABELS ...] [OWN_MAIN] [SERIAL])
# Each GoogleTest case becomes its own CTest test, so ctest can run them in parallel. OWN_MAIN: the sources bring
# their own main() (the GUI tests create a QApplication first). SERIAL: the cases run alone (timing-sensitive).
function(ks_add_test name)
    cmake_parse_arguments(ARG "OWN_MAIN;SERIAL" "" "SOURCES;LIBS;LABELS" ${ARGN})
    add_executable(${name} ${ARG_SOURCES})
    ks_target_defaults(${name})
    target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest)
    if(NOT ARG_OWN_MAIN)
        target_link_libraries(${name} PRIVATE GTest::gtest_main)
    endif()
    target_compile_definitions(${name} PRIVATE KS_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
        KS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    # A test's own code is set-up and assertions, not hot loops: -O1 (after the build type's -O3) compiles it in
    # about half the time (sanitised, test_point_cloud.cpp 46 → 19 s), while the code under test keeps the build
    # type's optimisation — the sanitised build with everything at -O1 ran the Fashion-MNIST training test in 331
    # instead of 122 s.
    target_compile_options(${name} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release,RelWithDebInfo>>:-O1>)
    # GoogleTest's header and the standard library's most used ones are parsed once a target, not once a file.
    target_precompile_headers(${name} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:<gtest/gtest.h$<ANGLE-R>>"
        "$<$<COMPILE_LANGUAGE:CXX>:<filesystem$<ANGLE-R>>" "$<$<COMPILE_LANGUAGE:CXX>:<fstream$<ANGLE-R>>"
        "$<$<COMPILE_LANGUAGE:CXX>:<string$<ANGLE-R>>" "$<$<COMPILE_LANGUAGE:CXX>:<vector$<ANGLE-R>>")
    include(GoogleTest)
    set(serial FALSE)
    if(ARG_SERIAL)
        set(serial TRUE)
    endif()
    gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
        PROPERTIES LABELS "${ARG_LABELS}" ENVIRONMENT "QT_QPA_PLATFORM=offscreen" RUN_SERIAL ${serial})
endfunction()
