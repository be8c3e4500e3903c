# What `cmake --install` (and the Debian package, cmake/packaging.cmake) puts where, under the
# prefix: docs/install.md describes the layout. No installed file names the build or source
# folder: the tools find their Python library relative to themselves and netprof on PATH.
include(GNUInstallDirs)

install(TARGETS netprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# netprof(1) and the bash completion, written by src/docgen from the option table.
install(FILES ${NETPROF_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${NETPROF_BASH_COMPLETION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# The user tools (scripts/tools/*.py: sweep, plot, ...) keep their checkout layout under
# share/netprof, beside the library they import (scripts/lib), and each gets a netprof-NAME
# command in bin/ that runs it (a wrapper rather than a symlink, so each script finds its
# library from its own real path, as it does in the checkout).
set(netprof_tools_dir ${CMAKE_INSTALL_DATADIR}/netprof/tools)
install(DIRECTORY scripts/lib/ DESTINATION ${CMAKE_INSTALL_DATADIR}/netprof/lib
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
file(RELATIVE_PATH bin_to_tools ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${netprof_tools_dir})
file(GLOB netprof_tools CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/scripts/tools/*.py)
# Each tool's man page is written at build time from its docstring and --help
# (cmake/tool_man_page.py), gzipped as Debian wants; without /usr/bin/python3 (a build for a
# profile alone, scripts/quickstart.sh) there are none.
find_program(NETPROF_TOOLS_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(NETPROF_TOOLS_GZIP gzip)
set(netprof_tool_man_pages "")
foreach(script ${netprof_tools})
  get_filename_component(tool ${script} NAME_WE)
  string(REPLACE "_" "-" command ${tool})
  set(command netprof-${command})
  configure_file(cmake/tool_wrapper.sh.in ${PROJECT_BINARY_DIR}/tools/${command} @ONLY)
  install(PROGRAMS ${script} DESTINATION ${netprof_tools_dir})
  install(PROGRAMS ${PROJECT_BINARY_DIR}/tools/${command} DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(NETPROF_TOOLS_PYTHON AND NETPROF_TOOLS_GZIP)
    set(page ${PROJECT_BINARY_DIR}/tools/${command}.1)
    add_custom_command(OUTPUT ${page}.gz
                       COMMAND ${NETPROF_TOOLS_PYTHON} ${PROJECT_SOURCE_DIR}/cmake/tool_man_page.py
                               ${script} ${command} ${PROJECT_VERSION} ${page}
                       COMMAND ${NETPROF_TOOLS_GZIP} -9nf ${page}
                       DEPENDS ${script} ${PROJECT_SOURCE_DIR}/cmake/tool_man_page.py
                       COMMENT "Writing ${command}(1)" VERBATIM)
    list(APPEND netprof_tool_man_pages ${page}.gz)
  endif()
endforeach()
if(netprof_tool_man_pages)
  add_custom_target(netprof_tool_man_pages ALL DEPENDS ${netprof_tool_man_pages})
  install(FILES ${netprof_tool_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "No /usr/bin/python3 or gzip: the netprof-* tools' man pages are not built")
endif()

# Debian wants the licence as share/doc/PACKAGE/copyright.
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
