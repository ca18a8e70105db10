# Shared settings for every KernelScope target.
function(ks_target_defaults target)
    target_compile_features(${target} PUBLIC cxx_std_20)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
        # Errors only on the compiler CI uses (GCC 12): a newer compiler's new warnings must not break a user's build.
        $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${KS_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Werror>
        # GCC 12 reports false -Wrestrict overlaps inside std::string's operator+ (GCC bug 105329).
        $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
        $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall>)
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
    include(GoogleTest)
    set(serial FALSE)
    if(ARG_SERIAL)
        set(serial TRUE)
    endif()
    gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
        PROPERTIES LABELS "${ARG_LABELS}" ENVIRONMENT "QT_QPA_PLATFORM=offscreen" RUN_SERIAL ${serial})
endfunction()
