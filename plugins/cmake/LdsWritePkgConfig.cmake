# LdsWritePkgConfig.cmake: writes logdir-strategy.pc while `cmake --install` runs (install(CODE) in
# LdsInstallSdk.cmake sets LDS_PC_TEMPLATE, LDS_PC_FILE and LDS_PC_VERSION), with the prefix being
# installed to, so that pkg-config prints absolute, normalised paths.
cmake_path(ABSOLUTE_PATH CMAKE_INSTALL_PREFIX NORMALIZE OUTPUT_VARIABLE LDS_PC_PREFIX)
# No trailing slash: --prefix /opt/lds/ must not give /opt/lds//include, nor / give //include.
string(REGEX REPLACE "/+$" "" LDS_PC_PREFIX "${LDS_PC_PREFIX}")
set(PROJECT_VERSION "${LDS_PC_VERSION}")
configure_file("${LDS_PC_TEMPLATE}" "${LDS_PC_FILE}" @ONLY)
