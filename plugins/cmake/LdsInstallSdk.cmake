# LdsInstallSdk.cmake: installs the plugin SDK: the CMake package LogDirStrategy (targets, version,
# lds_add_strategy_plugin and its exports map), the pkg-config file logdir-strategy.pc, and the
# examples an author copies (share/lds/examples). Included once from the top-level CMakeLists.txt
# after every installed target is defined; with LDS_SDK_ONLY, right after the ABI, with no host.
include(CMakePackageConfigHelpers)

install(EXPORT LogDirStrategyTargets NAMESPACE LogDirStrategy::
        DESTINATION ${LDS_INSTALL_CMAKE_DIR})

# The host library's export. lds_warnings only appears in it as a link-only entry of the static
# libraries (it carries compile options and no library), so exporting it changes no consumer build.
# An SDK-only install has no host: without this file, find_package's host component is not found.
if(NOT LDS_SDK_ONLY)
  install(TARGETS lds_warnings EXPORT LogDirStrategyHostTargets)
  set_target_properties(lds_warnings PROPERTIES EXPORT_NAME project_warnings)
  install(EXPORT LogDirStrategyHostTargets NAMESPACE LogDirStrategy::
          DESTINATION ${LDS_INSTALL_CMAKE_DIR})
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/LogDirStrategyConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/LogDirStrategyConfig.cmake
                              INSTALL_DESTINATION ${LDS_INSTALL_CMAKE_DIR}
                              PATH_VARS LDS_INSTALL_PLUGIN_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/LogDirStrategyConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/LogDirStrategyConfig.cmake
              ${PROJECT_BINARY_DIR}/LogDirStrategyConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/plugins/LdsAddStrategyPlugin.cmake
              ${PROJECT_SOURCE_DIR}/plugins/lds_plugin_exports.map
        DESTINATION ${LDS_INSTALL_CMAKE_DIR})
# The package names the plugin folder (LogDirStrategy_PLUGIN_DIR), so it exists even with no plugin.
install(DIRECTORY DESTINATION ${LDS_INSTALL_PLUGIN_DIR})

# The .pc file is written at install time, with the prefix it is installed under (cmake --install
# --prefix, or /usr in the Debian package, whose DESTDIR is not part of it): its paths are then
# absolute and normalised, as `pkg-config --variable=plugindir` should print them. A tree moved
# after installing is still found with pkg-config --define-prefix.
set(LDS_PC_FILE ${PROJECT_BINARY_DIR}/pkgconfig/logdir-strategy.pc)
install(CODE "set(LDS_PC_TEMPLATE [[${CMAKE_CURRENT_LIST_DIR}/logdir-strategy.pc.in]])
set(LDS_PC_FILE [[${LDS_PC_FILE}]])
set(LDS_PC_VERSION [[${PROJECT_VERSION}]])
include([[${CMAKE_CURRENT_LIST_DIR}/LdsWritePkgConfig.cmake]])")
install(FILES ${LDS_PC_FILE} DESTINATION lib/pkgconfig)

# What the README tells plugin authors to copy: a standalone project built against this SDK.
install(FILES ${PROJECT_SOURCE_DIR}/plugins/example/CMakeLists.txt
              ${PROJECT_SOURCE_DIR}/plugins/example/most_free.c
              ${PROJECT_SOURCE_DIR}/plugins/example/round_robin.c
        DESTINATION share/lds/examples)
