# The Debian package: `cpack` in the build folder writes netprof_VERSION_ARCH.deb from what
# cmake/install.cmake installs, under /usr. Depends comes from the libraries the binary really
# links (dpkg-shlibdeps, from dpkg-dev), plus python3 for the tools and iceoryx for iox-roudi;
# what only the plots need is recommended. docs/install.md describes it; tests/package checks it.
set(NETPROF_PACKAGE_CONTACT "netprof maintainers <netprof@localhost>"
    CACHE STRING "The Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME netprof)
set(CPACK_PACKAGE_VENDOR netprof)
set(CPACK_PACKAGE_CONTACT "${NETPROF_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "latency and throughput of pub/sub transports between processes")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "netprof measures how fast a pub/sub transport (UDP unicast, multicast and broadcast, "
    "ZeroMQ, shared memory) moves messages between real processes, on one host or across "
    "hosts: round-trip latency with percentiles on the publisher's own clock, throughput and "
    "loss on each subscriber's. It includes netprof-sweep and netprof-plot, which run it over "
    "payload sizes and transports and plot the result.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# iceoryx: iox-roudi, which the iceoryx transport's local pair starts (a program, not a library
# the binary links, so dpkg-shlibdeps cannot find it).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, iceoryx")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-matplotlib, python3-scipy")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, openssh-client")
include(CPack)
