// The one source of netprof_gtest_pch (tests/CMakeLists.txt), the target whose precompiled
// header of gtest and gmock every test executable reuses; it has nothing of its own.
