# LdsInstallSdk.cmake: installs the plugin SDK: the CMake package LogDirStrategy (targets, version,
# lds_add_strategy_plugin and its exports map) and the pkg-config file logdir-strategy.pc.
# Included once from the top-level CMakeLists.txt after every installed target is defined.
include(CMakePackageConfigHelpers)

install(EXPORT LogDirStrategyTargets NAMESPACE LogDirStrategy::
        DESTINATION ${LDS_INSTALL_CMAKE_DIR})

# The host library's export. lds_warnings only appears in it as a link-only entry of the static
# libraries (it carries compile options and no library), so exporting it changes no consumer build.
install(TARGETS lds_warnings EXPORT LogDirStrategyHostTargets)
set_target_properties(lds_warnings PROPERTIES EXPORT_NAME project_warnings)
install(EXPORT LogDirStrategyHostTargets NAMESPACE LogDirStrategy::
        DESTINATION ${LDS_INSTALL_CMAKE_DIR})

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

# Relocatable (paths relative to the .pc file), so one file serves every install prefix.
configure_file(${CMAKE_CURRENT_LIST_DIR}/logdir-strategy.pc.in
               ${PROJECT_BINARY_DIR}/logdir-strategy.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/logdir-strategy.pc DESTINATION lib/pkgconfig)
