# ro_add_usage_error_tests(PREFIX TARGET CASE...): one test per bad command line, each
# "name|text the message must contain|argument|argument...", where an argument {empty} stands
# for an empty string (CMake would drop it). The program must print that
# one message on stderr, nothing on stdout, and exit 2 (tests/support/expect_usage_error.sh).
function(ro_add_usage_error_tests prefix target)
  foreach(case IN LISTS ARGN)
    string(REPLACE "|" ";" fields "${case}")
    list(POP_FRONT fields name expected)
    add_test(NAME ${prefix}_bad_${name}
             COMMAND bash "${PROJECT_SOURCE_DIR}/tests/support/expect_usage_error.sh" "${expected}"
                     $<TARGET_FILE:${target}> ${fields})
  endforeach()
endfunction()
