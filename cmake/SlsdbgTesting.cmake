# slsdbg_add_gtest(NAME SOURCES a_test.cc ... LIBS lib ... [LABELS l])
# A GoogleTest binary registered with ctest (one ctest entry per binary, so
# the closing ctest line counts binaries; gtest prints the per-case detail).
function(slsdbg_add_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main Threads::Threads)
  add_test(NAME ${name} COMMAND ${name} --gtest_color=no)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "SLSDBG_BUILD_DIR=${PROJECT_BINARY_DIR};SLSDBG_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  if(T_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
  if(T_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()

# slsdbg_add_script_test(NAME SCRIPT path [ARGS ...]): a shell-driven end-to-end
# test; the script gets SLSDBG (the binary), SLSDBG_BUILD_DIR, SLSDBG_SOURCE_DIR
# and PROGRAMS (the fixture directory) in its environment.
function(slsdbg_add_script_test name)
  cmake_parse_arguments(T "" "SCRIPT;TIMEOUT" "ARGS" ${ARGN})
  add_test(NAME ${name} COMMAND bash ${T_SCRIPT} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT
    "SLSDBG=$<TARGET_FILE:slsdbg>;SLSDBG_BUILD_DIR=${PROJECT_BINARY_DIR};SLSDBG_SOURCE_DIR=${PROJECT_SOURCE_DIR};PROGRAMS=${PROJECT_BINARY_DIR}/tests/programs")
  if(T_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
endfunction()
