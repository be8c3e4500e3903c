# The Debian package: `cpack` in the build folder writes netprof_VERSION_ARCH.deb from what
# cmake/install.cmake installs, under /usr. Depends comes from the libraries the binary really
# links (dpkg-shlibdeps, from dpkg-dev); what only some uses need is at the level Debian
# policy (7.2) gives it: python3, which the netprof-* tools need and netprof does not, is
# Recommended; iox-roudi (iceoryx, one transport of thirteen), mosquitto (the broker the mqtt
# transport's local pair starts), redis-server (the redis transport's), matplotlib (netprof-plot) and
# scipy (netprof-compare) are Suggested, and each says what is missing when it is needed.
# docs/install.md describes it; tests/package checks it, lintian among the checks.
set(NETPROF_PACKAGE_CONTACT "netprof maintainers <maintainers@users.noreply.a-seed-f34f387b.example>"
    CACHE STRING "The Maintainer field of the Debian package")
# A build folder configured before the placeholder was replaced keeps it in its cache.
if(NETPROF_PACKAGE_CONTACT MATCHES "@localhost>$")
  set_property(CACHE NETPROF_PACKAGE_CONTACT PROPERTY VALUE
               "netprof maintainers <maintainers@users.noreply.a-seed-f34f387b.example>")
endif()

# Debian wants a native package's changelog as share/doc/PACKAGE/changelog.gz (gzip -9n: the
# same bytes on every build; lintian's no-changelog otherwise).
configure_file(cmake/debian/changelog.in ${PROJECT_BINARY_DIR}/debian/changelog @ONLY)
find_program(NETPROF_CHANGELOG_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/debian/changelog.gz
                   COMMAND ${NETPROF_CHANGELOG_GZIP} -9nkf ${PROJECT_BINARY_DIR}/debian/changelog
                   DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog VERBATIM)
add_custom_target(netprof_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog.gz)
install(FILES ${PROJECT_BINARY_DIR}/debian/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME netprof)
set(CPACK_PACKAGE_VENDOR netprof)
set(CPACK_PACKAGE_CONTACT "${NETPROF_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "latency and throughput of pub/sub transports between processes")
# One line of the control file each (Debian wants them under 80 columns); every transport of
# transports/ is named (tests/package checks them against netprof --list-transports).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "netprof measures how fast a pub/sub transport moves messages between\n"
    "real processes, on one host or across hosts: round-trip latency with\n"
    "percentiles on the publisher's own clock, throughput and loss on each\n"
    "subscriber's. Transports: UDP unicast, multicast and broadcast, TCP,\n"
    "Unix domain sockets, POSIX message queues, shared memory, ZeroMQ, NNG,\n"
    "Eclipse Cyclone DDS, eProsima Fast DDS, Eclipse iceoryx, MQTT through a\n"
    "broker and Redis pub/sub. It includes netprof-sweep, netprof-plot and\n"
    "netprof-compare, which run it over payload sizes and transports, plot\n"
    "the result and compare two sets of runs.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "iceoryx, mosquitto, redis-server, python3-matplotlib, python3-scipy, bash-completion, openssh-client")
# The tools' Python is byte-compiled on install and its bytecode removed on remove, as
# dh_python3's scripts do for Debian's own Python packages (cmake/debian/postinst, prerm).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/cmake/debian/postinst ${PROJECT_SOURCE_DIR}/cmake/debian/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
