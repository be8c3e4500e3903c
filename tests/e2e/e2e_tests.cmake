# End-to-end tests: real netprof processes over loopback, driven by Python's standard library
# (Debian's /usr/bin/python3), each with its own deadline. A folder holding test_*.py files calls
# netprof_add_e2e_tests(): tests/e2e for what spans transports, transports/<name>/tests for one
# transport's own. Each script is the test e2e_<script> (label e2e), run from its folder with
# tests/e2e on the Python path for the shared helpers (netprof_test_case, stream_test_case), then
# every transport's test folder, whose helpers a test spanning transports may use
# (test_second_run takes test_iceoryx's RouDi, test_local_pair_threads test_mq's queue checks).
file(GLOB NETPROF_E2E_TRANSPORT_SCRIPTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/transports/*/tests/*.py)
set(NETPROF_E2E_PYTHONPATH ${CMAKE_CURRENT_LIST_DIR})
foreach(script ${NETPROF_E2E_TRANSPORT_SCRIPTS})
  get_filename_component(folder ${script} DIRECTORY)
  list(APPEND NETPROF_E2E_PYTHONPATH ${folder})
endforeach()
list(REMOVE_DUPLICATES NETPROF_E2E_PYTHONPATH)
string(REPLACE ";" ":" NETPROF_E2E_PYTHONPATH "${NETPROF_E2E_PYTHONPATH}")
find_program(NETPROF_E2E_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT NETPROF_E2E_PYTHON)
  message(WARNING "python3 not found in /usr/bin: end-to-end tests are not registered")
endif()

# COST: ctest starts the costliest tests first. A clean build has no timings of earlier runs, so
# without it the end-to-end tests, registered last, ran last, and the longest of them (the
# multi-host lab, three minutes) ran nearly alone at the end of the suite.
function(netprof_add_e2e_tests)
  if(NOT NETPROF_E2E_PYTHON)
    return()
  endif()
  file(GLOB scripts CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test_*.py)
  foreach(script ${scripts})
    get_filename_component(name ${script} NAME_WE)
    add_test(NAME e2e_${name}
             COMMAND ${NETPROF_E2E_PYTHON} -m unittest -v ${name}
             WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    set_tests_properties(e2e_${name} PROPERTIES
      ENVIRONMENT "NETPROF_BIN=$<TARGET_FILE:netprof>;PYTHONPATH=${NETPROF_E2E_PYTHONPATH};PYTHONDONTWRITEBYTECODE=1"
      TIMEOUT 300 LABELS e2e COST 60)
  endforeach()
endfunction()
