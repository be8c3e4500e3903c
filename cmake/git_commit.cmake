# Writes OUTPUT, a header defining NETPROF_GIT_COMMIT: the commit SOURCE_DIR was built from,
# its first 12 hex digits, with "-dirty" when a tracked file differs from it; "unknown" when
# SOURCE_DIR is not the top of a git work tree (a tarball, even one unpacked inside another
# repository) or git is missing. Run as a script (cmake -DSOURCE_DIR=... -DOUTPUT=... -P) on
# every build; OUTPUT is rewritten only when its text changes, so an unchanged commit compiles
# nothing again.
cmake_minimum_required(VERSION 3.22)

function(netprof_git_commit source_dir result)
  set(${result} "unknown" PARENT_SCOPE)
  find_program(git_program git)
  if(NOT git_program)
    return()
  endif()
  execute_process(COMMAND ${git_program} -C ${source_dir} rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE failed
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(failed)
    return()
  endif()
  file(REAL_PATH "${top}" top)
  file(REAL_PATH "${source_dir}" source)
  if(NOT top STREQUAL source)
    return()
  endif()
  execute_process(COMMAND ${git_program} -C ${source_dir} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE commit RESULT_VARIABLE failed
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(failed)
    return()
  endif()
  # Untracked files (a build folder) do not make a tree dirty; changed tracked files do.
  execute_process(COMMAND ${git_program} -C ${source_dir} status --porcelain
                          --untracked-files=no --ignore-submodules
                  OUTPUT_VARIABLE changes RESULT_VARIABLE failed ERROR_QUIET)
  if(failed)
    return()
  endif()
  if(NOT changes STREQUAL "")
    string(APPEND commit "-dirty")
  endif()
  set(${result} "${commit}" PARENT_SCOPE)
endfunction()

if(NOT SOURCE_DIR OR NOT OUTPUT)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=DIR -DOUTPUT=FILE -P git_commit.cmake")
endif()
netprof_git_commit("${SOURCE_DIR}" commit)
set(text "#pragma once\n// Written by cmake/git_commit.cmake on every build.\n#define NETPROF_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${text}")
